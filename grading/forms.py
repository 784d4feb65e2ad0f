"""Forms of the jury pages."""

from __future__ import annotations

from django import forms


class MarkForm(forms.Form):
    points = forms.CharField(required=False, max_length=20)
    comment = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)


class ReviseForm(forms.Form):
    points = forms.CharField(max_length=20)
    reason = forms.CharField(max_length=2000)


class DecideForm(forms.Form):
    points = forms.CharField(max_length=20)
    reason = forms.CharField(max_length=2000)


class CommentForm(forms.Form):
    text = forms.CharField(max_length=5000, widget=forms.Textarea(attrs={"rows": 3}))


class TagsForm(forms.Form):
    tags = forms.TypedMultipleChoiceField(
        coerce=int, required=False, choices=(), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, tags=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tags"].choices = [(t.pk, t.name) for t in tags]


class ToleranceForm(forms.Form):
    tolerance = forms.DecimalField(min_value=0, max_digits=6, decimal_places=2)


class SelectionForm(forms.Form):
    systems = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, systems=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["systems"].choices = [(s.name, f"{s.name} ({s.tier})") for s in systems]


class AssignForm(forms.Form):
    per_paper = forms.IntegerField(min_value=1, max_value=20, initial=2)


class GroupForm(forms.Form):
    problem = forms.IntegerField(min_value=1)
    jurors = forms.CharField(max_length=2000, help_text="comma-separated usernames")


class RubricForm(forms.Form):
    criteria = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 18, "class": "code"}),
        help_text='A JSON list of criteria: {"code", "title", "maximum", "step", "kind", '
        '"description", "task", "items"}.',
    )
    new_version = forms.BooleanField(required=False, label="create a new version (marks exist)")
    preview = forms.BooleanField(required=False, widget=forms.HiddenInput)


class RubricUploadForm(forms.Form):
    file = forms.FileField()
    new_version = forms.BooleanField(required=False)


class MarksUploadForm(forms.Form):
    file = forms.FileField(help_text="CSV: system, problem, criterion, juror, points, comment")
    final = forms.BooleanField(required=False, label="agreed final marks")


class TagsConfigForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        label="Observation tags, one per line",
    )
