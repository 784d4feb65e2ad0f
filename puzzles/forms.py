"""Forms of the organizer pages."""

from __future__ import annotations

from django import forms
from django.core.validators import validate_slug

from ioleval.uploads import CSV, JSONL, ZIP, ImportFileField

from .languages import language_label
from .metrics import METRICS
from .models import Problem, System


class LeaderboardForm(forms.Form):
    metric = forms.ChoiceField(choices=[(m, m) for m in METRICS], required=False)
    stage = forms.ChoiceField(
        choices=[
            ("official", "official (as scored)"),
            ("parsed", "before extraction"),
            ("extracted", "after extraction"),
        ],
        required=False,
    )
    split = forms.ChoiceField(
        choices=[("all", "all tasks"), ("public", "public split"), ("private", "private split")],
        required=False,
    )
    tier = forms.MultipleChoiceField(choices=System.Tier.choices, required=False)
    sort = forms.CharField(required=False, max_length=40)
    group = forms.BooleanField(required=False, label="group by tier")

    def cleaned_or_default(self) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "metric": data.get("metric") or "iol2026",
            "stage": data.get("stage") or "official",
            "split": data.get("split") or "all",
            "tier": data.get("tier") or [],
            "sort": data.get("sort") or "",
            "group": bool(data.get("group")),
        }


class IolaiImportForm(forms.Form):
    slug = forms.CharField(max_length=80, validators=[validate_slug])
    name = forms.CharField(max_length=200, required=False)
    archive = ImportFileField(
        command="import_iolai DIR --slug SLUG (the zip extracted into DIR)",
        kind=ZIP,
        help_text="A .zip of a directory in the IOL-AI results layout "
        "(task/test.csv, task/solution.csv, optional submissions/*/).",
    )


class OutputsImportForm(forms.Form):
    system = forms.CharField(max_length=200, label="system name")
    team = forms.CharField(max_length=200, required=False)
    tier = forms.ChoiceField(choices=[("", "(keep / other)")] + System.Tier.choices, required=False)
    file = ImportFileField(
        command="import_outputs SLUG FILE --system NAME [--raw]",
        kind=None,  # CSV, or JSONL with `raw`: counted in clean()
        help_text="CSV with columns id,pred[,explanation], or with 'free model text' a JSONL "
        'of {"id": ..., "output": ...} lines.',
    )
    raw = forms.BooleanField(required=False, label="free model text (JSONL): extract the answers")

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            try:
                self.fields["file"].rows_check(upload, kind=JSONL if data.get("raw") else CSV)
            except forms.ValidationError as error:
                self.add_error("file", error)
        return data


class AmendmentForm(forms.Form):
    task = forms.CharField(max_length=64, widget=forms.HiddenInput)
    item_number = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=[("add", "add"), ("remove", "remove")])
    text = forms.CharField(max_length=2000, strip=True)


class ProposalRejectForm(forms.Form):
    """An organizer's reason for rejecting a juror's proposed alternative."""

    reason = forms.CharField(max_length=2000, required=False)


class ThresholdsForm(forms.Form):
    """Medal thresholds in points; the jury's scale bounds them (grading.scale, through
    puzzles.jury), so the form checks only that they are numbers."""

    gold = forms.DecimalField(max_digits=7, decimal_places=2)
    silver = forms.DecimalField(max_digits=7, decimal_places=2)
    bronze = forms.DecimalField(max_digits=7, decimal_places=2, required=False)
    honourable_mention = forms.DecimalField(max_digits=7, decimal_places=2, required=False)


class ScaleForm(forms.Form):
    """The jury's scale: points an organizer sets, or the sum of the rubrics' maxima."""

    points = forms.DecimalField(
        max_digits=7, decimal_places=2, required=False, label="scale in points"
    )
    from_rubrics = forms.BooleanField(required=False)  # the button "Use the sum of the rubrics"

    def clean(self) -> dict:
        data = super().clean()
        if (
            not data.get("from_rubrics")
            and data.get("points") is None
            and "points" not in self.errors
        ):
            self.add_error("points", "give the scale in points, or use the sum of the rubrics")
        return data

    def scale_points(self):
        """Return the points to set, None to follow the rubrics (after is_valid())."""
        return None if self.cleaned_data["from_rubrics"] else self.cleaned_data["points"]


class CompetitionNamesForm(forms.Form):
    """The competition's name, and each problem's title and language display name."""

    name = forms.CharField(max_length=200, label="competition name")

    def __init__(self, *args, problems: list[Problem], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.problems = problems
        for p in problems:
            title, language_name = f"problem {p.number} title", f"problem {p.number} language name"
            self.fields[f"title_{p.number}"] = forms.CharField(
                max_length=200,
                required=False,
                initial=p.title,
                label=title,
                widget=forms.TextInput(attrs={"aria-label": title}),
            )
            self.fields[f"language_name_{p.number}"] = forms.CharField(
                max_length=120,
                required=False,
                initial=p.language_name,
                label=language_name,
                # Empty shows the ISO 639 name: the placeholder says which.
                widget=forms.TextInput(
                    attrs={"aria-label": language_name, "placeholder": language_label(p.language)}
                ),
            )

    def rows(self) -> list[tuple[Problem, forms.BoundField, forms.BoundField]]:
        """Return each problem with its title and language name fields, for the table."""
        return [
            (p, self[f"title_{p.number}"], self[f"language_name_{p.number}"]) for p in self.problems
        ]

    def names(self) -> dict:
        """Return the cleaned names as competition_names_save takes them."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "titles": {p.number: data[f"title_{p.number}"] for p in self.problems},
            "language_names": {p.number: data[f"language_name_{p.number}"] for p in self.problems},
        }
