"""The forms of the techniques page: tag or untag a team's runs, and upload a CSV of tags."""

from __future__ import annotations

from django import forms

from ioleval.uploads import CSV, ImportFileField

from ..models import TECHNIQUE_MAX

ADD = "add"
REMOVE = "remove"
ALL = "all"


class TagForm(forms.Form):
    """A technique on chosen runs of one team: run indices such as "1, 3-5", or "all"."""

    team = forms.ChoiceField(choices=[])
    runs = forms.CharField(
        max_length=200,
        help_text='Run indices, such as "1, 3-5", or "all" for every run of the team.',
    )
    technique = forms.CharField(
        max_length=TECHNIQUE_MAX,
        widget=forms.TextInput(attrs={"list": "technique-names"}),
        help_text=f"A known technique or a new one (at most {TECHNIQUE_MAX} characters).",
    )
    action = forms.ChoiceField(
        choices=[(ADD, "add the technique"), (REMOVE, "remove the technique")],
        initial=ADD,
        widget=forms.RadioSelect,
    )

    def __init__(self, *args, teams: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["team"].choices = [(t, t) for t in teams]

    def clean_runs(self) -> list[int] | None:
        """Return the run indices, or None for every run of the team."""
        text = self.cleaned_data["runs"].strip()
        if text.lower() == ALL:
            return None
        indices: set[int] = set()
        for part in text.replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            first, dash, last = (p.strip() for p in part.partition("-"))
            if not _whole(first) or (dash and not _whole(last)):
                raise forms.ValidationError(
                    f"{part[:20]!r} is not a run index or a range such as 3-5"
                )
            low, high = int(first), int(last) if dash else int(first)
            if high < low or high - low > 10_000:
                raise forms.ValidationError(f"{part!r} is not a range from low to high")
            indices.update(range(low, high + 1))
        if not indices:
            raise forms.ValidationError('give run indices, such as "1, 3-5", or "all"')
        return sorted(indices)


class TagsImportForm(forms.Form):
    file = ImportFileField(
        command="tag_runs SLUG FILE.csv",
        kind=CSV,
        help_text="CSV with columns team (a team with runs), run (its run index), technique "
        "(a known technique or a new one). It adds tags; tags already there stay.",
    )


def _whole(text: str) -> bool:
    return text.isascii() and text.isdigit()
