"""The upload form of the knowledge probes page."""

from __future__ import annotations

from django import forms

from ioleval.uploads import CSV, ImportFileField


class ProbesImportForm(forms.Form):
    file = ImportFileField(
        command="import_probes SLUG FILE.csv",
        kind=CSV,
        help_text="CSV with columns model, problem (a problem number or a language label), "
        "probe_type, item, correct (1/0, true/false, yes/no). It replaces the competition's "
        "probe results.",
    )
