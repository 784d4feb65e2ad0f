"""Competition settings: medal thresholds."""

from __future__ import annotations

from decimal import Decimal

from ..errors import ImportFailure
from ..models import Competition


def competition_set_thresholds(
    *,
    competition: Competition,
    gold: Decimal,
    silver: Decimal,
    bronze: Decimal | None = None,
    honourable_mention: Decimal | None = None,
) -> Competition:
    """Set the medal thresholds in points; they must descend and fit the total."""
    ladder = [
        ("gold", gold),
        ("silver", silver),
        ("bronze", bronze),
        ("honourable mention", honourable_mention),
    ]
    given = [(name, value) for name, value in ladder if value is not None]
    for name, value in given:
        if not value.is_finite():
            raise ImportFailure(f"{name} threshold must be a number, not {value}", field=name)
        if value.as_tuple().exponent < -2:
            raise ImportFailure(f"{name} threshold {value} has more than 2 decimals", field=name)
        if value < 0 or value > competition.total_points:
            raise ImportFailure(
                f"{name} threshold {value} is outside 0..{competition.total_points}", field=name
            )
    for (higher, high), (lower, low) in zip(given, given[1:], strict=False):
        if low > high:
            raise ImportFailure(
                f"{lower} threshold {low} is above {higher} threshold {high}", field=lower
            )
    competition.gold_threshold = gold
    competition.silver_threshold = silver
    competition.bronze_threshold = bronze
    competition.honourable_mention_threshold = honourable_mention
    competition.save(
        update_fields=[
            "gold_threshold",
            "silver_threshold",
            "bronze_threshold",
            "honourable_mention_threshold",
        ]
    )
    return competition
