"""Forms of the project-wide pages."""

from __future__ import annotations

from django import forms


class UnlockForm(forms.Form):
    kind = forms.ChoiceField(choices=[("account", "account"), ("address", "address")])
    key = forms.CharField(max_length=255)
