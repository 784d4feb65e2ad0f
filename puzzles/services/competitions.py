"""Competition settings: the names of the competition and its problems.

The jury's scale and the medal thresholds on it are the jury's (grading.services.scale):
the competition page reaches them through puzzles.jury."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from ..errors import ImportFailure
from ..models import Competition


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
    # FOR NO KEY UPDATE, as the UPDATE of a title or language name takes: the new rows that
    # point at a problem (a rubric, a paper, a jury row) check it with FOR KEY SHARE at their
    # commit, in whatever order they were written, and would deadlock with FOR UPDATE.
    problems = {
        p.number: p for p in competition.problems.select_for_update(no_key=True).order_by("number")
    }
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
