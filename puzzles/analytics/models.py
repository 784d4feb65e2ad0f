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
