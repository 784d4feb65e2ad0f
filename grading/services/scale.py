"""The jury's scale and the medal thresholds on it: the organizer's two writes.

Both hold the competition's row (Competition.objects.lock: the competition first, as every
write of the competition's settings), so that a threshold is checked against the scale it is
saved with. The rule is grading.scale's; the competition page reaches these through
puzzles.jury, the commands set_scale and set_thresholds directly.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from django.db import transaction

from puzzles.models import Competition

from ..errors import GradingError
from ..scale import MEDALS, JuryScale, medal_name, scale_moves, scale_points_check, thresholds_check
from ..selectors import jury_scale
from ..text import points_text


@transaction.atomic
def competition_set_thresholds(
    *,
    competition: Competition,
    gold: Decimal | None,
    silver: Decimal | None,
    bronze: Decimal | None = None,
    honourable_mention: Decimal | None = None,
) -> JuryScale:
    """Set the medal thresholds in points of the jury's scale; return the scale with them.

    They must descend and lie within 0..the scale (GradingError naming the medal; nothing
    saved)."""
    locked = Competition.objects.lock(competition)
    ladder = {
        "gold": gold,
        "silver": silver,
        "bronze": bronze,
        "honourable_mention": honourable_mention,
    }
    scale = jury_scale(locked)
    thresholds_check(scale, ladder)
    fields = [f"{key}_threshold" for key in MEDALS]
    for key in MEDALS:
        setattr(locked, f"{key}_threshold", ladder[key])
        setattr(competition, f"{key}_threshold", ladder[key])
    locked.save(update_fields=fields)
    return replace(scale, thresholds=tuple((key, ladder[key]) for key in MEDALS))


@transaction.atomic
def competition_set_scale(*, competition: Competition, points: Decimal | None) -> list[str]:
    """Set the jury's scale to `points`, or with None let it follow the rubrics' sum; return
    what changed.

    Refused (GradingError, nothing saved) when a medal threshold would be above the new
    scale: lower the thresholds first, then the scale."""
    if points is not None:
        scale_points_check(points)
    locked = Competition.objects.lock(competition)
    before = jury_scale(locked)
    after = replace(before, set_points=points)
    if after.above:
        key, value = after.above[0]
        where = (
            "the jury would have no scale (no problem has a rubric)"
            if after.points is None
            else f"would be above the new scale, {after.text}"
        )
        raise GradingError(
            f"the {medal_name(key)} threshold {points_text(value)} {where}: lower the "
            "thresholds first (competition page or set_thresholds), or choose another scale; "
            f"the scale stays {before.text}",
            field="points",
        )
    locked.jury_scale = competition.jury_scale = points
    locked.save(update_fields=["jury_scale"])
    if before.points == after.points:
        return [f"the jury's scale stays {after.text}", *scale_moves(before, after)]
    return scale_moves(before, after)
