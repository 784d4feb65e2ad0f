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
    Weights must not be negative (a task's weight never is). The sums are computed exactly:
    every float is a fraction over a power of two, so they are scaled to whole numbers by
    one common power of two and no rounding decides a comparison."""
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
        pruned.append(kept or [None])
    points = _whole(weights, pruned)
    first = [0] * len(pruned)  # each task's first option: the pick (or nobody)
    if math.prod(len(p) for p in pruned) <= exhaustive_limit:
        best, best_value = first, _value(points, first)
        for combo in itertools.product(*(range(len(p)) for p in pruned)):
            value = _value(points, combo)
            if value > best_value:
                best, best_value = list(combo), value
        method = EXHAUSTIVE
    else:
        best = _pareto_maximum(points, first)
        method = PARETO
    return [p[i] for p, i in zip(pruned, best, strict=True)], method


def _covers(a: TaskFigure, b: TaskFigure) -> bool:
    """Tell whether `a` matches or beats `b` on both EM and chrF."""
    return a.em >= b.em and a.chrf >= b.chrf


def _whole(
    weights: Sequence[float], pruned: Sequence[Sequence[Choice]]
) -> list[list[tuple[int, int]]]:
    """Return each option's (w x EM, w x chrF) as whole numbers over one common power of two
    (exact: a float is a fraction whose denominator is a power of two)."""
    exact = [
        [
            (Fraction(w) * Fraction(max(c[1].em, 0.0)), Fraction(w) * Fraction(max(c[1].chrf, 0.0)))
            if c
            else (Fraction(0), Fraction(0))
            for c in here
        ]
        for w, here in zip(weights, pruned, strict=True)
    ]
    scale = max((x.denominator for here in exact for pair in here for x in pair), default=1)
    return [[(int(a * scale), int(b * scale)) for a, b in here] for here in exact]


def _value(points: Sequence[Sequence[tuple[int, int]]], combo: Sequence[int]) -> int:
    """Return sum(w EM) x sum(w chrF) of a choice (scaled): it orders choices as the overall
    score does."""
    em = sum(points[t][i][0] for t, i in enumerate(combo))
    chrf = sum(points[t][i][1] for t, i in enumerate(combo))
    return em * chrf


def _improve(points: Sequence[Sequence[tuple[int, int]]], combo: list[int]) -> list[int]:
    """Return a choice at least as good as `combo`: repeatedly take on every task the option
    best for the product's gradient at the current sums, while that raises the product."""
    value = _value(points, combo)
    for _ in range(len(points) + 1):
        em = sum(points[t][i][0] for t, i in enumerate(combo))
        chrf = sum(points[t][i][1] for t, i in enumerate(combo))
        step = [
            max(range(len(here)), key=lambda i, h=here: (chrf * h[i][0] + em * h[i][1], -i))
            for here in points
        ]
        if _value(points, step) <= value:
            break
        combo, value = step, _value(points, step)
    return combo


def _pareto_maximum(points: Sequence[Sequence[tuple[int, int]]], first: list[int]) -> list[int]:
    """Return a choice maximising sum(w EM) x sum(w chrF): task by task, keep only the
    partial choices whose (sum w EM, sum w chrF) no other partial choice matches or beats on
    both, and that could still beat the best complete choice known.

    Why this is exact: the product of two non-negative sums never falls when either sum
    grows, so some best choice has a total no other total beats on both; and if a best
    choice's first k tasks were matched or beaten on both sums by another partial choice,
    putting that one in their place would give a total at least as large on both, hence at
    least as good. A partial choice is also dropped when even the largest EM and chrF sums
    the remaining tasks could add (each taken at its own maximum) would not give a product
    above the best known (the picks, improved along the gradient): it cannot beat that one.
    So either a best choice survives every step, or the best known is a best choice."""
    known = _improve(points, first)
    floor = _value(points, known)
    # What the tasks from k on can add at most, on each sum.
    rest = [(0, 0)] * (len(points) + 1)
    for t in range(len(points) - 1, -1, -1):
        top_em = max(a for a, _ in points[t])
        top_chrf = max(b for _, b in points[t])
        rest[t] = (rest[t + 1][0] + top_em, rest[t + 1][1] + top_chrf)
    frontier: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
    for t, here in enumerate(points):
        step: dict[tuple[int, int], tuple[int, ...]] = {}
        for em, chrf, path in frontier:
            for i, (a, b) in enumerate(here):
                step.setdefault((em + a, chrf + b), (*path, i))
        add_em, add_chrf = rest[t + 1]
        frontier = []
        best_chrf = -1
        for (em, chrf), path in sorted(step.items(), key=lambda kv: (-kv[0][0], -kv[0][1])):
            if chrf > best_chrf:
                best_chrf = chrf
                if (em + add_em) * (chrf + add_chrf) > floor:
                    frontier.append((em, chrf, path))
    if not frontier:
        return known
    em, chrf, path = max(frontier, key=lambda point: point[0] * point[1])
    return list(path) if em * chrf > floor else known
