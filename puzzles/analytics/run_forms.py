"""The upload form of the runs page."""

from __future__ import annotations

from django import forms


class RunsImportForm(forms.Form):
    file = forms.FileField(
        help_text="CSV with columns team (an existing system's name), run, submitted_at "
        "(ISO 8601), status (scored or failed), failure (environment, runtime, limit, "
        "packaging, other; failed runs only), public, private, selected (1/0), and optionally "
        "submission_id. It replaces the competition's runs."
    )


class RunOutputsImportForm(forms.Form):
    # Its own prefix: the page shows both upload forms, and their fields' ids must differ.
    prefix = "outputs"

    file = forms.FileField(
        help_text="CSV with columns team (an existing system's name), run (the index of one "
        "of its imported runs), task (the task's id, as in the competition's submission "
        "files), output (the answer text as submitted). Each output is scored by the "
        "competition's rule; the file replaces the outputs of the runs it names."
    )
