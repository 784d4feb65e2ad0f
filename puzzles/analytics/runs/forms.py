"""The upload form of the runs page."""

from __future__ import annotations

from django import forms

from ioleval.uploads import CSV, ImportFileField

from ..models import RunScope


class RunsImportForm(forms.Form):
    file = ImportFileField(
        command="import_runs SLUG FILE.csv [--scope SCOPE]",
        kind=CSV,
        help_text="CSV with columns team (an existing system's name), run, submitted_at "
        "(ISO 8601), status (scored or failed), failure (environment, runtime, limit, "
        "packaging, other; failed runs only), public, private, selected (1/0; never on an "
        "ablation run), and optionally submission_id, condition and seed (an ablation run), "
        "techniques (separated by semicolons).",
    )
    scope = forms.ChoiceField(
        label="Runs the file replaces",
        choices=RunScope.choices,
        initial=RunScope.ALL,
        # A post without the field (a script's) replaces all runs, as before there was one.
        required=False,
        help_text="The runs of the other kind stay, with their answers and techniques; a "
        "scoped file holds runs of its kind only.",
    )

    def clean_scope(self) -> str:
        return self.cleaned_data["scope"] or RunScope.ALL


class RunOutputsImportForm(forms.Form):
    # Its own prefix: the page shows both upload forms, and their fields' ids must differ.
    prefix = "outputs"

    file = ImportFileField(
        command="import_run_outputs SLUG FILE.csv",
        kind=CSV,
        help_text="CSV with columns team (an existing system's name), run (the index of one "
        "of its imported runs), task (the task's id, as in the competition's submission "
        "files), output (the answer text as submitted). Each output is scored by the "
        "competition's rule; the file replaces the outputs of the runs it names.",
    )
