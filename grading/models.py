"""The jury: rubrics and criteria, anonymized papers, juror assignments, marks, consensus."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from simple_history.models import HistoricalRecords

from puzzles.models import Competition, Problem, System, Task

POINTS = {"max_digits": 6, "decimal_places": 2}

# The named queries (CONVENTIONS.md, pattern 9): "current rubric", "submitted", "open" and
# "finalized" are spelled here once, as querysets' methods and, for filters through a relation
# and aggregates' filter=, as conditions (`Rubric.current_q`, `Assignment.submitted_q`,
# `ProblemJury.finalized_q`) that take the relation's path. tests/grading/test_named_queries.py
# fails on any other spelling of them in grading/.


def _at(via: str, lookup: str) -> str:
    """Return a lookup through a relation path: _at("assignment", "x") is "assignment__x"."""
    return f"{via}__{lookup}" if via else lookup


class RubricQuerySet(models.QuerySet):
    def current(self) -> RubricQuerySet:
        """Return the current rubrics: each problem's latest version, the one jurors grade
        with (older versions keep the marks given under them)."""
        return self.filter(Rubric.current_q())


class Rubric(models.Model):
    """A problem's grading scheme; a new version replaces it once marks exist."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="rubrics")
    version = models.PositiveIntegerField(default=1)
    note = models.CharField(max_length=300, blank=True, help_text="Why this version exists.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RubricQuerySet.as_manager()

    class Meta:
        ordering = ["problem", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["problem", "version"], name="rubric_unique_version"),
        ]

    def __str__(self) -> str:
        return f"{self.problem} rubric v{self.version}"

    @staticmethod
    def current_q(via: str = "") -> Q:
        """Return the condition "the rubric at `via` (a relation path, or none) is its
        problem's current one": no later version of the problem's rubric exists."""
        later = Rubric.objects.filter(
            problem=OuterRef(_at(via, "problem")), version__gt=OuterRef(_at(via, "version"))
        )
        return ~Q(Exists(later))


class CriterionQuerySet(models.QuerySet):
    def current(self) -> CriterionQuerySet:
        """Return the criteria of the current rubrics (Rubric.objects.current())."""
        return self.filter(Rubric.current_q("rubric"))


