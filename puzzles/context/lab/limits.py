"""How large a context-lab puzzle may be: checked at import, so that every page stays fast.

Real Rosetta Stone puzzles are far inside these limits: IOL 2026 problem 3 (Iquito) makes a
puzzle of 16 examples, 9 questions, 45 distinct foreign words and 1,840 characters (its
longest text 44), problem 5 (Komnzo) 15 examples, 8 questions, 18 words; the benchmark's
generated puzzles have at most 40 examples and 30 questions. The coverage matrix is a table
of words x examples (its XLSX export costs about 20 µs a cell), so distinct words are limited
as well as examples. benchmarks/README.md times every context-lab page on a puzzle at all of
these limits at once.
"""

from __future__ import annotations

from ...errors import ImportFailure
from .analysis import Example, Question, tokens_whitespace

MAX_EXAMPLES = 80
MAX_QUESTIONS = 100
MAX_ALTERNATIVES = 10  # foreign forms of an example; accepted answers of a question
MAX_TEXT = 500  # characters of one text: a foreign form, an English side, a prompt, an answer
MAX_CHARACTERS = 20_000  # characters of all of a puzzle's texts together
# Distinct tokens of the foreign side by the paper's whitespace split; the normalized
# tokenizer (case folded, punctuation stripped) never makes more.
MAX_TOKENS = 400


def puzzle_size_check(
    examples: tuple[Example, ...], questions: tuple[Question, ...], *, file: str, where: str = ""
) -> None:
    """Refuse a puzzle past a limit, naming the JSON path of the first thing too large
    (`where` is the puzzle's own path in the file, such as "puzzles[2]")."""
    prefix = f"{where}." if where else ""
    for key, items, limit in (
        ("examples", examples, MAX_EXAMPLES),
        ("questions", questions, MAX_QUESTIONS),
    ):
        if len(items) > limit:
            raise ImportFailure(
                f"{len(items)} {key}; a puzzle has at most {limit}",
                file=file,
                field=f"{prefix}{key}",
            )
    texts: list[tuple[str, str]] = []  # (JSON path, text)
    for k, example in enumerate(examples, start=1):
        texts += _alternatives(example.foreign, f"{prefix}examples[{k}].foreign", file=file)
        texts.append((f"{prefix}examples[{k}].english", example.english))
    for k, question in enumerate(questions, start=1):
        texts.append((f"{prefix}questions[{k}].prompt", question.prompt))
        texts += _alternatives(question.answers, f"{prefix}questions[{k}].answer", file=file)
    for field, text in texts:
        if len(text) > MAX_TEXT:
            raise ImportFailure(
                f"{len(text):,} characters; a text has at most {MAX_TEXT}", file=file, field=field
            )
    characters = sum(len(text) for _, text in texts) + sum(len(q.id) for q in questions)
    if characters > MAX_CHARACTERS:
        raise ImportFailure(
            f"{characters:,} characters of text in all; a puzzle has at most {MAX_CHARACTERS:,}",
            file=file,
            field=where or "puzzle",
        )
    tokens: set[str] = set()
    for k, example in enumerate(examples, start=1):
        for text in example.foreign:
            tokens.update(tokens_whitespace(text))
        if len(tokens) > MAX_TOKENS:
            raise ImportFailure(
                f"over {MAX_TOKENS:,} distinct foreign words by this example; a puzzle has at"
                f" most {MAX_TOKENS:,}",
                file=file,
                field=f"{prefix}examples[{k}].foreign",
            )


def _alternatives(texts: tuple[str, ...], field: str, *, file: str) -> list[tuple[str, str]]:
    """Return each alternative with its JSON path, or refuse too many of them."""
    if len(texts) > MAX_ALTERNATIVES:
        raise ImportFailure(
            f"{len(texts)} alternatives; at most {MAX_ALTERNATIVES}", file=file, field=field
        )
    if len(texts) == 1:
        return [(field, texts[0])]
    return [(f"{field}[{i}]", text) for i, text in enumerate(texts, start=1)]
