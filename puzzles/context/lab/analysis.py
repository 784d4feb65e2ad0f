"""Damage scores of a Rosetta Stone puzzle's context examples: pure, no Django.

Definitions (the paper "Load-Bearing Context: The Question Damage Score"; docs/context-lab.md):

- tokens: the tokens of the foreign side of the examples, by a tokenizer (`whitespace`, the
  paper's, or `normalized`, ours and the default);
- F[i][j] = 1 when example j contains token i; a singleton token occurs in exactly one
  example; D(j) counts the singleton tokens of example j;
- a question's required tokens: the tokens of its prompt (`to_english`) or of an accepted
  answer (`to_foreign`); with several accepted answers each one is an alternative;
- deleting a set S of examples makes an alternative lose a token when every example holding
  that token is in S (a token absent from the context cannot be lost: the paper counts
  damage only through tokens that occur only in the deleted example); a question is
  damaged by S when every alternative loses at least one required token;
- D_Q(j) counts the questions damaged by deleting example j alone; a puzzle is fragile when
  max_j D_Q(j) > 0, robust otherwise;
- beyond the paper: a question's deletion distance is the size of the smallest S that
  damages it (None when no deletion can: some alternative has no required token in the
  context); a greedy k-example deletion and the exact optimum for small puzzles
  (`deletions.py`; the distance search is in `distance.py`).

An example may give alternatives for its foreign side ("a / b"): its tokens are the union
of its alternatives' tokens, since a reader of the context sees every alternative.

Example indices in every output count from 1, as the puzzles number them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .distance import DISTANCE_SEARCH_WORK, indices_of, lost, mask_of, smallest_damaging_set

TO_ENGLISH = "to_english"
TO_FOREIGN = "to_foreign"
DIRECTIONS = (TO_ENGLISH, TO_FOREIGN)


# --- tokenizers ------------------------------------------------------------------------


def tokens_whitespace(text: str) -> tuple[str, ...]:
    """Split on whitespace and nothing else, exactly as the paper does."""
    return tuple(text.split())


def _punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def tokens_normalized(text: str) -> tuple[str, ...]:
    """Split on whitespace after NFC and case folding; strip punctuation at token edges.

    Punctuation is any Unicode P* category character; only leading and trailing runs go,
    so a clitic boundary `=` (a symbol, Sm) or an inner apostrophe stays. Tokens left
    empty (a lone dash or quote) are dropped.
    """
    # Case folding can leave text that is not NFC ("ǰ" folds to j + combining caron).
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return tuple(token for token in map(_edges_stripped, folded.split()) if token)


@lru_cache(maxsize=65_536)
def _edges_stripped(raw: str) -> str:
    """Return a token without the punctuation at its edges (cached: puzzles reuse words)."""
    start, end = 0, len(raw)
    while start < end and _punctuation(raw[start]):
        start += 1
    while end > start and _punctuation(raw[end - 1]):
        end -= 1
    return raw[start:end]


TOKENIZERS: dict[str, Callable[[str], tuple[str, ...]]] = {
    "normalized": tokens_normalized,
    "whitespace": tokens_whitespace,
}
DEFAULT_TOKENIZER = "normalized"


def tokenizer_get(name: str) -> Callable[[str], tuple[str, ...]]:
    """Return the tokenizer of that name, or raise ValueError naming the known ones."""
    try:
        return TOKENIZERS[name]
    except KeyError:
        known = ", ".join(sorted(TOKENIZERS))
        raise ValueError(f"unknown tokenizer {name!r} (known: {known})") from None


# --- inputs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """A context example: its foreign side (one or more alternatives) and its English."""

    foreign: tuple[str, ...]
    english: str = ""


@dataclass(frozen=True)
class Question:
    """A question: `direction` is to_english (prompt is foreign) or to_foreign (answers are)."""

    id: str
    direction: str
    prompt: str
    answers: tuple[str, ...] = ()


# --- outputs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenRow:
    """One row of the coverage matrix: a token, the examples holding it, who needs it."""

    token: str
    examples: tuple[int, ...]
    questions: tuple[str, ...]

    @property
    def singleton(self) -> bool:
        return len(self.examples) == 1


@dataclass(frozen=True)
class ExampleScore:
    index: int
    d: int
    singletons: tuple[str, ...]
    dq: int
    damaged_questions: tuple[str, ...]


@dataclass(frozen=True)
class QuestionScore:
    id: str
    direction: str
    # The required tokens of each alternative (the prompt: one; accepted answers: one each).
    required: tuple[tuple[str, ...], ...]
    # Required tokens found in no example (they cannot be lost, nor learnt from the context).
    absent: tuple[str, ...]
    # Examples whose deletion alone damages the question.
    damaged_by: tuple[int, ...]
    # Fewest examples whose deletion damages it (None: no deletion can), and one such set;
    # an upper bound when the search stopped (DISTANCE_SEARCH_WORK).
    distance: int | None
    distance_examples: tuple[int, ...]
    distance_exact: bool = True


@dataclass(frozen=True)
class Deletion:
    """A set of deleted examples and the questions it damages."""

    deleted: tuple[int, ...]
    damaged_questions: tuple[str, ...]

    @property
    def damage(self) -> int:
        return len(self.damaged_questions)


@dataclass(frozen=True)
class OptimumSearch:
    """The exhaustive search for the best k-example deletion; `best` None when skipped."""

    k: int
    combinations: int
    cap: int
    best: Deletion | None

    @property
    def skipped(self) -> bool:
        return self.best is None


@dataclass(frozen=True)
class PuzzleAnalysis:
    tokenizer: str
    n_examples: int
    tokens: tuple[TokenRow, ...]  # in order of first occurrence in the context
    examples: tuple[ExampleScore, ...]
    questions: tuple[QuestionScore, ...]
    # For each question, each alternative, the example bitmask of each required token that
    # occurs in the context (bit j-1 for example j): what every deletion is checked against.
    masks: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False, compare=False)

    @property
    def coverage(self) -> tuple[tuple[int, ...], ...]:
        """F[i][j]: 1 when example j+1 holds token i (rows: tokens, columns: examples)."""
        columns = range(1, self.n_examples + 1)
        return tuple(
            tuple(1 if j in held else 0 for j in columns)
            for held in (frozenset(row.examples) for row in self.tokens)
        )

    @property
    def max_dq(self) -> int:
        return max((e.dq for e in self.examples), default=0)

    @property
    def fragile(self) -> bool:
        return self.max_dq > 0

    @property
    def smallest_distance(self) -> int | None:
        """The fewest examples whose deletion damages some question (None: none can)."""
        return min((q.distance for q in self.questions if q.distance is not None), default=None)

    @property
    def distances_exact(self) -> bool:
        """Tell whether every deletion distance is exact (no search stopped)."""
        return all(q.distance_exact for q in self.questions)

    def example(self, index: int) -> ExampleScore:
        return self.examples[index - 1]

    def damaged_questions(self, deleted: Iterable[int]) -> tuple[str, ...]:
        """Return the ids of the questions that deleting these examples (1-based) damages."""
        gone = mask_of(deleted)
        return tuple(
            q.id for q, alts in zip(self.questions, self.masks, strict=True) if lost(alts, gone)
        )


# --- the analysis ----------------------------------------------------------------------


def example_tokens(example: Example, tokenize: Callable[[str], tuple[str, ...]]) -> set[str]:
    """Return an example's tokens: the union over its foreign alternatives."""
    return {token for text in example.foreign for token in tokenize(text)}


