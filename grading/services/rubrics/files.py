"""Rubrics files: read, preview, import (all or nothing) and export a competition's rubrics
in one JSON schema, {"problems": [{"problem": N, "criteria": [...]}, ...]}."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from ioleval.uploads import text_decode
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem
from puzzles.untrusted import json_parse

from ...errors import GradingError
from ...models import Rubric
from ...selectors import rubric_current
from ..consensus import problem_ensure_open
from ..locks import juries_lock
from .changes import (
    RubricChange,
    RubricEffectChanged,
    frozen_check,
    rubric_change_preview,
    rubrics_effect_digest,
)
from .specs import CriterionSpec, rubric_specs, rule_in_effect
from .versions import rubric_replace


def rubrics_read(
    path_or_text: Path | str, *, competition: Competition, file: str = ""
) -> dict[Problem, list[CriterionSpec]]:
    """Read rubrics JSON: {"problems": [{"problem": N, "criteria": [...]}, ...]}."""
    if isinstance(path_or_text, Path):
        file = file or str(path_or_text)
        if not path_or_text.is_file():
            raise GradingError("no such file", file=file)
        text = text_decode(path_or_text.read_bytes(), file=file, error=GradingError)
    else:
        text = path_or_text
    file = file or "rubric.json"
    try:
        data = json_parse(text, file=file)
    except ImportFailure as exc:  # a jury error, as every other refusal of a rubric
        raise GradingError(exc.message, file=exc.file, line=exc.line, field=exc.field) from None
    if isinstance(data, dict) and "problems" in data:
        entries = data["problems"]
    elif isinstance(data, dict) and "problem" in data:
        entries = [data]
    else:
        entries = data
    if not isinstance(entries, list) or not entries:
        raise GradingError('expected {"problems": [{"problem": N, "criteria": [...]}]}', file=file)
    problems = {p.number: p for p in competition.problems.all()}
    result: dict[Problem, list[CriterionSpec]] = {}
    for index, entry in enumerate(entries, start=1):
        where = f"{file}, problems[{index}]"
        if not isinstance(entry, dict) or "problem" not in entry:
            raise GradingError(
                "needs 'problem' (its number) and 'criteria'", file=where, field="problem"
            )
        number = entry["problem"]
        if not isinstance(number, int) or isinstance(number, bool) or number not in problems:
            raise GradingError(
                f"no problem {number!r} in {competition.slug}", file=where, field="problem"
            )
        problem = problems[number]
        if problem in result:
            raise GradingError(f"problem {number} appears twice", file=where, field="problem")
        criteria = entry.get("criteria")
        if not isinstance(criteria, list):
            raise GradingError("criteria must be a list", file=where, field="criteria")
        result[problem] = rubric_specs(problem=problem, criteria=criteria, where=where)
    return result


def rubrics_preview(
    path_or_text: Path | str,
    *,
    competition: Competition,
    new_version: bool = False,
    file: str = "",
) -> list[RubricChange]:
    """Tell what importing these rubrics would do to existing marks; refuse as the import would.

    Nothing is written: the page and `import_rubric --dry-run` show this before applying.
    """
    parsed = rubrics_read(path_or_text, competition=competition, file=file)
    changes = []
    for problem, specs in parsed.items():
        problem_ensure_open(problem, field="version")
        change = rubric_change_preview(problem=problem, specs=specs)
        frozen_check(change, new_version=new_version)
        changes.append(change)
    return changes


@transaction.atomic
def rubrics_import(
    path_or_text: Path | str,
    *,
    competition: Competition,
    new_version: bool = False,
    user=None,
    file: str = "",
    expected_effect: str | None = None,
) -> list[tuple[Rubric, RubricChange]]:
    """Import rubrics for one or more problems; all or nothing.

    With expected_effect (rubrics_effect_digest of a preview), the import is applied only
    if it does exactly what was previewed; else RubricEffectChanged and nothing changes.
    """
    parsed = rubrics_read(path_or_text, competition=competition, file=file)
    juries_lock(parsed)  # every problem's jury row, in the order of grading/services/locks.py
    # In problem number order, whatever the file's: the new rows' foreign keys take their
    # problems' key share locks at the commit in the order they were written.
    results = [
        rubric_replace(problem=problem, specs=parsed[problem], new_version=new_version, user=user)
        for problem in sorted(parsed, key=lambda p: p.number)
    ]
    if expected_effect is not None:
        if rubrics_effect_digest([change for _, change in results]) != expected_effect:
            raise RubricEffectChanged(
                "the marks changed since the preview; nothing was applied: check the effect again",
                file=file,
                field="version",
            )
    return results


def rubrics_export(competition: Competition) -> dict:
    """Return the competition's current rubrics in the import schema."""
    problems = []
    for problem in competition.problems.order_by("number"):
        rubric = rubric_current(problem)
        if rubric is None:
            continue
        problems.append(
            {
                "problem": problem.number,
                "version": rubric.version,
                "criteria": [
                    CriterionSpec(
                        code=c.code,
                        title=c.title,
                        description=c.description,
                        kind=c.kind,
                        maximum=c.maximum,
                        step=c.step,
                        task_id=c.task.external_id if c.task else "",
                        items=tuple(c.items),
                        suggest=rule_in_effect(c),
                        points_per_item=c.suggest_points_per_item,
                    ).as_json()
                    for c in rubric.criteria.select_related("task").order_by("order")
                ],
            }
        )
    return {"competition": competition.slug, "problems": problems}
