"""The oracle page's form: members (checkboxes) and a name."""

from __future__ import annotations

from django import forms


class OracleForm(forms.Form):
    members = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, help_text="Two or more systems."
    )
    name = forms.CharField(max_length=200, required=False, initial="Oracle")

    def __init__(self, *args, systems: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["members"].choices = [(s, s) for s in systems]
