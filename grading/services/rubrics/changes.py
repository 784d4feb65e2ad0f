"""What replacing a problem's criteria would do to its marks: the preview, the refusal of a
frozen rubric, and the digest that confirms an import does what was previewed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count

from puzzles.models import Problem

from ...errors import GradingError
from ...models import Assignment, Criterion, DiscussionComment, Mark, Resolution
from ...selectors import rubric_current
from .specs import CriterionSpec, rule_in_effect


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
    rule = rule_in_effect(before)
    per_item = before.suggest_points_per_item if rule == Criterion.SuggestRule.PER_ITEM else None
    if (rule, per_item) != (spec.suggest, spec.points_per_item):
        shown = f" ({spec.points_per_item} per item)" if spec.points_per_item is not None else ""
        what.append(f"suggestion {rule} -> {spec.suggest}{shown}")
    return what


def frozen_check(change: RubricChange, *, new_version: bool) -> None:
    """Refuse a change to a rubric that holds marks, decisions or comments, unless it makes
    a new version."""
    if change.needs_new_version and not new_version:
        raise GradingError(
            f"problem {change.problem.number} already has marks, decisions or comments "
            f"({change.records}): its rubric is frozen; "
            "create a new version to change it",
            field="version",
        )


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
