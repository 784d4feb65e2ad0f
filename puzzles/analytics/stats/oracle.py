"""The oracle ensemble: per task, the best-scoring member's answer (an upper bound, no Django).

A task's score is the board's: GM = sqrt(EM x chrF) of that task. The oracle's overall
figures aggregate its chosen (weight, EM, chrF) rows exactly as the leaderboard does
(`puzzles.metrics.aggregate`: weighted means of EM and chrF, then their GM), so a saved
oracle scores on the board what this module says.

Ties: among members with the same task score, the one listed first supplies the task. A
task no member answered is supplied by nobody and counts as 0, as an empty cell does on
the board.

A member's share is the part of the oracle's weighted task scores (sum of weight x task
score) that the tasks it supplies bring: shares add up to 1 (0 each when the oracle scores
nothing), and a share near 1 means one member carries the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...metrics import Aggregate, aggregate, geometric_mean


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

    @property
    def gain(self) -> float:
        """Return how far the oracle's score is above the best member's (0-1 scale)."""
        return round(self.overall.score - self.best_member_overall.score, 4)

    def supplier(self, task: str) -> str | None:
        """Return the member that supplies a task."""
        return next((t.member for t in self.tasks if t.task == task), None)


def oracle_combine(
    *,
    members: Sequence[str],
    tasks: Sequence[tuple[str, float]],
    figures: Mapping[str, Mapping[str, TaskFigure]],
) -> Oracle:
    """Take, for every (task, weight), the best-scoring member's figures (first listed wins
    a tie) and aggregate them as the board does; `figures` is member -> task -> figures."""
    if not members:
        raise ValueError("an oracle needs at least one member")
    if len(set(members)) != len(members):
        raise ValueError("members are listed twice")
    chosen: list[OracleTask] = []
    for task, weight in tasks:
        best: tuple[str, TaskFigure] | None = None
        own: list[float | None] = []
        for member in members:
            figure = figures.get(member, {}).get(task)
            own.append(None if figure is None else round(figure.score, 4))
            if figure is not None and (best is None or figure.score > best[1].score):
                best = (member, figure)
        member, figure = best if best else (None, TaskFigure(0.0, 0.0))
        chosen.append(
            OracleTask(
                task=task,
                weight=weight,
                member=member,
                em=figure.em,
                chrf=figure.chrf,
                score=round(figure.score, 4),
                member_scores=tuple(own),
            )
        )
    overall = aggregate((t.weight, t.em, t.chrf) for t in chosen)
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
    # The best member: highest own score, first listed on a tie.
    best_share = max(shares, key=lambda s: s.overall.score)
    return Oracle(
        members=tuple(members),
        tasks=tuple(chosen),
        overall=overall,
        shares=tuple(shares),
        best_member=best_share.member,
        best_member_overall=best_share.overall,
    )