def question_required(
    question: Question, tokenize: Callable[[str], tuple[str, ...]]
) -> tuple[tuple[str, ...], ...]:
    """Return the required tokens of each alternative of a question (order kept, no repeats)."""
    if question.direction == TO_ENGLISH:
        sources: Sequence[str] = (question.prompt,)
    elif question.direction == TO_FOREIGN:
        sources = question.answers
    else:
        raise ValueError(f"question {question.id}: direction must be one of {DIRECTIONS}")
    return tuple(tuple(dict.fromkeys(tokenize(text))) for text in sources)


def analyse(
    examples: Sequence[Example],
    questions: Sequence[Question],
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
) -> PuzzleAnalysis:
    """Compute coverage, D(j), D_Q(j), the verdict and deletion distances of one puzzle."""
    tokenize = tokenizer_get(tokenizer)
    n = len(examples)
    occurs: dict[str, int] = {}  # token -> bitmask of examples, in order of first occurrence
    per_example: list[list[str]] = []
    for j, example in enumerate(examples):
        own = list(dict.fromkeys(t for text in example.foreign for t in tokenize(text)))
        per_example.append(own)
        for token in own:
            occurs[token] = occurs.get(token, 0) | (1 << j)

    required = [question_required(q, tokenize) for q in questions]
    masks = tuple(
        tuple(tuple(occurs[t] for t in alt if t in occurs) for alt in alts) for alts in required
    )
    needed_by: dict[str, list[str]] = {}
    for question, alts in zip(questions, required, strict=True):
        for token in dict.fromkeys(t for alt in alts for t in alt):
            if token in occurs:
                needed_by.setdefault(token, []).append(question.id)

    # Deleting example j alone damages an alternative when one of its tokens occurs only in
    # j; a question, when that holds for every alternative.
    damaged_by: list[tuple[int, ...]] = []
    for alts in masks:
        common: set[int] | None = None
        for alt in alts:
            alone = {m.bit_length() for m in alt if m & (m - 1) == 0}
            common = alone if common is None else common & alone
        damaged_by.append(tuple(sorted(common or ())))

    hits: list[list[str]] = [[] for _ in range(n)]
    for question, by in zip(questions, damaged_by, strict=True):
        for j in by:
            hits[j - 1].append(question.id)
    example_scores = []
    for j in range(1, n + 1):
        singles = tuple(t for t in per_example[j - 1] if occurs[t] == 1 << (j - 1))
        hit = tuple(hits[j - 1])
        example_scores.append(
            ExampleScore(
                index=j, d=len(singles), singletons=singles, dq=len(hit), damaged_questions=hit
            )
        )

    question_scores = []
    for question, alts, by, alt_masks in zip(questions, required, damaged_by, masks, strict=True):
        best, exact = smallest_damaging_set(alt_masks, work=DISTANCE_SEARCH_WORK)
        question_scores.append(
            QuestionScore(
                id=question.id,
                direction=question.direction,
                required=alts,
                absent=tuple(
                    t for t in dict.fromkeys(t for alt in alts for t in alt) if t not in occurs
                ),
                damaged_by=by,
                distance=None if best is None else len(best),
                distance_examples=best or (),
                distance_exact=exact,
            )
        )

    rows = tuple(
        TokenRow(token=t, examples=indices_of(m), questions=tuple(needed_by.get(t, ())))
        for t, m in occurs.items()
    )
    return PuzzleAnalysis(
        tokenizer=tokenizer,
        n_examples=n,
        tokens=rows,
        examples=tuple(example_scores),
        questions=tuple(question_scores),
        masks=masks,
    )


def analysis_report(analysis: PuzzleAnalysis, *, puzzle: str) -> dict:
    """Return the JSON report of `context_analysis`: verdict and scores per example."""
    return {
        "puzzle": puzzle,
        "tokenizer": analysis.tokenizer,
        "fragile": analysis.fragile,
        "max_dq": analysis.max_dq,
        "examples": [
            {
                "index": e.index,
                "d": e.d,
                "dq": e.dq,
                "damaged_questions": list(e.damaged_questions),
            }
            for e in analysis.examples
        ],
    }


__all__ = [
    "DEFAULT_TOKENIZER",
    "DIRECTIONS",
    "DISTANCE_SEARCH_WORK",
    "TOKENIZERS",
    "TO_ENGLISH",
    "TO_FOREIGN",
    "Deletion",
    "Example",
    "ExampleScore",
    "OptimumSearch",
    "PuzzleAnalysis",
    "Question",
    "QuestionScore",
    "TokenRow",
    "analyse",
    "analysis_report",
    "example_tokens",
    "question_required",
    "tokenizer_get",
    "tokens_normalized",
    "tokens_whitespace",
]
