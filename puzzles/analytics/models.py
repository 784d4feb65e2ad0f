"""The analytics tables. Declared here and imported by `puzzles.models`, so they belong to
the `puzzles` app and its migrations (as the context lab's do)."""

from __future__ import annotations

from django.db import models

MODEL_MAX = 200
LANGUAGE_MAX = 120
PROBE_TYPE_MAX = 80
ITEM_MAX = 200


class ProbeResult(models.Model):
    """One multiple-choice knowledge probe item a model answered (issue 12, item 6).

    A probe is about a problem of the competition (`problem`) or about a language given by
    its label (`language`), never both. `model` is the name as the file gives it; `system`
    is the competition's system of that exact name when there is one."""

    competition = models.ForeignKey(
        "puzzles.Competition", on_delete=models.CASCADE, related_name="probe_results"
    )
    model = models.CharField(max_length=MODEL_MAX)
    system = models.ForeignKey(
        "puzzles.System",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="probe_results",
        help_text="The competition's system of the same name, if any.",
    )
    problem = models.ForeignKey(
        "puzzles.Problem",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="probe_results",
    )
    language = models.CharField(
        max_length=LANGUAGE_MAX, blank=True, help_text="Set when the probe is not about a problem."
    )
    probe_type = models.CharField(max_length=PROBE_TYPE_MAX)
    item = models.CharField(max_length=ITEM_MAX)
    correct = models.BooleanField()

    class Meta:
        ordering = ["competition", "model", "probe_type", "problem__number", "language", "item"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "model", "problem", "probe_type", "item"],
                condition=models.Q(problem__isnull=False),
                name="proberesult_unique_problem_item",
            ),
            models.UniqueConstraint(
                fields=["competition", "model", "language", "probe_type", "item"],
                condition=models.Q(problem__isnull=True),
                name="proberesult_unique_language_item",
            ),
            models.CheckConstraint(
                condition=models.Q(problem__isnull=True, language__gt="")
                | models.Q(problem__isnull=False, language=""),
                name="proberesult_problem_or_language",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} · {self.probe_type} · {self.item}"


SUBMISSION_ID_MAX = 120
CONDITION_MAX = 120
TECHNIQUE_MAX = 120


class RunScope(models.TextChoices):
    """Which of a competition's runs an import of runs replaces (the others are kept)."""

    ALL = "all", "all runs: ordinary and ablation runs"
    SUBMISSIONS = "submissions", "ordinary runs only: ablation runs kept"
    ABLATIONS = "ablations", "ablation runs only: ordinary runs kept"


class RunQuerySet(models.QuerySet):
    def submissions(self) -> RunQuerySet:
        """The challenge's own runs: what the runs and techniques pages count (an ablation
        run, made under a condition, is the ablations page's alone)."""
        return self.filter(condition="")

    def ablations(self) -> RunQuerySet:
        return self.exclude(condition="")


class Run(models.Model):
    """One submission of a team (issue 12, item 1). The system is the team: a run belongs to
    the competition through it. A scored run has its public score (and the private one once
    the private board is out); a failed run has a failure family and no score."""

    class Status(models.TextChoices):
        SCORED = "scored", "scored"
        FAILED = "failed", "failed"

    class Failure(models.TextChoices):
        ENVIRONMENT = "environment", "environment mismatch"
        RUNTIME = "runtime", "runtime error"
        LIMIT = "limit", "time or memory limit"
        PACKAGING = "packaging", "offline packaging"
        OTHER = "other", "other"

    system = models.ForeignKey("puzzles.System", on_delete=models.CASCADE, related_name="runs")
    run_index = models.PositiveIntegerField()
    submission_id = models.CharField(max_length=SUBMISSION_ID_MAX, blank=True)
    # None: the time is not known (leaderboard.csv names a team's best run without one).
    submitted_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices)
    failure = models.CharField(
        max_length=20, choices=Failure.choices, blank=True, help_text="Set on failed runs only."
    )
    public_score = models.FloatField(null=True, blank=True)
    private_score = models.FloatField(null=True, blank=True)
    selected_for_private = models.BooleanField(default=False)
    board_fallback = models.BooleanField(
        default=False,
        help_text="The private board scored this run because the team selected none.",
    )
    # Ablations (item 7): a run made under a named condition with a seed. Empty condition:
    # an ordinary submission of the challenge.
    condition = models.CharField(
        max_length=CONDITION_MAX,
        blank=True,
        help_text="The ablation condition the run was made under (empty: an ordinary run).",
    )
    seed = models.IntegerField(null=True, blank=True)
    # Techniques (item 5): the organizers' tags.
    techniques = models.ManyToManyField("puzzles.Technique", blank=True, related_name="runs")

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["system", "run_index"]
        constraints = [
            models.UniqueConstraint(fields=["system", "run_index"], name="run_unique_index"),
            models.CheckConstraint(
                condition=models.Q(status="scored", failure="")
                | models.Q(status="failed", failure__gt=""),
                name="run_failure_iff_failed",
            ),
            # An ablation run is never on the private board (the selection check reads
            # ordinary runs only).
            models.CheckConstraint(
                condition=models.Q(condition="") | models.Q(selected_for_private=False),
                name="run_ablation_never_selected",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system_id} · run {self.run_index} · {self.status}"


class Technique(models.Model):
    """A technique organizers tag runs with (issue 12, item 5): a free list per competition,
    such as self-consistency voting, retry loop or chain of thought."""

    competition = models.ForeignKey(
        "puzzles.Competition", on_delete=models.CASCADE, related_name="techniques"
    )
    name = models.CharField(max_length=TECHNIQUE_MAX)

    class Meta:
        ordering = ["competition", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="technique_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class RunOutput(models.Model):
    """A run's answer to one task, scored by the competition's rule when imported: the
    run-level figures per problem (ablations, techniques) come from these."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="outputs")
    task = models.ForeignKey("puzzles.Task", on_delete=models.CASCADE, related_name="run_outputs")
    raw_text = models.TextField(blank=True, help_text="The answer text as received.")
    exact_match = models.FloatField()
    chrf = models.FloatField()

    class Meta:
        ordering = ["run", "task"]
        constraints = [
            models.UniqueConstraint(fields=["run", "task"], name="runoutput_unique_task"),
            models.CheckConstraint(
                condition=models.Q(
                    exact_match__gte=0, exact_match__lte=1, chrf__gte=0, chrf__lte=1
                ),
                name="runoutput_scores_0_1",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run} / {self.task_id}"
