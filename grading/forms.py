"""Forms of the jury pages."""

from __future__ import annotations

from django import forms

from ioleval.uploads import CSV, ImportFileField


class MarkForm(forms.Form):
    points = forms.CharField(required=False, max_length=20)
    comment = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)
    from_suggestion = forms.BooleanField(required=False)  # the juror accepted the suggestion


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
        self.fields["systems"].choices = [(s.name, _system_label(s)) for s in systems]


def _system_label(system) -> str:
    """Return a system as the selection lists it; an external one says its answers are away."""
    if system.external:
        return f"{system.name} ({system.tier}, external: answers held elsewhere)"
    return f"{system.name} ({system.tier})"


ALLOW_SEEN_LABEL = "also jurors who are not blind for this competition (listed above)"


class AssignForm(forms.Form):
    per_paper = forms.IntegerField(min_value=1, max_value=20, initial=2)
    # The organizer's confirmation, recorded by jurors_assign (grading.models.PairsSeen).
    allow_seen = forms.BooleanField(required=False, label=ALLOW_SEEN_LABEL)


class GroupForm(forms.Form):
    """A problem and jurors picked from a list of accounts, each with its load."""

    problem = forms.IntegerField(min_value=1)
    jurors = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)
    allow_seen = forms.BooleanField(required=False, label=ALLOW_SEEN_LABEL)

    def __init__(self, *args, candidates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["jurors"].choices = [(c.username, c.label) for c in candidates]


class RubricForm(forms.Form):
    new_version = forms.BooleanField(required=False, label="create a new version (marks exist)")
    # The signed preview these rows were saved after (grading/rubric_uploads.py); the page
    # renders a fresh one with each preview.
    token = forms.CharField(required=False, max_length=400, widget=forms.HiddenInput)


class CriterionForm(forms.Form):
    """One row of the rubric editor; a row without a code is left out."""

    code = forms.CharField(max_length=40, required=False)
    title = forms.CharField(max_length=200, required=False)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 1}))
    kind = forms.ChoiceField(choices=(("assignment", "assignment"), ("theory", "theory")))
    maximum = forms.DecimalField(max_digits=6, decimal_places=2, required=False)
    step = forms.DecimalField(max_digits=6, decimal_places=2, required=False, initial="0.5")
    task = forms.ChoiceField(required=False, choices=())
    items = forms.CharField(required=False, max_length=200, help_text="item numbers: 1,2,3")
    suggest = forms.ChoiceField(
        required=False,
        choices=(
            ("", "default"),
            ("share", "share"),
            ("per_item", "per item"),
            ("none", "none"),
        ),
    )  # explained above the editor's table (a help text per row is never shown)
    points_per_item = forms.DecimalField(max_digits=6, decimal_places=2, required=False)

    def __init__(self, *args, tasks=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task"].choices = [("", "—")] + [(t, t) for t in tasks]
        # The editor shows the fields as table cells under one header row: name each one
        # ("Criterion 2 maximum") for screen readers, and point the items at the editor's
        # single hint (id rubric-items-help) rather than at a per-row help text never shown.
        row = self.prefix.rsplit("-", 1)[-1] if self.prefix else ""
        number = int(row) + 1 if row.isdigit() else ""
        for name, field in self.fields.items():
            label = (field.label or name).lower()
            field.widget.attrs.setdefault("aria-label", f"Criterion {number} {label}".strip())
        self.fields["items"].widget.attrs["aria-describedby"] = "rubric-items-help"

    def clean_items(self) -> list[int]:
        text = self.cleaned_data["items"].replace(" ", "")
        try:
            return [int(part) for part in text.split(",") if part]
        except ValueError:
            raise forms.ValidationError("item numbers separated by commas, e.g. 1,2,3") from None

    def as_spec(self) -> dict | None:
        """Return the row in the rubric JSON schema, or None for an empty row."""
        data = self.cleaned_data
        if not data.get("code"):
            return None
        spec = {
            "code": data["code"],
            "title": data["title"],
            "description": data["description"],
            "kind": data["kind"],
            "maximum": str(data["maximum"]) if data["maximum"] is not None else "",
            "step": str(data["step"]) if data["step"] is not None else "0.5",
        }
        if data["task"]:
            spec["task"] = data["task"]
        if data["items"]:
            spec["items"] = data["items"]
        if data["suggest"]:
            spec["suggest"] = data["suggest"]
        if data["points_per_item"] is not None:
            spec["points_per_item"] = str(data["points_per_item"])
        return spec


CriterionFormSet = forms.formset_factory(CriterionForm, extra=2)


class RubricUploadForm(forms.Form):
    file = forms.FileField()
    new_version = forms.BooleanField(required=False)


class RubricConfirmForm(forms.Form):
    """The second step of a rubric upload: the previewed file, and its signed digest."""

    content = forms.CharField(widget=forms.HiddenInput, strip=False)  # base64 of the file
    name = forms.CharField(widget=forms.HiddenInput, max_length=255)
    new_version = forms.BooleanField(required=False, widget=forms.HiddenInput)
    token = forms.CharField(widget=forms.HiddenInput, max_length=400)


class MarksUploadForm(forms.Form):
    file = ImportFileField(
        command="import_marks SLUG FILE.csv [--final]",
        kind=CSV,
        help_text="CSV: system, problem, criterion, juror, points, comment",
    )
    final = forms.BooleanField(required=False, label="agreed final marks")


class TagsConfigForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        label="Observation tags, one per line",
    )


class SystemScoresUploadForm(forms.Form):
    file = ImportFileField(
        command="import_system_scores SLUG FILE.csv",
        kind=CSV,
        help_text="CSV: system, score, and optionally exact_match, chrf, problem (0-1 scale)",
    )


class ContestantsUploadForm(forms.Form):
    file = ImportFileField(
        command="import_contestants SLUG FILE.csv",
        kind=CSV,
        help_text="CSV: contestant, total; or contestant, problem, criterion, points",
    )


class ProposalForm(forms.Form):
    """A juror's proposed alternative for an item of the key, with the reason."""

    answer = forms.CharField(max_length=2000, strip=False, required=False)
    reason = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
