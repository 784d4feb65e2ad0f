"""Rubrics: import and edit criteria; once marks exist, changes need a new version."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.db import transaction
from django.db.models import Count
from simple_history.utils import bulk_update_with_history

from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem, Task
from puzzles.untrusted import json_parse

from ...errors import GradingError
from ...models import (
    POINTS,
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    Resolution,
    Rubric,
)
from ...selectors import rubric_current
from ..consensus import problem_ensure_open
from ..locks import juries_lock


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


@dataclass
class RubricChange:
    """What replacing a rubric's criteria would do to existing marks."""

    problem: Problem
    added: list[str] = field(default_factory=list)
    removed: dict[str, int] = field(default_factory=dict)  # code -> marks dropped
    # code -> marks dropped that hold a comment and no points
    removed_comments: dict[str, int] = field(default_factory=dict)
    changed: dict[str, str] = field(default_factory=dict)  # code -> what changed
    invalid_marks: dict[str, int] = field(default_factory=dict)  # code -> marks off range/step
    reopened: int = 0  # submitted assignments that must grade new criteria
    marks: int = 0  # marks with points
    comment_marks: int = 0  # marks with a comment and no points (a draft's note)
    records: int = 0  # every mark, decision, final mark and comment tied to the criteria
    version: int | None = None  # the current rubric's version, None without one
    # The new criteria's maxima summed: the problem's part of the jury's scale
    # (grading.selectors.rubrics_scale_lines says what it does to the scale).
    maximum: Decimal | None = None

    @property
    def needs_new_version(self) -> bool:
        return self.records > 0

    def version_after(self, *, new_version: bool) -> int:
        """Return the version the problem's rubric has once the change is applied."""
        if self.version is None:
            return 1
        return self.version + 1 if new_version else self.version

    def lines(self) -> list[str]:
        out = [f"problem {self.problem.number}: {self.marks} marks exist"]
        if self.comment_marks:
            out[0] += f", and {self.comment_marks} comments without points"
        out += [f"new criterion {c}" for c in self.added]
        for code, count in self.removed.items():
            comments = self.removed_comments.get(code, 0)
            dropped = f"{count} marks" + (
                f" and {comments} comments without points" if comments else ""
            )
            out.append(f"criterion {code} removed: {dropped} dropped")
        out += [f"criterion {c}: {what}" for c, what in self.changed.items()]
        out += [
            f"criterion {c}: {n} marks or decisions no longer fit its maximum or step; "
            "they are cleared and their papers reopen"
            for c, n in self.invalid_marks.items()
        ]
        if self.reopened:
            out.append(f"{self.reopened} submitted papers reopen to grade new criteria")
        return out


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


def _rule_in_effect(criterion: Criterion) -> str:
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


def _specs_check(specs: list[CriterionSpec], *, where: str) -> None:
    if not specs:
        raise GradingError("a rubric needs at least one criterion", file=where, field="criteria")
    codes = [s.code for s in specs]
    duplicates = sorted({c for c in codes if codes.count(c) > 1})
    if duplicates:
        raise GradingError(
            f"duplicate criterion code(s) {', '.join(duplicates)}", file=where, field="code"
        )


