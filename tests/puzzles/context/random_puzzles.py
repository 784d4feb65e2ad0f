"""Random Rosetta Stone puzzles of realistic size, seeded: for tests and benchmarks.

Words are invented syllable strings drawn from a skewed vocabulary, so that some recur in
many examples and many occur once, as in real problems; questions reuse context words
(and now and then a word the context lacks), some with two accepted answers.
"""

from __future__ import annotations

import random

from puzzles.context.lab.analysis import TO_ENGLISH, TO_FOREIGN, Example, Question
from puzzles.context.lab.services import PuzzleSpec

_ONSETS = ("k", "t", "p", "m", "n", "s", "w", "y", "r", "l", "h", "q")
_VOWELS = ("a", "e", "i", "o", "u", "aa", "ii")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3)))


def random_puzzle(
    rng: random.Random,
    *,
    slug: str,
    n_examples: int | None = None,
    n_questions: int | None = None,
) -> PuzzleSpec:
    """Return one puzzle: 10-40 examples and 5-30 questions unless sizes are given."""
    n_examples = n_examples or rng.randint(10, 40)
    n_questions = n_questions or rng.randint(5, 30)
    vocabulary = list(dict.fromkeys(_word(rng) for _ in range(n_examples * 6)))
    # Zipf-like weights: the first words recur, the tail mostly occurs once.
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    examples = []
    for j in range(n_examples):
        words = rng.choices(vocabulary, weights, k=rng.randint(2, 6))
        foreign = (" ".join(words).capitalize() + ".",)
        if rng.random() < 0.1:
            foreign += (" ".join(reversed(words)),)
        examples.append(Example(foreign=foreign, english=f"sentence {j + 1}"))
    counts: dict[str, int] = {}
    for example in examples:
        for word in {w.strip(".") for text in example.foreign for w in text.lower().split()}:
            counts[word] = counts.get(word, 0) + 1
    # About one puzzle in three asks only about words the context repeats: a robust one.
    least = 2 if rng.random() < 0.35 else 1
    used = sorted(w for w, c in counts.items() if c >= least) or sorted(counts)
    questions = []
    for q in range(n_questions):

        def sentence() -> str:
            words = rng.sample(used, k=min(len(used), rng.randint(1, 4)))
            if rng.random() < 0.1:
                words.append(_word(rng) + "x")
            return " ".join(words)

        if rng.random() < 0.5:
            questions.append(
                Question(id=f"q{q + 1}", direction=TO_ENGLISH, prompt=sentence(), answers=("x",))
            )
        else:
            answers = (sentence(),) if rng.random() < 0.8 else (sentence(), sentence())
            questions.append(
                Question(
                    id=f"q{q + 1}",
                    direction=TO_FOREIGN,
                    prompt=f"english {q + 1}",
                    answers=tuple(dict.fromkeys(answers)),
                )
            )
    return PuzzleSpec(
        slug=slug,
        title=f"Random puzzle {slug}",
        language="Randomese",
        examples=tuple(examples),
        questions=tuple(questions),
    )


def random_puzzles(count: int, *, seed: int = 2026) -> list[PuzzleSpec]:
    """Return `count` puzzles of random sizes, the same ones for the same seed."""
    rng = random.Random(seed)
    return [random_puzzle(rng, slug=f"random-{k + 1}") for k in range(count)]
