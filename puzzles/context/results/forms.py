"""The GET options of the context lab's results pages and exports."""

from __future__ import annotations

from django import forms

from ..lab.analysis import DEFAULT_TOKENIZER, TOKENIZERS
from ..lab.variants import DEFAULT_SEED


class ResultsOptionsForm(forms.Form):
    """The seed of the random deletion and the tokenizer the prompts were exported with."""

    seed = forms.IntegerField(
        required=False,
        initial=DEFAULT_SEED,
        min_value=0,
        max_value=2**63 - 1,
        help_text="the seed of the random deletion (export_variants --seed)",
    )
    tokenizer = forms.ChoiceField(
        choices=[(name, name) for name in sorted(TOKENIZERS)],
        required=False,
        initial=DEFAULT_TOKENIZER,
        help_text="the tokenizer of the targeted deletion (export_variants --tokenizer)",
    )

    def options(self) -> dict:
        """Return the valid options, a default in place of each missing or invalid one."""
        data = {}
        if self.is_bound:
            self.is_valid()  # a field that fails is left out of cleaned_data; its error shows
            data = self.cleaned_data
        seed = data.get("seed")
        return {
            "seed": DEFAULT_SEED if seed is None else seed,
            "tokenizer": data.get("tokenizer") or DEFAULT_TOKENIZER,
        }
