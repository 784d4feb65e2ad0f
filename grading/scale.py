"""The jury's scale: what jury totals, medal thresholds and the review are out of.

The rule, written here once: the scale is the points an organizer set
(`Competition.jury_scale`), else the sum of the current rubrics' maxima (problems without
a rubric add nothing and are named), else there is none yet. Medal thresholds are points
on that scale: they are set only within it (`thresholds_check`), and one that a later
change of rubrics or scale leaves above it is never applied (`JuryScale.applied`) and is
named with its fix wherever the scale is shown (`JuryScale.warnings`).

Pure: no ORM. `grading.selectors.scale` gathers the inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from .errors import GradingError
from .text import points_text

# The medal thresholds, best first: the Competition's fields are `<key>_threshold`.
MEDALS = ("gold", "silver", "bronze", "honourable_mention")
ORGANIZER = "set by an organizer"
RUBRICS = "the sum of the rubrics' maxima"
# What the scale's column holds (Competition.jury_scale: 7 digits, 2 of them decimals).
LIMIT = Decimal("100000")
FIX_THRESHOLDS = "set the thresholds again (competition page or set_thresholds)"
FIX_SCALE = "set the scale (competition page or set_scale)"
NOT_APPLIED = "not applied"  # beside a threshold above the scale, wherever it is shown


def medal_name(key: str) -> str:
    """Return a medal's name as people write it: 'honourable mention'."""
    return key.replace("_", " ")


@dataclass(frozen=True)
class JuryScale:
    """A competition's jury scale and the thresholds measured on it."""

    set_points: Decimal | None  # set by an organizer; None: follow the rubrics
    # (problem number, its current rubric's maxima summed or None without a rubric)
    problems: tuple[tuple[int, Decimal | None], ...] = ()
    # (medal key, threshold or None), best first as MEDALS
    thresholds: tuple[tuple[str, Decimal | None], ...] = ()

    @property
    def rubric_total(self) -> Decimal | None:
        """Return the current rubrics' maxima summed (None: no problem has a rubric)."""
        given = [total for _, total in self.problems if total is not None]
        return sum(given, Decimal(0)) if given else None

    @property
    def missing(self) -> tuple[int, ...]:
        """Return the numbers of the problems without a rubric."""
        return tuple(number for number, total in self.problems if total is None)

    @property
    def explicit(self) -> bool:
        return self.set_points is not None

    @property
    def points(self) -> Decimal | None:
        """Return what totals are out of; None while there is no rubric and none was set."""
        return self.set_points if self.explicit else self.rubric_total

    @property
    def source(self) -> str:
        return ORGANIZER if self.explicit else RUBRICS

    @property
    def text(self) -> str:
        """Say the scale and where it comes from: '75 (the sum of the rubrics' maxima)'."""
        if self.points is None:
            return "not set yet (no problem has a rubric and no organizer set it)"
        return f"{points_text(self.points)} ({self.source})"

    @property
    def thresholds_text(self) -> str:
        """Say the thresholds: 'gold 80 (not applied), silver 45, bronze 30, honourable
        mention —', naming those above the scale as the review leaves them out."""
        not_applied = self.not_applied
        return ", ".join(
            f"{medal_name(key)} {points_text(value) or '—'}"
            + (f" ({NOT_APPLIED})" if key in not_applied else "")
            for key, value in self.thresholds
        )

    @property
    def above(self) -> tuple[tuple[str, Decimal], ...]:
        """Return the thresholds above the scale (all that are set, when there is none)."""
        return tuple(
            (key, value)
            for key, value in self.thresholds
            if value is not None and (self.points is None or value > self.points)
        )

    @property
    def not_applied(self) -> tuple[str, ...]:
        """Return the medal keys whose threshold is above the scale: no medal is given by it."""
        return tuple(key for key, _ in self.above)

    def applied(self) -> dict[str, Decimal | None]:
        """Return the thresholds medals are given by: those above the scale count as unset."""
        above = dict(self.above)
        return {key: None if key in above else value for key, value in self.thresholds}

    @property
    def warnings(self) -> tuple[str, ...]:
        """Say what is wrong with the scale or the thresholds on it, and how to fix it."""
        out = []
        rubrics = self.rubric_total
        if self.points is None:
            out.append(
                "The jury has no scale yet: import the rubrics (its scale is then their "
                f"maxima summed) or {FIX_SCALE}."
            )
        elif self.explicit and rubrics is not None and rubrics != self.points:
            out.append(
                f"The rubrics add up to {points_text(rubrics)} points but the scale, "
                f"{ORGANIZER}, is {points_text(self.points)}: "
                + ("totals can exceed it" if rubrics > self.points else "no total can reach it")
                + "; set it to the rubrics' sum (competition page or set_scale --from-rubrics)"
                " unless that is meant."
            )
        if self.missing and not self.explicit and self.points is not None:
            many = len(self.missing) > 1
            out.append(
                f"Problem{'s' if many else ''} {', '.join(map(str, self.missing))} "
                f"{'have' if many else 'has'} no rubric yet: the scale, {RUBRICS}, "
                f"grows when {'they get' if many else 'it gets'} one."
            )
        for key, value in self.above:
            if self.points is None:
                out.append(
                    f"The {medal_name(key)} threshold {points_text(value)} is not applied: "
                    "the jury has no scale to measure it on."
                )
            else:
                out.append(
                    f"The {medal_name(key)} threshold {points_text(value)} is above the "
                    f"jury's scale, {self.text}: no {medal_name(key)} is given until you "
                    f"{FIX_THRESHOLDS} or {FIX_SCALE}."
                )
        return tuple(out)


