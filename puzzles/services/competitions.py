"""Competition settings: medal thresholds, the names of the competition and its problems."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from django.db import transaction

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


@transaction.atomic
def competition_names_save(
    *,
    competition: Competition,
    name: str,
    titles: Mapping[int, str],
    language_names: Mapping[int, str],
) -> list[str]:
    """Rename the competition and its problems (by number); return what changed."""
    name = name.strip()
    if not name:
        raise ImportFailure("the competition needs a name", field="name")
    Competition.objects.lock(competition)  # the lock order: the competition, then problems
    problems = {p.number: p for p in competition.problems.select_for_update()}
    unknown = sorted((set(titles) | set(language_names)) - set(problems))
    if unknown:
        raise ImportFailure(
            f"no problem {', '.join(map(str, unknown))} in {competition.slug}", field="problem"
        )
    changed: list[str] = []
    if competition.name != name:
        competition.name = name
        competition.save(update_fields=["name"])
        changed.append("competition name")
    for number, problem in problems.items():
        fields = {
            "title": titles.get(number, problem.title).strip(),
            "language_name": language_names.get(number, problem.language_name).strip(),
        }
        updated = [f for f, value in fields.items() if getattr(problem, f) != value]
        if updated:
            for f in updated:
                setattr(problem, f, fields[f])
            problem.save(update_fields=updated)
            changed.append(f"problem {number}")
    return changed
