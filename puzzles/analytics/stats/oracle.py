"""The oracle ensemble: per task, the best-scoring member's answer (an upper bound, no Django).

A task's score is the board's: GM = sqrt(EM x chrF) of that task. The oracle's overall
figures aggregate its chosen (weight, EM, chrF) rows exactly as the leaderboard does
(`puzzles.metrics.aggregate`: weighted means of EM and chrF, then their GM), so a saved
oracle scores on the board what this module says.

The choice is the IOL-AI paper's ("choosing the best scoring model for each task") and does
not depend on the order the members are given in: per task the member with the highest
task GM; a tie goes to the higher chrF, then the higher EM, then the member whose name comes
first (code-point order). Figures are compared exactly (as the rationals the floats are),
so no rounding breaks or makes a tie. A task no member answered is supplied by nobody and
counts as 0, as an empty cell does on the board.

The attainable maximum: the overall score is the GM of the aggregated EM and chrF, not a
sum over tasks, so the per-task best need not give the highest overall score (a task where
one member has the better GM and another the better chrF can go either way). `maximum` is
the highest overall score of any choice of one member per task, found exactly: by trying
every choice when there are at most EXHAUSTIVE_LIMIT of them, else by the Pareto method of
`_pareto_maximum` (exact as well; see there). The oracle's own score never exceeds it.

A member's share is the part of the oracle's weighted task scores (sum of weight x task
score) that the tasks it supplies bring: shares add up to 1 (0 each when the oracle scores
nothing), and a share near 1 means one member carries the result.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ...metrics import Aggregate, aggregate, geometric_mean

# Up to this many choices (the product over tasks of the members that may supply each),
# the maximum is found by trying them all.
EXHAUSTIVE_LIMIT = 50_000
TIE_RULE = (
    "highest task score (GM); on a tie the higher chrF, then the higher EM, then the member "
    "whose name comes first"
)


@dataclass(frozen=True)
class TaskFigure:
    """One member's figures on one task (0-1 scale)."""

    em: float
    chrf: float

    @property
    def score(self) -> float:
        return geometric_mean(self.em, self.chrf)


@dataclass(frozen=True)
class OracleTask:
    """Which member supplies one task, and with what."""

    task: str
    weight: float
    member: str | None
    em: float
    chrf: float
    score: float
    # Each member's own score on the task, in the members' order (None: no output).
    member_scores: tuple[float | None, ...]
    # The other members with exactly the supplier's EM and chrF (the name rule chose).
    tied: tuple[str, ...] = ()
    # The member this task takes in the choice that reaches the attainable maximum.
    maximum_member: str | None = None


@dataclass(frozen=True)
class MemberShare:
    """One member: its own overall figures, tasks supplied, share of the oracle's total."""

    member: str
    overall: Aggregate
    tasks_supplied: int
    share: float


@dataclass(frozen=True)
class Oracle:
    members: tuple[str, ...]
    tasks: tuple[OracleTask, ...]
    overall: Aggregate
    shares: tuple[MemberShare, ...]
    best_member: str
    best_member_overall: Aggregate
    # The highest overall score of any choice of one member per task, and how it was found.
    maximum: Aggregate
    maximum_method: str

    @property
    def gain(self) -> float:
        """Return how far the oracle's score is above the best member's (0-1 scale)."""
        return round(self.overall.score - self.best_member_overall.score, 4)

    @property
    def ties(self) -> int:
        """Return how many tasks the name rule decided (members with identical figures)."""
        return sum(bool(t.tied) for t in self.tasks)

    def supplier(self, task: str) -> str | None:
        """Return the member that supplies a task."""
        return next((t.member for t in self.tasks if t.task == task), None)


def _exact(figure: TaskFigure) -> tuple[Fraction, Fraction, Fraction]:
    """Return (EM x chrF, chrF, EM) as exact rationals: GM's order, then the tie-breaks."""
    em, chrf = Fraction(max(figure.em, 0.0)), Fraction(max(figure.chrf, 0.0))
    return em * chrf, chrf, em


