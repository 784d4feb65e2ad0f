"""The context lab's pages: one selector and one dataclass per page (CONVENTIONS.md).

Reads only: the puzzle page reads its puzzle's examples and questions (two queries,
whatever its size), the corpus page every puzzle's (three queries); everything else is the
pure analysis (`analysis`, `variants`) over that plain data.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass

from ioleval.shared_cache import FallbackCache

from ...models import ContextExample, ContextPuzzle, ContextQuestion
from .analysis import (
    DISTANCE_SEARCH_WORK,
    Deletion,
    Example,
    OptimumSearch,
    PuzzleAnalysis,
    Question,
    analyse,
)
from .charts import max_dq_bars
from .deletions import greedy_deletions, optimal_deletion
from .selectors import puzzle_inputs
from .variants import Variant, puzzle_variants

# The puzzle page searches the exact k-deletion only up to this many subsets of examples
# (C(40, 2) = 780 take ~50 ms); beyond, it shows greedy alone and says why.
PAGE_SEARCH_CAP = 1_000
# The deletions compared depend only on the puzzle's content, the tokenizer and k: they are
# cached under a digest of those, so an edited puzzle never reads a stale comparison.
CACHE_SECONDS = 24 * 3600
# While the shared cache cannot be reached, comparisons are kept in this process's memory
# and computed in the request (ioleval.shared_cache), as the result review does.
deletions_cache = FallbackCache(
    "the context lab's deletions", timeout=CACHE_SECONDS, max_entries=200
)


# --- the puzzle page -------------------------------------------------------------------


@dataclass(frozen=True)
class TokenLine:
    """A row of the heatmap: a token, a cell per example ("1" where it occurs), its askers."""

    token: str
    singleton: bool
    cells: tuple[str, ...]
    examples: tuple[int, ...]
    questions: tuple[str, ...]


@dataclass(frozen=True)
class ExampleLine:
    index: int
    foreign: tuple[str, ...]
    english: str
    d: int
    dq: int
    singletons: tuple[str, ...]
    damaged_questions: tuple[str, ...]
    # The conditions that delete this example ("random", "targeted").
    deleted_in: tuple[str, ...]


@dataclass(frozen=True)
class QuestionLine:
    id: str
    direction: str
    prompt: str
    answers: tuple[str, ...]
    required: tuple[tuple[str, ...], ...]
    absent: tuple[str, ...]
    damaged_by: tuple[int, ...]
    distance: int | None
    distance_examples: tuple[int, ...]
    distance_exact: bool


@dataclass(frozen=True)
class DeletionLine:
    """Greedy k-example deletion against the exact optimum (None when not searched)."""

    k: int
    greedy: Deletion
    optimum: OptimumSearch

    @property
    def gap(self) -> int | None:
        """Questions the optimum damages beyond greedy (None when not searched)."""
        if self.optimum.best is None:
            return None
        return self.optimum.best.damage - self.greedy.damage


@dataclass(frozen=True)
class PuzzlePage:
    puzzle: ContextPuzzle
    tokenizer: str
    analysis: PuzzleAnalysis
    tokens: tuple[TokenLine, ...]
    examples: tuple[ExampleLine, ...]
    questions: tuple[QuestionLine, ...]
    deletions: tuple[DeletionLine, ...]
    variants: tuple[Variant, ...]

    @property
    def fragile(self) -> bool:
        return self.analysis.fragile

    @property
    def max_dq(self) -> int:
        return self.analysis.max_dq

    @property
    def smallest_distance(self) -> int | None:
        return self.analysis.smallest_distance

    @property
    def distances_exact(self) -> bool:
        return self.analysis.distances_exact

    @property
    def distance_search_work(self) -> int:
        return DISTANCE_SEARCH_WORK

    @property
    def singleton_count(self) -> int:
        return sum(1 for t in self.tokens if t.singleton)


def puzzle_page(puzzle: ContextPuzzle, *, tokenizer: str, k: int) -> PuzzlePage:
    """Return the puzzle page: heatmap rows, scores per example and question, deletions."""
    examples, questions = puzzle_inputs(puzzle)
    analysis = analyse(examples, questions, tokenizer=tokenizer)
    n = analysis.n_examples
    tokens = tuple(
        TokenLine(
            token=row.token,
            singleton=row.singleton,
            cells=_cells(row.examples, n),
            examples=row.examples,
            questions=row.questions,
        )
        for row in analysis.tokens
    )
    variants = puzzle_variants(
        [e.d for e in analysis.examples], [e.dq for e in analysis.examples], puzzle_slug=puzzle.slug
    )
    deleted_in: dict[int, list[str]] = defaultdict(list)
    for v in variants:
        if v.deleted is not None:
            deleted_in[v.deleted].append(v.condition)
    example_lines = tuple(
        ExampleLine(
            index=score.index,
            foreign=example.foreign,
            english=example.english,
            d=score.d,
            dq=score.dq,
            singletons=score.singletons,
            damaged_questions=score.damaged_questions,
            deleted_in=tuple(deleted_in.get(score.index, ())),
        )
        for example, score in zip(examples, analysis.examples, strict=True)
    )
    question_lines = tuple(
        QuestionLine(
            id=q.id,
            direction=q.direction,
            prompt=q.prompt,
            answers=q.answers,
            required=score.required,
            absent=score.absent,
            damaged_by=score.damaged_by,
            distance=score.distance,
            distance_examples=score.distance_examples,
            distance_exact=score.distance_exact,
        )
        for q, score in zip(questions, analysis.questions, strict=True)
    )
    return PuzzlePage(
        puzzle=puzzle,
        tokenizer=tokenizer,
        analysis=analysis,
        tokens=tokens,
        examples=example_lines,
        questions=question_lines,
        deletions=_deletions_cached(analysis, k, examples=examples, questions=questions),
        variants=variants,
    )


def deletions_compared(
    analysis: PuzzleAnalysis, k: int, *, cap: int = PAGE_SEARCH_CAP
) -> tuple[DeletionLine, ...]:
    """Return greedy against the exact optimum for 1..k deleted examples (k capped at n)."""
    top = min(k, analysis.n_examples)
    return tuple(
        DeletionLine(k=size, greedy=greedy, optimum=optimal_deletion(analysis, size, cap=cap))
        for size, greedy in enumerate(greedy_deletions(analysis, top), start=1)
    )


def deletions_cache_key(
    examples: tuple[Example, ...], questions: tuple[Question, ...], *, tokenizer: str, k: int
) -> str:
    """Return the cache key of a deletion comparison: a digest of everything it depends on."""
    content = repr((examples, questions, tokenizer, k, PAGE_SEARCH_CAP)).encode()
    return f"context:deletions:{hashlib.sha256(content).hexdigest()}"


def _deletions_cached(
    analysis: PuzzleAnalysis,
    k: int,
    *,
    examples: tuple[Example, ...],
    questions: tuple[Question, ...],
) -> tuple[DeletionLine, ...]:
    """Return the comparison from the cache, else computed here and kept."""
    key = deletions_cache_key(examples, questions, tokenizer=analysis.tokenizer, k=k)
    lines = deletions_cache.get(key)
    if lines is None:
        lines = deletions_compared(analysis, k)
        deletions_cache.set(key, lines)
    return lines


def _cells(held: tuple[int, ...], n: int) -> tuple[str, ...]:
    cells = [""] * n
    for j in held:
        cells[j - 1] = "1"
    return tuple(cells)


# --- the corpus page -------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusLine:
    slug: str
    title: str
    language: str
    n_examples: int
    n_questions: int
    n_tokens: int
    singletons: int
    fragile: bool
    max_dq: int
    smallest_distance: int | None
    distances_exact: bool


@dataclass(frozen=True)
class CorpusPage:
    tokenizer: str
    lines: tuple[CorpusLine, ...]
    chart_svg: str

    @property
    def fragile_count(self) -> int:
        return sum(1 for line in self.lines if line.fragile)

    @property
    def robust_count(self) -> int:
        return len(self.lines) - self.fragile_count

    @property
    def max_dq_counts(self) -> tuple[tuple[int, int], ...]:
        """(max D_Q, puzzles) for every value from 0 to the largest."""
        counts = Counter(line.max_dq for line in self.lines)
        return tuple((v, counts.get(v, 0)) for v in range(max(counts, default=-1) + 1))


def corpus_page(*, tokenizer: str, chart: bool = True) -> CorpusPage:
    """Return every puzzle's verdict and the distribution of max D_Q (three queries)."""
    puzzles = list(ContextPuzzle.objects.order_by("slug"))
    examples: dict[int, list[Example]] = defaultdict(list)
    for puzzle_id, foreign, alternatives, english in ContextExample.objects.order_by(
        "puzzle_id", "position"
    ).values_list("puzzle_id", "foreign", "foreign_alternatives", "english"):
        examples[puzzle_id].append(Example(foreign=(foreign, *alternatives), english=english))
    questions: dict[int, list[Question]] = defaultdict(list)
    for puzzle_id, qid, direction, prompt, answers in ContextQuestion.objects.order_by(
        "puzzle_id", "position"
    ).values_list("puzzle_id", "qid", "direction", "prompt", "answers"):
        questions[puzzle_id].append(
            Question(id=qid, direction=direction, prompt=prompt, answers=tuple(answers))
        )
    lines = []
    for puzzle in puzzles:
        analysis = analyse(examples[puzzle.pk], questions[puzzle.pk], tokenizer=tokenizer)
        lines.append(
            CorpusLine(
                slug=puzzle.slug,
                title=puzzle.title,
                language=puzzle.language,
                n_examples=analysis.n_examples,
                n_questions=len(analysis.questions),
                n_tokens=len(analysis.tokens),
                singletons=sum(1 for t in analysis.tokens if t.singleton),
                fragile=analysis.fragile,
                max_dq=analysis.max_dq,
                smallest_distance=analysis.smallest_distance,
                distances_exact=analysis.distances_exact,
            )
        )
    lines_t = tuple(lines)
    counts = Counter(line.max_dq for line in lines_t)
    svg = max_dq_bars(counts, title=f"Puzzles by max D_Q ({tokenizer} tokens)") if chart else ""
    return CorpusPage(tokenizer=tokenizer, lines=lines_t, chart_svg=svg)
