"""The problem set: competitions, problems, tasks with answer keys, systems and their outputs."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models, transaction
from simple_history.models import HistoricalRecords

from .languages import language_label


class CompetitionQuerySet(models.QuerySet):
    def lock(self, competition: Competition) -> Competition:
        """Hold the competition's row until the transaction ends, and return it as it is now.

        The imports that replace or add to a competition's data, and the renaming of it and
        its problems, take it first, so that two of them run one after the other. Lock
        order: the competition's row first, then its problems, tasks, systems and runs; a
        write that takes a lower row first and the competition's after could deadlock with
        an import. The lock is PostgreSQL's FOR NO KEY UPDATE: writes that only point a new
        row at the competition (a new system, a juror's mark) do not wait for it.

        Only inside a transaction: outside one the lock would end at once (PostgreSQL
        refuses; SQLite, which has no row locks and lets one writer at a time, would not say
        so). A competition deleted meanwhile is DoesNotExist."""
        if transaction.get_autocommit(using=self.db):
            raise transaction.TransactionManagementError(
                "Competition.objects.lock() holds the row until the transaction ends: call it "
                "inside transaction.atomic()"
            )
        return self.select_for_update(no_key=True).get(pk=competition.pk)


class Competition(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    year = models.PositiveIntegerField(null=True, blank=True)
    # Only grading.scale reads it (the scale's one rule) and only grading's services write it.
    jury_scale = models.DecimalField(
        max_digits=7,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="What jury totals and medal thresholds are out of, when an organizer sets it; "
        "empty: the sum of the current rubrics' maxima.",
    )
    gold_threshold = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    silver_threshold = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    bronze_threshold = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    honourable_mention_threshold = models.DecimalField(
        max_digits=7, decimal_places=2, null=True, blank=True
    )
    public_board = models.BooleanField(
        default=False,
        help_text="Publish the public-split board to anyone. It names systems, so keep it off "
        "while jurors grade blind.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CompetitionQuerySet.as_manager()

    class Meta:
        ordering = ["-year", "slug"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(jury_scale__isnull=True) | models.Q(jury_scale__gt=0),
                name="competition_jury_scale_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Problem(models.Model):
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="problems")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200, blank=True)
    language = models.CharField(
        max_length=120,
        blank=True,
        help_text="Language tags as the data gives them (esu_Latn), or a name in free text.",
    )
    language_name = models.CharField(
        max_length=120,
        blank=True,
        help_text="Shown instead of the ISO 639 name; needed where the code names no "
        "language (mis: uncoded).",
    )
    points = models.DecimalField(max_digits=6, decimal_places=2, default=Decimal("20"))
    context = models.TextField(blank=True, help_text="The problem's data, as given to contestants.")

    class Meta:
        ordering = ["competition", "number"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "number"], name="problem_unique_number"),
        ]

    def __str__(self) -> str:
        return f"Problem {self.number}" + (f": {self.title}" if self.title else "")

    @property
    def language_label(self) -> str:
        """Return the language as readers see it: 'Central Yupik (esu)'."""
        return language_label(self.language, name=self.language_name)


class Task(models.Model):
    class TaskType(models.TextChoices):
        TRANSLATION = "translation", "translation"
        FILL_BLANKS = "fill_blanks", "fill in the blanks"
        MATCH_LETTERS = "match_letters", "match letters"
        TEXT_TO_NUM = "text_to_num", "text to number"
        NUM_TO_TEXT = "num_to_text", "number to text"
        EXPLANATION = "explanation", "explanation"

    class EvalType(models.TextChoices):
        SINGLE = "single", "single answer"
        MULTI = "multi", "alternatives"

    class Split(models.TextChoices):
        PUBLIC = "public", "public"
        PRIVATE = "private", "private"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="tasks")
    external_id = models.CharField(max_length=64)
    number = models.PositiveIntegerField()
    query = models.TextField(blank=True)
    task_type = models.CharField(max_length=20, choices=TaskType.choices)
    eval_type = models.CharField(max_length=10, choices=EvalType.choices, default=EvalType.SINGLE)
    split = models.CharField(max_length=10, choices=Split.choices, default=Split.PUBLIC)
    weight = models.FloatField(default=1.0, help_text="The task's points in the aggregate.")
    work_lang = models.CharField(max_length=40, blank=True)
    task_lang = models.CharField(max_length=120, blank=True)
    # One list of accepted alternatives per item: [["a", "b"], ["c"]].
    answer_key = models.JSONField(default=list)
    history = HistoricalRecords()

    class Meta:
        ordering = ["problem__number", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "external_id"], name="task_unique_external_id"
            ),
            models.UniqueConstraint(fields=["problem", "number"], name="task_unique_number"),
            models.CheckConstraint(
                condition=models.Q(weight__gte=0), name="task_weight_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id

    @property
    def n_items(self) -> int:
        return len(self.answer_key)


class System(models.Model):
    class Tier(models.TextChoices):
        BASELINE = "baseline", "baseline"
        CHALLENGE = "challenge", "challenge submission"
        FRONTIER = "frontier", "frontier model"
        OPEN = "open", "open model"
        ENSEMBLE = "ensemble", "ensemble"
        OTHER = "other", "other"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    team = models.CharField(max_length=200, blank=True)
    tier = models.CharField(max_length=20, choices=Tier.choices, default=Tier.OTHER)
    metadata = models.JSONField(default=dict, blank=True)
    external = models.BooleanField(
        default=False,
        help_text="Created by an import of automatic figures computed elsewhere: it has no "
        "outputs here, and its answers are held elsewhere.",
    )
    oracle = models.BooleanField(
        default=False,
        help_text="An oracle ensemble: per task, the best member's output copied. An upper "
        "bound, never on the public board.",
    )
    oracle_of = models.JSONField(
        default=list, blank=True, help_text="An oracle's members' names, in the order chosen."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["competition", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="system_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class Output(models.Model):
    class Source(models.TextChoices):
        SUBMISSION = "submission", "submission (id, pred)"
        MODEL_TEXT = "model_text", "free model text"

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="outputs")
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.SUBMISSION)
    raw_text = models.TextField(blank=True, help_text="The answer text as received.")
    # The competition parser's items (before extraction) and the extractor's items (after).
    parsed_items = models.JSONField(default=list)
    extracted_items = models.JSONField(default=list)
    explanation = models.TextField(blank=True)
    # Format flags of the text as received: empty, clean_json_list, n_items_parsed,
    # item_count_matches.
    format_flags = models.JSONField(default=dict)
    # {metric: {"parsed"|"extracted": {"em", "chrf", "item_em": [...], "item_chrf": [...]}}}
    scores = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["system", "task"]
        constraints = [
            models.UniqueConstraint(fields=["system", "task"], name="output_unique_system_task"),
        ]

    def __str__(self) -> str:
        return f"{self.system} / {self.task}"

    @property
    def official_stage(self) -> str:
        return "extracted" if self.source == self.Source.MODEL_TEXT else "parsed"


def _unit_interval(field: str, *, nullable: bool = False) -> models.CheckConstraint:
    inside = models.Q(**{f"{field}__gte": 0, f"{field}__lte": 1})
    if nullable:
        inside |= models.Q(**{f"{field}__isnull": True})
    return models.CheckConstraint(condition=inside, name=f"externalscore_{field}_0_1")


class ExternalScore(models.Model):
    """An automatic figure computed elsewhere (0-1 scale), for the whole competition or a problem.

    A system's computed figures, when it has outputs, take precedence over these.
    """

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="external_scores")
    problem = models.ForeignKey(
        Problem,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="external_scores",
        help_text="Empty: the figure of the whole competition.",
    )
    score = models.FloatField(help_text="GM, sqrt(EM x chrF), 0-1.")
    exact_match = models.FloatField(null=True, blank=True)
    chrf = models.FloatField(null=True, blank=True)
    source_file = models.CharField(max_length=255, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["system", "problem__number"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "problem"], name="externalscore_unique_system_problem"
            ),
            # NULLs are distinct in a unique constraint: one whole-competition row apart.
            models.UniqueConstraint(
                fields=["system"],
                condition=models.Q(problem__isnull=True),
                name="externalscore_unique_system_whole",
            ),
            _unit_interval("score"),
            _unit_interval("exact_match", nullable=True),
            _unit_interval("chrf", nullable=True),
        ]

    def __str__(self) -> str:
        where = f"problem {self.problem.number}" if self.problem_id else "all problems"
        return f"{self.system} ({where}): {self.score}"


class AnswerAmendment(models.Model):
    class Action(models.TextChoices):
        ADD = "add", "add alternative"
        REMOVE = "remove", "remove alternative"

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="amendments")
    item_number = models.PositiveIntegerField(help_text="Counted from 1.")
    action = models.CharField(max_length=10, choices=Action.choices)
    text = models.TextField()
    before = models.JSONField(default=list)
    after = models.JSONField(default=list)
    changes = models.JSONField(default=list, help_text="Systems whose score or rank changed.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.task} item {self.item_number}: {self.action} {self.text!r}"


# The context lab's models live beside its analysis; importing them here makes them part of
# this app (one set of migrations).
# Challenge analytics (issue 12): knowledge probes, runs, their outputs and techniques.
from .analytics.models import ProbeResult, Run, RunOutput, Technique  # noqa: E402
from .context.models import (  # noqa: E402
    Condition,
    ContextExample,
    ContextPuzzle,
    ContextQuestion,
    JudgeVerdict,
    SolverAnswer,
)

__all__ = [
    "AnswerAmendment",
    "Competition",
    "Condition",
    "ContextExample",
    "ContextPuzzle",
    "ContextQuestion",
    "ExternalScore",
    "JudgeVerdict",
    "Output",
    "Problem",
    "ProbeResult",
    "Run",
    "RunOutput",
    "SolverAnswer",
    "System",
    "Task",
    "Technique",
]