class Criterion(models.Model):
    class Kind(models.TextChoices):
        ASSIGNMENT = "assignment", "assignment"
        THEORY = "theory", "theory"

    class SuggestRule(models.TextChoices):
        SHARE = "share", "maximum x share of matching items"
        PER_ITEM = "per_item", "points per matching item"
        NONE = "none", "no suggestion"

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="criteria")
    order = models.PositiveIntegerField()
    code = models.CharField(max_length=40)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.ASSIGNMENT)
    maximum = models.DecimalField(**POINTS)
    step = models.DecimalField(**POINTS, default=Decimal("0.5"))
    task = models.ForeignKey(
        Task, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    items = models.JSONField(
        default=list, blank=True, help_text="Item numbers of the task (from 1)."
    )
    # How a suggested mark follows from the items' exact-match flags (grading/suggestions.py);
    # a criterion without task and items suggests nothing whatever its rule.
    suggest_rule = models.CharField(
        max_length=20, choices=SuggestRule.choices, default=SuggestRule.SHARE
    )
    suggest_points_per_item = models.DecimalField(**POINTS, null=True, blank=True)

    objects = CriterionQuerySet.as_manager()

    class Meta:
        ordering = ["rubric", "order"]
        constraints = [
            models.UniqueConstraint(fields=["rubric", "code"], name="criterion_unique_code"),
            models.UniqueConstraint(fields=["rubric", "order"], name="criterion_unique_order"),
            models.CheckConstraint(condition=Q(maximum__gt=0), name="criterion_maximum_positive"),
            models.CheckConstraint(condition=Q(step__gt=0), name="criterion_step_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.code}: {self.title}"


class Paper(models.Model):
    """One system's answers to one problem, under a code that reveals nothing."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="papers")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="papers")
    code = models.CharField(max_length=16, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "problem"], name="paper_unique_system_problem"
            ),
        ]

    def __str__(self) -> str:
        return self.code


class ProblemJuror(models.Model):
    """Membership of a problem's grading group."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="jurors")
    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="problem_groups"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["problem", "juror"], name="problemjuror_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.juror} grades {self.problem}"


class AssignmentQuerySet(models.QuerySet):
    def submitted(self) -> AssignmentQuerySet:
        """Return the assignments whose juror submitted the paper (their marks are locked)."""
        return self.filter(Assignment.submitted_q())

    def open(self) -> AssignmentQuerySet:
        """Return the assignments not submitted yet: papers their juror still grades."""
        return self.filter(Assignment.open_q())

    def of(self, juror) -> AssignmentQuerySet:
        """Return the juror's own assignments (a user, or a user's id)."""
        return self.filter(juror=juror)


class Assignment(models.Model):
    """A juror's copy of a paper; submitting it locks the juror's marks."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="assignments")
    juror = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["paper", "juror"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "juror"], name="assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.paper} / {self.juror}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    @staticmethod
    def submitted_q(via: str = "") -> Q:
        """Return the condition "submitted" on the assignment at `via` (a relation path such
        as "papers__assignments", or none)."""
        return Q(**{_at(via, "submitted_at__isnull"): False})

    @staticmethod
    def open_q(via: str = "") -> Q:
        """Return the condition "not submitted yet" on the assignment at `via`."""
        return Q(**{_at(via, "submitted_at__isnull"): True})


class MarkQuerySet(models.QuerySet):
    def submitted(self) -> MarkQuerySet:
        """Return the marks of submitted papers: what the sheet, other jurors and the review
        see (a draft stays its juror's own until the paper is submitted)."""
        return self.filter(Assignment.submitted_q("assignment"))


class Mark(models.Model):
    """One juror's points and comment for one criterion of one paper."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="marks")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="marks")
    points = models.DecimalField(**POINTS, null=True, blank=True)
    comment = models.TextField(blank=True)
    # Whether the points are the suggested mark the juror accepted (kept in the history).
    from_suggestion = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords(excluded_fields=["updated_at"])

    objects = MarkQuerySet.as_manager()

    class Meta:
        ordering = ["assignment", "criterion__order"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "criterion"], name="mark_unique"),
            models.CheckConstraint(
                condition=Q(points__gte=0) | Q(points__isnull=True), name="mark_points_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.assignment} {self.criterion.code}: {self.points}"


class Resolution(models.Model):
    """A final mark set over the jurors' marks: the chair's decision or an imported final mark.

    Where jurors agree, the final mark is derived from their marks and not stored.
    """

    class Kind(models.TextChoices):
        CHAIR = "chair", "chair's decision"
        IMPORTED = "imported", "imported final mark"

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="resolutions")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="resolutions")
    points = models.DecimalField(**POINTS)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["paper", "criterion"], name="resolution_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.paper} {self.criterion.code} = {self.points}"


class DiscussionComment(models.Model):
    """A post in the thread of one criterion of one paper."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="comments")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.author} on {self.paper} {self.criterion.code}"


class ObservationTag(models.Model):
    """A qualitative observation jurors can attach to a paper."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=100)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["competition", "order", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="tag_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class PaperTag(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="tags")
    tag = models.ForeignKey(ObservationTag, on_delete=models.CASCADE, related_name="uses")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "tag"], name="papertag_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.assignment}: {self.tag}"


class ProblemJuryQuerySet(models.QuerySet):
    def finalized(self) -> ProblemJuryQuerySet:
        """Return the juries whose problem the chair finalized: its results stand."""
        return self.filter(ProblemJury.finalized_q())


class ProblemJury(models.Model):
    """The jury's state for a problem: discrepancy tolerance and finalization."""

    problem = models.OneToOneField(Problem, on_delete=models.CASCADE, related_name="jury")
    tolerance = models.DecimalField(
        **POINTS, default=Decimal("0"), help_text="Marks further apart than this are discrepant."
    )
    finalized_at = models.DateTimeField(null=True, blank=True)
    finalized_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = ProblemJuryQuerySet.as_manager()

    def __str__(self) -> str:
        return f"jury of {self.problem}"

    @staticmethod
    def finalized_q(via: str = "") -> Q:
        """Return the condition "finalized" on the jury at `via` (a relation path, or none)."""
        return Q(**{_at(via, "finalized_at__isnull"): False})


class Contestant(models.Model):
    """A human contestant of the competition, by anonymous code, with their total points."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="contestants"
    )
    code = models.CharField(max_length=64)
    total = models.DecimalField(max_digits=7, decimal_places=2)

    class Meta:
        ordering = ["competition", "-total", "code"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "code"], name="contestant_unique_code"),
            models.CheckConstraint(condition=Q(total__gte=0), name="contestant_total_nonnegative"),
        ]

    def __str__(self) -> str:
        return f"{self.code}: {self.total}"


class ContestantPoints(models.Model):
    """A contestant's points on one criterion (by code: rubric versions keep their codes)."""

    contestant = models.ForeignKey(Contestant, on_delete=models.CASCADE, related_name="points")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    criterion_code = models.CharField(max_length=40)
    points = models.DecimalField(**POINTS)

    class Meta:
        ordering = ["contestant", "problem__number", "criterion_code"]
        constraints = [
            models.UniqueConstraint(
                fields=["contestant", "problem", "criterion_code"],
                name="contestantpoints_unique",
            ),
            models.CheckConstraint(condition=Q(points__gte=0), name="contestantpoints_nonnegative"),
        ]

    def __str__(self) -> str:
        return f"{self.contestant.code} P{self.problem_id} {self.criterion_code}: {self.points}"


class AnswerProposal(models.Model):
    """A juror's proposal to accept an answer as an alternative of one item of a task's key.

    Organizers accept it through the answer-key amendment (which rescores) or reject it.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        ACCEPTED = "accepted", "accepted"
        REJECTED = "rejected", "rejected"

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+")
    item_number = models.PositiveIntegerField(help_text="Counted from 1.")
    answer = models.TextField(help_text="The alternative as the juror typed it.")
    normalized = models.TextField(help_text="The answer as the metric compares it.")
    reason = models.TextField()
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "item_number", "normalized", "proposed_by"],
                condition=Q(status="pending"),
                name="answerproposal_unique_pending",
            ),
            models.CheckConstraint(
                condition=Q(item_number__gte=1), name="answerproposal_item_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task} item {self.item_number}: {self.answer!r} ({self.status})"


class PairsSeen(models.Model):
    """A user was shown which system wrote which paper of a competition: not blind for it.

    Written once, by the first page or file that showed a paper code beside its system;
    later views write nothing. Assigning such a user papers of the competition takes an
    organizer's confirmation, recorded here (the latest) and in the history (every one).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=100, help_text="What showed the pairs first.")
    seen_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["competition", "user"]
        constraints = [
            models.UniqueConstraint(fields=["user", "competition"], name="pairsseen_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user} saw the pairs of {self.competition} ({self.source})"


class ThreadRead(models.Model):
    """How far a juror has read the thread of one criterion of one paper: the latest post
    the thread page showed them. By the criterion's code, which a thread keeps across
    rubric versions (their posts move to the new criterion of the same code)."""

    juror = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    criterion_code = models.CharField(max_length=40)
    last_post = models.PositiveBigIntegerField(
        default=0, help_text="The id of the latest post shown to the juror (0: none yet)."
    )
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["juror", "paper", "criterion_code"], name="threadread_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.juror} read {self.paper} {self.criterion_code} to post {self.last_post}"
