"""The jury's scale: `jury_scale`, set by an organizer or empty (the sum of the rubrics),
replaces `total_points`, which every competition got (100 by default) without anyone
choosing it.

Each competition's total points move so that nothing an organizer chose is lost and nothing
an import chose is kept:

- 100, the untouched default, becomes empty: the scale is the sum of the rubrics. Where the
  rubrics add up to something else (75 in README's jury) that is what totals were already
  out of; thresholds above it now show on the totals page and are not applied.
- Any other value equal to the current rubrics' maxima summed becomes empty too: the same
  scale today, and it follows the rubrics from now on (the demo set its 30 so).
- Any other positive value (changed in the admin) becomes an explicit scale, as if set
  with set_scale.

It reads grading's rubrics, so it runs after grading's tables exist (a migration, not the
app's code: puzzles' code never imports grading). Backwards, the total points are the
explicit scale, else the rubrics' sum, else 100.
"""

from decimal import Decimal

from django.db import migrations, models

DEFAULT = Decimal("100")


def _rubric_total(apps, competition_id):
    """The competition's current rubrics' maxima summed (None without a rubric)."""
    Rubric = apps.get_model("grading", "Rubric")
    Criterion = apps.get_model("grading", "Criterion")
    latest = {}
    for problem_id, rubric_id in (
        Rubric.objects.filter(problem__competition_id=competition_id)
        .order_by("problem_id", "version")
        .values_list("problem_id", "id")
    ):
        latest[problem_id] = rubric_id
    if not latest:
        return None
    maxima = Criterion.objects.filter(rubric_id__in=latest.values()).values_list(
        "maximum", flat=True
    )
    return sum(maxima, Decimal(0))


def scale_from_total_points(apps, schema_editor):
    Competition = apps.get_model("puzzles", "Competition")
    for competition in Competition.objects.all():
        total = competition.total_points
        if total <= 0 or total == DEFAULT or total == _rubric_total(apps, competition.pk):
            continue  # jury_scale stays empty: the sum of the rubrics (no scale is 0 points)
        competition.jury_scale = total
        competition.save(update_fields=["jury_scale"])


def total_points_from_scale(apps, schema_editor):
    Competition = apps.get_model("puzzles", "Competition")
    for competition in Competition.objects.all():
        total = competition.jury_scale
        if total is None:
            total = _rubric_total(apps, competition.pk) or DEFAULT
        competition.total_points = total
        competition.save(update_fields=["total_points"])


class Migration(migrations.Migration):
    dependencies = [
        ("puzzles", "0010_run_ablation_never_selected"),
        ("grading", "0002_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="jury_scale",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="What jury totals and medal thresholds are out of, when an organizer "
                "sets it; empty: the sum of the current rubrics' maxima.",
                max_digits=7,
                null=True,
            ),
        ),
        migrations.RunPython(scale_from_total_points, total_points_from_scale),
        migrations.RemoveField(
            model_name="competition",
            name="total_points",
        ),
        migrations.AddConstraint(
            model_name="competition",
            constraint=models.CheckConstraint(
                condition=models.Q(("jury_scale__isnull", True), ("jury_scale__gt", 0), _connector="OR"),
                name="competition_jury_scale_positive",
            ),
        ),
    ]