def rubric_change_preview(*, problem: Problem, specs: list[CriterionSpec]) -> RubricChange:
    """Tell what replacing the problem's criteria with these would do to existing marks."""
    rubric = rubric_current(problem)
    change = RubricChange(problem=problem, version=rubric.version if rubric else None)
    change.maximum = sum((s.maximum for s in specs), Decimal(0))
    old = {c.code: c for c in rubric.criteria.select_related("task")} if rubric else {}
    marks = (
        Mark.objects.filter(criterion__rubric=rubric, points__isnull=False)
        if rubric
        else Mark.objects.none()
    )
    counts = dict(marks.values_list("criterion__code").annotate(n=Count("pk")))
    change.marks = sum(counts.values())
    # A draft's comment without points is dropped with its criterion too: count it apart.
    notes = Mark.objects.filter(criterion__rubric=rubric, points__isnull=True).exclude(comment="")
    comments = dict(notes.values_list("criterion__code").annotate(n=Count("pk"))) if rubric else {}
    change.comment_marks = sum(comments.values())
    if rubric:
        change.records = (
            # A blank draft row (no points, no comment) holds nothing to lose.
            Mark.objects.filter(criterion__rubric=rubric)
            .exclude(points__isnull=True, comment="")
            .count()
            + Resolution.objects.filter(criterion__rubric=rubric).count()
            + DiscussionComment.objects.filter(criterion__rubric=rubric).count()
        )
    new = {s.code: s for s in specs}
    change.added = [c for c in new if c not in old]
    change.removed = {c: counts.get(c, 0) for c in old if c not in new}
    change.removed_comments = {c: comments[c] for c in change.removed if comments.get(c)}
    for code, spec in new.items():
        if code not in old:
            continue
        before = old[code]
        what = []
        if before.maximum != spec.maximum:
            what.append(f"maximum {before.maximum} -> {spec.maximum}")
        if before.step != spec.step:
            what.append(f"step {before.step} -> {spec.step}")
        if before.title != spec.title or before.description != spec.description:
            what.append("wording")
        what += _scope_changes(before, spec)
        if what:
            change.changed[code] = ", ".join(what)
        bad = [
            p
            for p in [
                *marks.filter(criterion=before).values_list("points", flat=True),
                *Resolution.objects.filter(criterion=before).values_list("points", flat=True),
            ]
            if p > spec.maximum or p % spec.step
        ]
        if bad:
            change.invalid_marks[code] = len(bad)
    if change.added and rubric:
        change.reopened = Assignment.objects.submitted().filter(paper__problem=problem).count()
    return change


def _items_text(items) -> str:
    return ", ".join(map(str, items)) if items else "none"


def _scope_changes(before: Criterion, spec: CriterionSpec) -> list[str]:
    """Return what changed in what a criterion grades and suggests: its kind, its task, its
    items and the suggestion rule in effect (none without task and items)."""
    what = []
    if before.kind != spec.kind:
        what.append(f"kind {before.kind} -> {spec.kind}")
    task = before.task.external_id if before.task else ""
    if task != spec.task_id:
        what.append(f"task {task or 'none'} -> {spec.task_id or 'none'}")
    if list(before.items) != list(spec.items):
        what.append(f"items {_items_text(before.items)} -> {_items_text(spec.items)}")
    rule = _rule_in_effect(before)
    per_item = before.suggest_points_per_item if rule == Criterion.SuggestRule.PER_ITEM else None
    if (rule, per_item) != (spec.suggest, spec.points_per_item):
        shown = f" ({spec.points_per_item} per item)" if spec.points_per_item is not None else ""
        what.append(f"suggestion {rule} -> {spec.suggest}{shown}")
    return what


@transaction.atomic
def rubric_replace(
    *,
    problem: Problem,
    specs: list[CriterionSpec],
    new_version: bool = False,
    user=None,
    note: str = "",
    expected_effect: str | None = None,
) -> tuple[Rubric, RubricChange]:
    """Set the problem's criteria; with marks present this needs new_version=True.

    A new version keeps marks of criteria whose code survives (clearing those that no
    longer fit), drops marks of removed criteria, and reopens submitted papers when
    criteria are added. It holds the problem's jury row from the first read to the end
    (grading/services/locks.py): no autosave, submit or decision of the problem runs
    meanwhile, and each one that waited sees the new version.
    With expected_effect (rubrics_effect_digest of a preview of this change alone), it
    applies only if its effect is still the one previewed; else RubricEffectChanged.
    """
    _specs_check(specs, where=f"problem {problem.number}")
    problem_ensure_open(problem, field="version", lock=True)
    tasks = {t.external_id: t for t in problem.tasks.all()}
    change = rubric_change_preview(problem=problem, specs=specs)
    rubric = rubric_current(problem)
    _frozen_check(change, new_version=new_version)
    if expected_effect is not None and rubrics_effect_digest([change]) != expected_effect:
        raise RubricEffectChanged(
            "the marks changed since the preview; nothing was applied: check the effect again",
            field="version",
        )
    if rubric is None or new_version:
        old = rubric
        rubric = Rubric.objects.create(
            problem=problem, version=(old.version + 1 if old else 1), created_by=user, note=note
        )
    else:
        old = None
        rubric.criteria.all().delete()
    created = {}
    for order, spec in enumerate(specs, start=1):
        created[spec.code] = Criterion.objects.create(
            rubric=rubric,
            order=order,
            code=spec.code,
            title=spec.title,
            description=spec.description,
            kind=spec.kind,
            maximum=spec.maximum,
            step=spec.step,
            task=tasks.get(spec.task_id),
            items=list(spec.items),
            suggest_rule=spec.suggest,
            suggest_points_per_item=spec.points_per_item,
        )
    if old is not None:
        _marks_carry_over(old=old, new=created, user=user)
        if change.added:
            Assignment.objects.submitted().filter(paper__problem=problem).update(submitted_at=None)
    return rubric, change