def _best(candidates: Sequence[tuple[str, TaskFigure]]) -> tuple[str, TaskFigure] | None:
    """Return the (member, figure) the tie rule picks, or None without candidates."""
    if not candidates:
        return None
    top = max(_exact(f) for _, f in candidates)
    return min((m, f) for m, f in candidates if _exact(f) == top)


def oracle_combine(
    *,
    members: Sequence[str],
    tasks: Sequence[tuple[str, float]],
    figures: Mapping[str, Mapping[str, TaskFigure]],
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> Oracle:
    """Take, for every (task, weight), the best-scoring member's figures (ties by the rule
    of TIE_RULE, never by the members' order) and aggregate them as the board does;
    `figures` is member -> task -> figures."""
    if not members:
        raise ValueError("an oracle needs at least one member")
    if len(set(members)) != len(members):
        raise ValueError("members are listed twice")
    options: list[list[tuple[str, TaskFigure]]] = []
    picks: list[tuple[str, TaskFigure] | None] = []
    for task, _ in tasks:
        here = [(m, figures[m][task]) for m in members if task in figures.get(m, {})]
        options.append(here)
        picks.append(_best(here))
    maximum_choice, method = attainable_maximum(
        [w for _, w in tasks], options, picks, exhaustive_limit=exhaustive_limit
    )
    chosen: list[OracleTask] = []
    for (task, weight), here, pick, at_max in zip(
        tasks, options, picks, maximum_choice, strict=True
    ):
        member, figure = pick if pick else (None, TaskFigure(0.0, 0.0))
        own = {m: round(f.score, 4) for m, f in here}
        chosen.append(
            OracleTask(
                task=task,
                weight=weight,
                member=member,
                em=figure.em,
                chrf=figure.chrf,
                score=round(figure.score, 4),
                member_scores=tuple(own.get(m) for m in members),
                tied=tuple(
                    m for m, f in here if m != member and (f.em, f.chrf) == (figure.em, figure.chrf)
                ),
                maximum_member=at_max[0] if at_max else None,
            )
        )
    overall = aggregate((t.weight, t.em, t.chrf) for t in chosen)
    maximum = aggregate(
        (w, *((c[1].em, c[1].chrf) if c else (0.0, 0.0)))
        for (_, w), c in zip(tasks, maximum_choice, strict=True)
    )
    mass = sum(t.weight * t.score for t in chosen)
    shares = []
    for member in members:
        mine = [t for t in chosen if t.member == member]
        part = sum(t.weight * t.score for t in mine)
        own_rows = []
        for task, weight in tasks:
            figure = figures.get(member, {}).get(task, TaskFigure(0.0, 0.0))
            own_rows.append((weight, figure.em, figure.chrf))
        shares.append(
            MemberShare(
                member=member,
                overall=aggregate(own_rows),
                tasks_supplied=len(mine),
                share=round(part / mass, 4) if mass > 0 else 0.0,
            )
        )
    # The best member: highest own score, then chrF, then EM, then the name first in order.
    best_share = min(
        shares, key=lambda s: (-s.overall.score, -s.overall.chrf, -s.overall.exact_match, s.member)
    )
    return Oracle(
        members=tuple(members),
        tasks=tuple(chosen),
        overall=overall,
        shares=tuple(shares),
        best_member=best_share.member,
        best_member_overall=best_share.overall,
        maximum=maximum,
        maximum_method=method,
    )


Choice = tuple[str, TaskFigure] | None
EXHAUSTIVE = "every choice tried"
PARETO = "exact Pareto search"


def attainable_maximum(
    weights: Sequence[float],
    options: Sequence[Sequence[tuple[str, TaskFigure]]],
    picks: Sequence[Choice],
    *,
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> tuple[list[Choice], str]:
    """Return a choice of one (member, figure) per task (None where nobody answered) that
    maximises the overall score sqrt(sum w EM x sum w chrF) / sum w, and how it was found.

    When the per-task picks reach the maximum, they are the choice returned; otherwise the
    first maximising choice found, trying on each task its pick, then the others by name.
    Weights must not be negative (a task's weight never is)."""
    if any(w < 0 for w in weights):
        raise ValueError("a task's weight is negative")
    # A member whose (EM, chrF) on a task another member matches or beats on both can be
    # left out: swapping it for that member never lowers either sum. One member per
    # distinct figure is kept (the first by name), the pick first.
    pruned: list[list[tuple[str, TaskFigure]]] = []
    for here, pick in zip(options, picks, strict=True):
        kept: list[tuple[str, TaskFigure]] = []
        for m, f in ([pick] if pick else []) + sorted(c for c in here if c != pick):
            if any(_covers(g, f) for _, g in kept):
                continue
            kept = [(n, g) for n, g in kept if not _covers(f, g)]
            kept.append((m, f))
        pruned.append(kept)
    count = math.prod(max(len(p), 1) for p in pruned)
    if count <= exhaustive_limit:
        best, best_value = None, Fraction(-1)
        # The picks' choice first, so that it is the one returned when it reaches the top.
        for combo in itertools.chain(
            [tuple(picks)], itertools.product(*[p or [None] for p in pruned])
        ):
            value = _product(weights, combo)
            if value > best_value:
                best, best_value = list(combo), value
        return best, EXHAUSTIVE
    choice = _pareto_maximum(weights, pruned)
    if _product(weights, picks) >= _product(weights, choice):
        return list(picks), PARETO
    return choice, PARETO


def _covers(a: TaskFigure, b: TaskFigure) -> bool:
    """Tell whether `a` matches or beats `b` on both EM and chrF."""
    return a.em >= b.em and a.chrf >= b.chrf


def _sums(weights: Sequence[float], combo: Sequence[Choice]) -> tuple[Fraction, Fraction]:
    em = chrf = Fraction(0)
    for w, c in zip(weights, combo, strict=True):
        if c is not None:
            em += Fraction(w) * Fraction(max(c[1].em, 0.0))
            chrf += Fraction(w) * Fraction(max(c[1].chrf, 0.0))
    return em, chrf


def _product(weights: Sequence[float], combo: Sequence[Choice]) -> Fraction:
    """Return sum(w EM) x sum(w chrF), exactly: the overall score squared times (sum w)^2,
    which orders choices as the overall score does."""
    em, chrf = _sums(weights, combo)
    return em * chrf


def _pareto_maximum(
    weights: Sequence[float], options: Sequence[Sequence[tuple[str, TaskFigure]]]
) -> list[Choice]:
    """Return a choice maximising sum(w EM) x sum(w chrF), task by task keeping only the
    partial choices whose (sum w EM, sum w chrF) no other partial choice matches or beats
    on both.

    Why this is exact: the product of two non-negative sums never falls when either sum
    grows, so some best choice has a total no other total beats on both; and if a best
    choice's first k tasks were beaten on both sums by another partial choice, putting that
    one in their place would give a total at least as large on both, hence at least as good.
    So a best choice survives every step, and the last step's best point is the maximum.
    The sums are exact rationals: no rounding decides what is kept."""
    frontier: list[tuple[Fraction, Fraction, tuple[Choice, ...]]] = [(Fraction(0), Fraction(0), ())]
    for w, here in zip(weights, options, strict=True):
        weight = Fraction(w)
        step: dict[tuple[Fraction, Fraction], tuple[Choice, ...]] = {}
        for em, chrf, path in frontier:
            for c in here or [None]:
                add_em = weight * Fraction(max(c[1].em, 0.0)) if c else Fraction(0)
                add_chrf = weight * Fraction(max(c[1].chrf, 0.0)) if c else Fraction(0)
                step.setdefault((em + add_em, chrf + add_chrf), (*path, c))
        frontier = []
        best_chrf = Fraction(-1)
        for (em, chrf), path in sorted(step.items(), key=lambda kv: (-kv[0][0], -kv[0][1])):
            if chrf > best_chrf:
                frontier.append((em, chrf, path))
                best_chrf = chrf
    top = max(frontier, key=lambda point: point[0] * point[1])
    return list(top[2])