def thresholds_check(scale: JuryScale, ladder: Mapping[str, Decimal | None]) -> None:
    """Refuse medal thresholds (keys of MEDALS, best first) that leave the scale or the ladder.

    Gold and silver are required; each given threshold is a number with at most 2 decimals,
    within 0..the scale, and none is above a better medal's. Raises GradingError naming the
    medal's field.
    """
    for key in ("gold", "silver"):
        if ladder.get(key) is None:
            raise GradingError(f"the {medal_name(key)} threshold is required", field=key)
    given = [(key, ladder[key]) for key in MEDALS if ladder.get(key) is not None]
    for key, value in given:
        name = medal_name(key)
        if not value.is_finite():
            raise GradingError(f"{name} threshold must be a number, not {value}", field=key)
        if value.as_tuple().exponent < -2:
            raise GradingError(f"{name} threshold {value} has more than 2 decimals", field=key)
        if scale.points is None:
            raise GradingError(
                f"{name} threshold {points_text(value)} has no scale to fit: {scale.warnings[0]}",
                field=key,
            )
        if value < 0 or value > scale.points:
            raise GradingError(
                f"{name} threshold {points_text(value)} is outside "
                f"0..{points_text(scale.points)}, the jury's scale ({scale.source})",
                field=key,
            )
    for (higher, high), (lower, low) in zip(given, given[1:], strict=False):
        if low > high:
            raise GradingError(
                f"{medal_name(lower)} threshold {points_text(low)} is above "
                f"{medal_name(higher)} threshold {points_text(high)}",
                field=lower,
            )


def scale_points_check(points: Decimal) -> None:
    """Refuse a scale an organizer sets that is not a positive number of points."""
    if not points.is_finite() or points <= 0 or points >= LIMIT:
        raise GradingError(
            f"the scale must be a number of points above 0 and below {LIMIT}, not {points}",
            field="points",
        )
    if points.as_tuple().exponent < -2:
        raise GradingError(f"the scale {points} has more than 2 decimals", field="points")


def scale_moves(before: JuryScale, after: JuryScale) -> list[str]:
    """Say what a change of rubrics or scale does to the scale and the thresholds on it."""
    out = []
    old, new = before.points, after.points
    if old != new:
        if new is None:
            out.append("the jury's scale: none (no rubric and none set by an organizer)")
        elif old is None:
            out.append(f"the jury's scale becomes {after.text}")
        else:
            out.append(f"the jury's scale moves from {points_text(old)} to {after.text}")
    elif before.rubric_total != after.rubric_total and after.explicit:
        out.append(
            f"the rubrics' total moves from {points_text(before.rubric_total) or 'none'} to "
            f"{points_text(after.rubric_total) or 'none'}; the jury's scale stays {after.text}"
        )
    was_above = dict(before.above)
    for key, value in after.above:
        if key not in was_above:
            out.append(
                f"the {medal_name(key)} threshold {points_text(value)} is then above the "
                f"scale: no {medal_name(key)} is given until you {FIX_THRESHOLDS} or {FIX_SCALE}"
            )
    now_above = dict(after.above)
    for key, value in before.above:
        if key not in now_above:
            out.append(
                f"the {medal_name(key)} threshold {points_text(value)} fits the scale again "
                "and is applied"
            )
    if old != new and new is not None and old is not None:
        kept = [
            f"{medal_name(key)} {points_text(value)}"
            for key, value in after.thresholds
            if value is not None and key not in now_above
        ]
        if kept:
            out.append(
                f"the thresholds {', '.join(kept)} stay as they were set: check them "
                "against the new scale"
            )
    return out
