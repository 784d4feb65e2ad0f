from django.db import migrations, models


def ablation_runs_unselected(apps, schema_editor):
    """Runs imported before the rule could be ablation runs marked selected: the private
    board never read them, so the mark goes."""
    Run = apps.get_model("puzzles", "Run")
    Run.objects.exclude(condition="").filter(selected_for_private=True).update(
        selected_for_private=False
    )


class Migration(migrations.Migration):
    dependencies = [
        ("puzzles", "0009_run_ablations_techniques_outputs"),
    ]

    operations = [
        migrations.RunPython(ablation_runs_unselected, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("condition", ""), ("selected_for_private", False), _connector="OR"
                ),
                name="run_ablation_never_selected",
            ),
        ),
    ]
