"""Rubric criteria as read from JSON or the rubric editor's rows: checked one by one, then
as a set, before anything is saved."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from puzzles.models import Problem, Task

from ...errors import GradingError
from ...models import POINTS, Criterion


@dataclass(frozen=True)
class CriterionSpec:
    """A criterion as read from JSON or a form, before it is saved."""

    code: str
    title: str
    maximum: Decimal
    step: Decimal
    kind: str = Criterion.Kind.ASSIGNMENT
    description: str = ""
    task_id: str = ""
    items: tuple[int, ...] = ()
    suggest: str = Criterion.SuggestRule.NONE  # the suggestion rule (grading/suggestions.py)
    points_per_item: Decimal | None = None  # with suggest "per_item"

    def as_json(self) -> dict:
        data = {
            "code": self.code,
            "title": self.title,
            "description": self.description,
            "kind": self.kind,
            "maximum": float(self.maximum),
            "step": float(self.step),
        }
        if self.task_id:
            data["task"] = self.task_id
        if self.items:
            data["items"] = list(self.items)
        if self.task_id and self.items and self.suggest != Criterion.SuggestRule.SHARE:
            data["suggest"] = self.suggest  # share, the default there, goes without saying
        if self.points_per_item is not None:
            data["points_per_item"] = float(self.points_per_item)
        return data


# What a points column holds: 6 digits, 2 of them decimals.
POINTS_LIMIT = 10 ** (POINTS["max_digits"] - POINTS["decimal_places"])


def _decimal(value: object, *, where: str, field: str) -> Decimal:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise GradingError(f"{value!r} is not a number", file=where, field=field) from None
    if not number.is_finite() or number.as_tuple().exponent < -2:
        raise GradingError(
            f"{value!r} must be a number with at most 2 decimals", file=where, field=field
        )
    if abs(number) >= POINTS_LIMIT:
        raise GradingError(f"{value!r} must be under {POINTS_LIMIT}", file=where, field=field)
    return number


def criterion_spec_parse(data: object, *, where: str, tasks: dict[str, Task]) -> CriterionSpec:
    """Validate one criterion's JSON object."""
    if not isinstance(data, dict):
        raise GradingError("a criterion must be a JSON object", file=where)
    for key in ("code", "title", "maximum"):
        if key not in data or data[key] is None or not str(data[key]).strip():
            raise GradingError(f"missing {key!r}", file=where, field=key)
    for key, limit in (("code", 40), ("title", 200)):
        if len(str(data[key]).strip()) > limit:
            raise GradingError(f"longer than {limit} characters", file=where, field=key)
    maximum = _decimal(data["maximum"], where=where, field="maximum")
    step = _decimal(data.get("step", "0.5"), where=where, field="step")
    if maximum <= 0:
        raise GradingError("must be more than 0", file=where, field="maximum")
    if step <= 0 or maximum % step:
        raise GradingError(
            f"step {step} must be positive and divide the maximum {maximum}",
            file=where,
            field="step",
        )
    kind = str(data.get("kind", Criterion.Kind.ASSIGNMENT))
    if kind not in Criterion.Kind.values:
        raise GradingError(
            f"{kind!r} is not one of {', '.join(Criterion.Kind.values)}", file=where, field="kind"
        )
    task_id = str(data.get("task") or "")
    items = data.get("items") or []
    if task_id and task_id not in tasks:
        raise GradingError(f"unknown task {task_id!r} for this problem", file=where, field="task")
    if not isinstance(items, list) or not all(isinstance(i, int) and i >= 1 for i in items):
        raise GradingError("items must be a list of item numbers from 1", file=where, field="items")
    if items and not task_id:
        raise GradingError("items need a task", file=where, field="items")
    if task_id and any(i > len(tasks[task_id].answer_key) for i in items):
        raise GradingError(
            f"task {task_id} has {len(tasks[task_id].answer_key)} items", file=where, field="items"
        )
    suggest, per_item = _suggestion_parse(
        data, where=where, kind=kind, task_id=task_id, items=items, maximum=maximum
    )
    return CriterionSpec(
        code=str(data["code"]).strip(),
        title=str(data["title"]).strip(),
        description=str(data.get("description", "")),
        kind=kind,
        maximum=maximum,
        step=step,
        task_id=task_id,
        items=tuple(items),
        suggest=suggest,
        points_per_item=per_item,
    )


def rule_in_effect(criterion: Criterion) -> str:
    """Return a saved criterion's suggestion rule as an import would set it: none without
    task and items, whatever the field says."""
    applies = criterion.kind == Criterion.Kind.ASSIGNMENT and criterion.task_id and criterion.items
    return criterion.suggest_rule if applies else Criterion.SuggestRule.NONE


def _suggestion_parse(
    data: dict, *, where: str, kind: str, task_id: str, items: list, maximum: Decimal
) -> tuple[str, Decimal | None]:
    """Return the criterion's suggestion rule and points per item, or refuse one that cannot
    apply. Without "suggest", an assignment criterion with a task and items gets "share"."""
    rules = Criterion.SuggestRule
    applies = kind == Criterion.Kind.ASSIGNMENT and bool(task_id) and bool(items)
    given = data.get("suggest")
    if given is None or given == "":
        rule = rules.SHARE if applies else rules.NONE
    elif not isinstance(given, str) or given not in rules.values:
        raise GradingError(
            f"{given!r} is not one of {', '.join(rules.values)}", file=where, field="suggest"
        )
    else:
        rule = given
    if rule != rules.NONE and not applies:
        raise GradingError(
            f"suggestion rule {rule!r} needs an assignment criterion with a task and items",
            file=where,
            field="suggest",
        )
    per_item = data.get("points_per_item")
    if per_item is None or per_item == "":
        if rule == rules.PER_ITEM:
            raise GradingError(
                "suggestion rule 'per_item' needs points_per_item",
                file=where,
                field="points_per_item",
            )
        return rule, None
    if rule != rules.PER_ITEM:
        raise GradingError(
            "points_per_item goes with suggestion rule 'per_item'",
            file=where,
            field="points_per_item",
        )
    points = _decimal(per_item, where=where, field="points_per_item")
    if points <= 0 or points > maximum:
        raise GradingError(
            f"must be more than 0 and at most the maximum {maximum}",
            file=where,
            field="points_per_item",
        )
    return rule, points


def specs_check(specs: list[CriterionSpec], *, where: str) -> None:
    """Refuse a rubric without criteria or with a criterion code twice."""
    if not specs:
        raise GradingError("a rubric needs at least one criterion", file=where, field="criteria")
    codes = [s.code for s in specs]
    duplicates = sorted({c for c in codes if codes.count(c) > 1})
    if duplicates:
        raise GradingError(
            f"duplicate criterion code(s) {', '.join(duplicates)}", file=where, field="code"
        )


def rubric_specs(*, problem: Problem, criteria: list[dict], where: str) -> list[CriterionSpec]:
    """Check one problem's criteria, given as rows of the rubric JSON schema (from a file or
    from the rubric editor's rows), and return them as specs; errors name `where`."""
    tasks = {t.external_id: t for t in problem.tasks.all()}
    specs = [
        criterion_spec_parse(c, where=f"{where}.criteria[{i}]", tasks=tasks)
        for i, c in enumerate(criteria, start=1)
    ]
    specs_check(specs, where=where)
    return specs
