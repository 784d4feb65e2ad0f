"""Forms of the organizer pages."""

from __future__ import annotations

from django import forms
from django.core.validators import validate_slug

from .metrics import METRICS
from .models import System


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
    archive = forms.FileField(
        help_text="A .zip of a directory in the IOL-AI results layout "
        "(task/test.csv, task/solution.csv, optional submissions/*/).",
    )


class OutputsImportForm(forms.Form):
    system = forms.CharField(max_length=200, label="system name")
    team = forms.CharField(max_length=200, required=False)
    tier = forms.ChoiceField(choices=[("", "(keep / other)")] + System.Tier.choices, required=False)
    file = forms.FileField(
        help_text="CSV with columns id,pred[,explanation], or with 'free model text' a JSONL "
        'of {"id": ..., "output": ...} lines.'
    )
    raw = forms.BooleanField(required=False, label="free model text (JSONL): extract the answers")


class AmendmentForm(forms.Form):
    task = forms.CharField(max_length=64, widget=forms.HiddenInput)
    item_number = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=[("add", "add"), ("remove", "remove")])
    text = forms.CharField(max_length=2000, strip=True)


class ThresholdsForm(forms.Form):
    gold = forms.DecimalField(max_digits=7, decimal_places=2, min_value=0)
    silver = forms.DecimalField(max_digits=7, decimal_places=2, min_value=0)
    bronze = forms.DecimalField(max_digits=7, decimal_places=2, min_value=0, required=False)
    honourable_mention = forms.DecimalField(
        max_digits=7, decimal_places=2, min_value=0, required=False
    )
