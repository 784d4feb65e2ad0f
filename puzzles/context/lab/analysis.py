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
  context); a greedy k-example deletion and the exact optimum for small puzzles.

An example may give alternatives for its foreign side ("a / b"): its tokens are the union
of its alternatives' tokens, since a reader of the context sees every alternative.

Example indices in every output count from 1, as the puzzles number them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from math import comb

TO_ENGLISH = "to_english"
TO_FOREIGN = "to_foreign"
DIRECTIONS = (TO_ENGLISH, TO_FOREIGN)

# The exhaustive search of the best k-example deletion stops before this many subsets.
MAX_COMBINATIONS = 50_000
# A question's deletion distance is a smallest hitting set, exponential in its accepted
# answers at worst: its search stops after this much work (token masks looked at) and gives
# the smallest set found as an upper bound. Real questions (a few answers of a few words)
# need a few dozen; 10 accepted answers of 2 words, each word in 2 examples, a few hundred.
DISTANCE_SEARCH_WORK = 1_000


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
        gone = _mask(deleted)
        return tuple(
            q.id for q, alts in zip(self.questions, self.masks, strict=True) if _lost(alts, gone)
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
        best, exact = _smallest_damaging_set(alt_masks, work=DISTANCE_SEARCH_WORK)
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
        TokenRow(token=t, examples=_indices(m), questions=tuple(needed_by.get(t, ())))
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


def greedy_deletion(analysis: PuzzleAnalysis, k: int) -> Deletion:
    """Delete k examples one at a time, each time the one that damages the most questions.

    Ties go to the lower index. Greedy is not optimal: two examples that each damage
    nothing alone may together remove every occurrence of a token (see optimal_deletion).
    """
    k = _k_check(analysis, k)
    return greedy_deletions(analysis, k)[-1] if k else Deletion((), ())


def greedy_deletions(analysis: PuzzleAnalysis, k: int) -> tuple[Deletion, ...]:
    """Return the greedy deletions of 1, 2, .., k examples (each extends the one before)."""
    k = _k_check(analysis, k)
    reachable = _reachable(analysis, k)
    deleted: list[int] = []
    out = []
    for _ in range(k):
        best_j, best_damage = 0, -1
        gone = _mask(deleted)
        for j in range(1, analysis.n_examples + 1):
            if j in deleted:
                continue
            with_j = gone | (1 << (j - 1))
            damage = sum(1 for alts in reachable if _lost(alts, with_j))
            if damage > best_damage:
                best_j, best_damage = j, damage
        deleted.append(best_j)
        chosen = tuple(sorted(deleted))
        out.append(Deletion(deleted=chosen, damaged_questions=analysis.damaged_questions(chosen)))
    return tuple(out)


def optimal_deletion(
    analysis: PuzzleAnalysis, k: int, *, cap: int = MAX_COMBINATIONS
) -> OptimumSearch:
    """Find the k-example deletion that damages the most questions, by trying every subset.

    Skipped (best None) when there are more than `cap` subsets of k examples. Ties go to
    the lexicographically first subset.
    """
    k = _k_check(analysis, k)
    total = comb(analysis.n_examples, k)
    if total > cap:
        return OptimumSearch(k=k, combinations=total, cap=cap, best=None)
    best: tuple[int, ...] = ()
    best_damage = -1
    reachable = _reachable(analysis, k)
    for chosen in combinations(range(1, analysis.n_examples + 1), k):
        gone = _mask(chosen)
        damage = sum(1 for alts in reachable if _lost(alts, gone))
        if damage > best_damage:
            best, best_damage = chosen, damage
    deletion = Deletion(deleted=best, damaged_questions=analysis.damaged_questions(best))
    return OptimumSearch(k=k, combinations=total, cap=cap, best=deletion)


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


# --- helpers ---------------------------------------------------------------------------


def _mask(indices: Iterable[int]) -> int:
    mask = 0
    for j in indices:
        mask |= 1 << (j - 1)
    return mask


def _indices(mask: int) -> tuple[int, ...]:
    """Return the examples (from 1) of a bitmask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return tuple(out)


def _lost(alternatives: tuple[tuple[int, ...], ...], gone: int) -> bool:
    """Tell whether every alternative loses a token: all its examples are deleted."""
    if not alternatives:
        return False
    return all(any(m & ~gone == 0 for m in alt) for alt in alternatives)


def _reachable(analysis: PuzzleAnalysis, k: int) -> list[tuple[tuple[int, ...], ...]]:
    """Return the token masks of the questions k deletions may damage: those of deletion
    distance at most k, or whose distance is only an upper bound. No other question can
    count, so they are all a set of k deletions is tested on."""
    return [
        alts
        for q, alts in zip(analysis.questions, analysis.masks, strict=True)
        if q.distance is not None and (q.distance <= k or not q.distance_exact)
    ]


def _k_check(analysis: PuzzleAnalysis, k: int) -> int:
    if not 0 <= k <= analysis.n_examples:
        raise ValueError(f"k must be between 0 and {analysis.n_examples} (the examples)")
    return k


def _smallest_damaging_set(
    alternatives: tuple[tuple[int, ...], ...], *, work: int = DISTANCE_SEARCH_WORK
) -> tuple[tuple[int, ...] | None, bool]:
    """Return the smallest set of examples whose deletion damages the question (None if no
    deletion can), and whether it is exact.

    Damaging it means choosing, for every alternative, one required token and deleting all
    the examples holding it: the answer is the smallest union of one token mask per
    alternative. A depth-first search over the alternatives, keeping per alternative only
    its minimal masks (a superset of another mask never helps), pruning a partial union
    when even a lower bound of what the rest adds (below) leaves it no smaller than the
    best found. Ties go to the first found, with masks tried by size, then by the lower
    highest example. After `work` (masks looked at) it stops: the best found so far, or if
    none yet the first mask of each alternative, is an upper bound (exact False).

    The lower bound: an alternative left adds at least as many examples as its mask with
    the fewest outside the union, and alternatives whose masks reach pairwise disjoint
    examples add disjoint ones: a greedy packing of such alternatives sums their least.
    """
    if not alternatives or any(not alt for alt in alternatives):
        return None, True
    options = []
    for alt in alternatives:
        unique = sorted(set(alt), key=lambda m: (m.bit_count(), m))
        minimal = [m for m in unique if not any(o != m and o & m == o for o in unique)]
        options.append(minimal)
    if len(options) == 1:
        return _indices(options[0][0]), True
    options.sort(key=len)
    reach = [0] * len(options)  # the examples each alternative's masks reach
    for a, masks in enumerate(options):
        for m in masks:
            reach[a] |= m
    # What a step at each depth costs: the masks the bound looks at, and one.
    cost = [1 + sum(len(masks) for masks in options[depth:]) for depth in range(len(options))]
    best: int | None = None
    left = work
    stopped = False

    def more(depth: int, union: int) -> int:
        """A lower bound on the examples alternatives depth.. add to the union."""
        taken = needed = 0
        for a in range(depth, len(options)):
            new = reach[a] & ~union
            if new & taken == 0:
                least = min((m & ~union).bit_count() for m in options[a])
                if least:
                    needed += least
                    taken |= new
        return needed

    def search(depth: int, union: int) -> None:
        nonlocal best, left, stopped
        if best is not None and union.bit_count() + more(depth, union) >= best.bit_count():
            return
        if depth == len(options):
            best = union
            return
        if left <= 0:
            stopped = True
            return
        left -= cost[depth]
        for m in options[depth]:
            search(depth + 1, union | m)

    search(0, 0)
    exact = not stopped
    if best is None:  # stopped before any complete choice: the first masks are one
        best = 0
        for masks in options:
            best |= masks[0]
    return _indices(best), exact


__all__ = [
    "DEFAULT_TOKENIZER",
    "DIRECTIONS",
    "DISTANCE_SEARCH_WORK",
    "MAX_COMBINATIONS",
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
    "greedy_deletion",
    "greedy_deletions",
    "optimal_deletion",
    "question_required",
    "tokenizer_get",
    "tokens_normalized",
    "tokens_whitespace",
]
