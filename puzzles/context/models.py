"""The context lab's tables: Rosetta Stone puzzles, their examples and questions, and what
solvers answered and judges said about each deletion variant.

Declared here and imported by `puzzles.models`, so they belong to the `puzzles` app and its
migrations.
"""

from __future__ import annotations

from django.db import models

from .lab.analysis import TO_ENGLISH, TO_FOREIGN


class Condition(models.TextChoices):
    """Which variant of a puzzle a solver saw (see `puzzles.context.lab.variants`)."""

    ORIGINAL = "original", "original"
    RANDOM = "random", "random deletion"
    TARGETED = "targeted", "targeted deletion"
    NO_CONTEXT = "no_context", "no context"


class ContextPuzzle(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=120, blank=True)
    source_problem = models.ForeignKey(
        "puzzles.Problem",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="context_puzzles",
        help_text="The competition problem it was made from (puzzle_from_problem), if any.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.title or self.slug


class ContextExample(models.Model):
    """A numbered example: its foreign text (with alternatives) and its English translation.

    `foreign` is the first (shown) form; `foreign_alternatives` holds the further forms
    the problem gives ("a / b" in a problem's data is foreign "a", alternatives ["b"]).
    The analysis reads an example's tokens as the union over all its forms.
    """

    puzzle = models.ForeignKey(ContextPuzzle, on_delete=models.CASCADE, related_name="examples")
    position = models.PositiveIntegerField(help_text="Counted from 1, as the puzzle numbers it.")
    foreign = models.TextField()
    foreign_alternatives = models.JSONField(default=list, blank=True)
    english = models.TextField(blank=True)

    class Meta:
        ordering = ["puzzle", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle", "position"], name="contextexample_unique_position"
            ),
            models.CheckConstraint(
                condition=models.Q(position__gte=1), name="contextexample_position_from_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.puzzle.slug} ({self.position}) {self.foreign}"

    @property
    def foreign_forms(self) -> tuple[str, ...]:
        return (self.foreign, *self.foreign_alternatives)


class ContextQuestion(models.Model):
    class Direction(models.TextChoices):
        TO_ENGLISH = TO_ENGLISH, "into English"
        TO_FOREIGN = TO_FOREIGN, "into the foreign language"

    puzzle = models.ForeignKey(ContextPuzzle, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveIntegerField(help_text="Order in the puzzle, from 1.")
    qid = models.CharField(max_length=40, help_text="The question's id, such as 3.1.b.")
    direction = models.CharField(max_length=12, choices=Direction.choices)
    prompt = models.TextField()
    # Accepted answers, at least one: ["a", "b"].
    answers = models.JSONField(default=list)

    class Meta:
        ordering = ["puzzle", "position"]
        constraints = [
            models.UniqueConstraint(fields=["puzzle", "qid"], name="contextquestion_unique_qid"),
            models.UniqueConstraint(
                fields=["puzzle", "position"], name="contextquestion_unique_position"
            ),
            models.CheckConstraint(
                condition=models.Q(direction__in=[TO_ENGLISH, TO_FOREIGN]),
                name="contextquestion_direction_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.puzzle.slug} {self.qid}"


class SolverAnswer(models.Model):
    """A model's answer to one question of one variant; N/A or empty is an abstention."""

    Condition = Condition

    puzzle = models.ForeignKey(
        ContextPuzzle, on_delete=models.CASCADE, related_name="solver_answers"
    )
    condition = models.CharField(max_length=12, choices=Condition.choices)
    model = models.CharField(max_length=200)
    question = models.ForeignKey(
        ContextQuestion, on_delete=models.CASCADE, related_name="solver_answers"
    )
    answer = models.TextField(blank=True)
    abstained = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["puzzle", "model", "condition", "question__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle", "condition", "model", "question"],
                name="solveranswer_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(condition__in=Condition.values),
                name="solveranswer_condition_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.condition} {self.question}"


class JudgeVerdict(models.Model):
    """An LLM judge's verdict on whether a variant of a puzzle can still be solved."""

    Condition = Condition

    class Verdict(models.TextChoices):
        VALID = "valid", "valid (solvable)"
        UNSOLVABLE = "unsolvable", "unsolvable"

    puzzle = models.ForeignKey(
        ContextPuzzle, on_delete=models.CASCADE, related_name="judge_verdicts"
    )
    condition = models.CharField(max_length=12, choices=Condition.choices)
    judge = models.CharField(max_length=200)
    verdict = models.CharField(max_length=12, choices=Verdict.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["puzzle", "judge", "condition"]
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle", "condition", "judge"], name="judgeverdict_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(condition__in=Condition.values),
                name="judgeverdict_condition_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(verdict__in=["valid", "unsolvable"]),
                name="judgeverdict_verdict_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.judge} {self.puzzle.slug} {self.condition}: {self.verdict}"
