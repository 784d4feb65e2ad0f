"""A context-lab puzzle at every import limit at once (puzzles/context/lab/limits.py): for the
tests of the limits and for benchmarks/context_limits.py, which times every page on it.

It is built to be heavy where the pages are: as many examples, questions and distinct words as
allowed (the coverage matrix is words x examples), half the words in two examples, nine
questions in ten with as many accepted answers as allowed, of two or three words in two
examples each (the deletion-distance search, which stops on most of them),
an example with as many foreign forms as allowed, a text of the longest length, and English
filler up to the character limit.
"""

from __future__ import annotations

import random

from puzzles.context.lab.limits import (
    MAX_ALTERNATIVES,
    MAX_CHARACTERS,
    MAX_EXAMPLES,
    MAX_QUESTIONS,
    MAX_TEXT,
    MAX_TOKENS,
)

_ONSETS = "ktpmnswrlhqbdg"
_VOWELS = "aeiou"


def _words(count: int) -> list[str]:
    """Distinct words of two syllables then more, in a fixed order."""
    syllables = [c + v for c in _ONSETS for v in _VOWELS]
    words = [a + b for a in syllables for b in syllables]
    words += [a + b + c for a in syllables[:8] for b in syllables for c in syllables]
    return words[:count]


def characters(puzzle: dict) -> int:
    """Return the characters of a puzzle's texts as the limit counts them."""
    total = 0
    for example in puzzle["examples"]:
        forms = example["foreign"]
        total += sum(map(len, forms if isinstance(forms, list) else [forms]))
        total += len(example.get("english", ""))
    for question in puzzle["questions"]:
        answers = question["answer"]
        total += len(question["id"]) + len(question["prompt"])
        total += sum(map(len, answers if isinstance(answers, list) else [answers]))
    return total


def puzzle_at_limits(slug: str = "at-limits", *, seed: int = 2026) -> dict:
    """Return the puzzle as the JSON import reads it (one element of the file's list)."""
    rng = random.Random(seed)
    words = _words(MAX_TOKENS)
    held: list[list[str]] = [[] for _ in range(MAX_EXAMPLES)]
    twice = []
    for n, word in enumerate(words):
        held[n % MAX_EXAMPLES].append(word)
        if n % 2:  # half the words occur in a second example
            other = (n * 37 + 11) % MAX_EXAMPLES
            if other != n % MAX_EXAMPLES:
                held[other].append(word)
                twice.append(word)
    examples = [
        {"foreign": " ".join(own), "english": f"Example {j}."}
        for j, own in enumerate(held, start=1)
    ]
    first = held[0]
    examples[0]["foreign"] = [
        " ".join(rng.sample(first, len(first))) for _ in range(MAX_ALTERNATIVES)
    ]
    examples[1]["english"] = ("the longest English side " * 40)[: MAX_TEXT - 1] + "."
    questions = []
    for q in range(1, MAX_QUESTIONS + 1):
        if q % 10:
            size = 3 if q % 10 < 7 else 2
            answers: list[str] = []
            while len(answers) < MAX_ALTERNATIVES:  # distinct, as the import keeps them
                answer = " ".join(rng.sample(twice, size))
                answers += [] if answer in answers else [answer]
            questions.append(
                {"id": f"q{q}", "direction": "to_foreign", "prompt": f"p{q}", "answer": answers}
            )
        else:
            prompt = " ".join(rng.sample(words, 5))
            questions.append(
                {"id": f"q{q}", "direction": "to_english", "prompt": prompt, "answer": "a"}
            )
    puzzle = {
        "slug": slug,
        "title": "At every limit",
        "language": "Invented",
        "examples": examples,
        "questions": questions,
    }
    # English filler up to the character limit, a text at most MAX_TEXT long each.
    for example in examples[2:]:
        room = MAX_CHARACTERS - characters(puzzle)
        if room <= 0:
            break
        filler = (" and so on" * 60)[: min(room, MAX_TEXT - len(example["english"]))]
        example["english"] += filler[:-1] + "." if filler.endswith(" ") else filler
    assert characters(puzzle) <= MAX_CHARACTERS
    return puzzle
