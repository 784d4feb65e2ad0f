"""Reads of the jury scale: the rubrics' maxima per problem and the thresholds on them
(grading.scale holds the pure rule).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal

from puzzles.jury import ScaleStatus
from puzzles.models import Competition

from ..scale import MEDALS, JuryScale, scale_moves
from .rubrics import current_rubrics


def rubric_totals(problems, criteria=None) -> tuple[tuple[int, Decimal | None], ...]:
    """Return (number, current rubric's maxima summed or None) per problem, by number."""
    if criteria is None:
        criteria = current_rubrics(problems)
    return tuple(
        (
            p.number,
            sum((c.maximum for c in criteria[p.pk]), Decimal(0)) if criteria.get(p.pk) else None,
        )
        for p in sorted(problems, key=lambda p: p.number)
    )


def jury_scale(competition: Competition) -> JuryScale:
    """Return the competition's jury scale with its thresholds (grading.scale's rule), as the
    given competition object holds them (three queries)."""
    return JuryScale(
        set_points=competition.jury_scale,
        problems=rubric_totals(list(competition.problems.all())),
        thresholds=tuple((key, getattr(competition, f"{key}_threshold")) for key in MEDALS),
    )


def scale_status(scale: JuryScale) -> ScaleStatus:
    """Return the scale as puzzles' pages take it (puzzles.jury)."""
    return ScaleStatus(
        points=scale.points,
        explicit=scale.explicit,
        text=scale.text,
        thresholds_text=scale.thresholds_text,
        warnings=scale.warnings,
        not_applied=scale.not_applied,
    )


def rubrics_scale_lines(competition: Competition, changes: Iterable) -> list[str]:
    """Say what new rubrics (RubricChange previews) would do to the scale and thresholds."""
    before = jury_scale(competition)
    new = {c.problem.number: c.maximum for c in changes if c.maximum is not None}
    after = replace(before, problems=tuple((n, new.get(n, t)) for n, t in before.problems))
    return scale_moves(before, after)