def _frozen_check(change: RubricChange, *, new_version: bool) -> None:
    if change.needs_new_version and not new_version:
        raise GradingError(
            f"problem {change.problem.number} already has marks, decisions or comments "
            f"({change.records}): its rubric is frozen; "
            "create a new version to change it",
            field="version",
        )


def _fits(points, criterion: Criterion) -> bool:
    return points is None or (points <= criterion.maximum and not points % criterion.step)


def _marks_carry_over(*, old: Rubric, new: dict[str, Criterion], user=None) -> None:
    """Move marks, decisions and threads to the new criteria of the same code.

    Marks of removed criteria are deleted (their history stays); marks and decisions
    that no longer fit the maximum or step are cleared and their papers reopen. Call under
    the jury row's lock (rubric_replace takes it): the marks are read here, after it, so
    that what is written back is what the last acknowledged save stored, and only the
    criterion, the points and the flag are written (one statement per batch).
    """
    reason = f"rubric version {next(iter(new.values())).rubric.version}"
    old_criteria = {c.pk: c for c in old.criteria.all()}
    moved, reopened = [], set()
    for mark in Mark.objects.filter(criterion__in=list(old_criteria)).order_by("pk"):
        criterion = old_criteria[mark.criterion_id]
        target = new.get(criterion.code)
        if target is None:
            mark._change_reason = f"{reason}: criterion {criterion.code} removed"
            mark._history_user = user
            mark.delete()
            continue
        mark.criterion = target
        if not _fits(mark.points, target):
            mark.points = None
            mark.from_suggestion = False
            reopened.add(mark.assignment_id)
        moved.append(mark)
    bulk_update_with_history(
        moved,
        Mark,
        ["criterion", "points", "from_suggestion"],
        default_user=user,
        default_change_reason=reason,
    )
    Assignment.objects.filter(pk__in=reopened).update(submitted_at=None)
    for criterion in old_criteria.values():
        target = new.get(criterion.code)
        if target is None:
            continue
        for resolution in criterion.resolutions.all():
            resolution._change_reason = reason
            if _fits(resolution.points, target):
                resolution.criterion = target
                resolution.save()
            else:
                resolution.delete()
        criterion.comments.update(criterion=target)


def rubrics_read(
    path_or_text: Path | str, *, competition: Competition, file: str = ""
) -> dict[Problem, list[CriterionSpec]]:
    """Read rubrics JSON: {"problems": [{"problem": N, "criteria": [...]}, ...]}."""
    if isinstance(path_or_text, Path):
        file = file or str(path_or_text)
        if not path_or_text.is_file():
            raise GradingError("no such file", file=file)
        try:
            text = path_or_text.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise GradingError(f"not UTF-8 text (byte {exc.start})", file=file) from None
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


def rubric_specs(*, problem: Problem, criteria: list[dict], where: str) -> list[CriterionSpec]:
    """Check one problem's criteria, given as rows of the rubric JSON schema (from a file or
    from the rubric editor's rows), and return them as specs; errors name `where`."""
    tasks = {t.external_id: t for t in problem.tasks.all()}
    specs = [
        criterion_spec_parse(c, where=f"{where}.criteria[{i}]", tasks=tasks)
        for i, c in enumerate(criteria, start=1)
    ]
    _specs_check(specs, where=where)
    return specs


class RubricEffectChanged(GradingError):
    """The marks changed between a preview and its confirmation; nothing was applied."""


def rubrics_effect_digest(changes: list[RubricChange]) -> str:
    """Return a digest of what a rubrics import does to marks, to confirm exactly that."""
    lines = [
        line
        for change in changes
        for line in [f"problem {change.problem.number} v{change.version}", *change.lines()]
    ]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


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
        _frozen_check(change, new_version=new_version)
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
                        suggest=_rule_in_effect(c),
                        points_per_item=c.suggest_points_per_item,
                    ).as_json()
                    for c in rubric.criteria.select_related("task").order_by("order")
                ],
            }
        )
    return {"competition": competition.slug, "problems": problems}
