"""The GET options of the context lab's pages and exports."""

from __future__ import annotations

from django import forms

from .analysis import DEFAULT_TOKENIZER, TOKENIZERS

DEFAULT_K = 2
MAX_K = 4


class AnalysisOptionsForm(forms.Form):
    """Which tokenizer to analyse with and up to how many deleted examples to compare."""

    tokenizer = forms.ChoiceField(
        choices=[(name, name) for name in sorted(TOKENIZERS)],
        required=False,
        initial=DEFAULT_TOKENIZER,
        help_text="normalized: NFC, case folded, punctuation stripped at token edges; "
        "whitespace: the paper's plain split.",
    )
    k = forms.IntegerField(
        label="Deletions up to k",
        min_value=1,
        max_value=MAX_K,
        required=False,
        initial=DEFAULT_K,
    )

    def options(self) -> dict:
        """Return the valid options, a default in place of each missing or invalid one."""
        data = {}
        if self.is_bound:
            self.is_valid()  # a field that fails is left out of cleaned_data; its error shows
            data = self.cleaned_data
        return {
            "tokenizer": data.get("tokenizer") or DEFAULT_TOKENIZER,
            "k": data.get("k") or DEFAULT_K,
        }
