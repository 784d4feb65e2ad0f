"""A screen of one system's explanations before it is chosen for the jury."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# Sentences end at . ! ? or … followed by a space or the end, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_SPACE = re.compile(r"\s+")
_EDGE_PUNCTUATION = " .!?…,;:-–—\"'«»“”()[]"


def normalize(text: str) -> str:
    """Return text in the form explanations are compared in: NFKC, casefolded, spaces
    collapsed, punctuation trimmed from the ends."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    return text.strip(_EDGE_PUNCTUATION)


def is_blank(text: str) -> bool:
    """Return True when text has no letter or digit (spaces, dashes, dots only)."""
    return not any(ch.isalnum() for ch in text)


def is_templated(text: str) -> bool:
    """Return True when one sentence makes the explanation: it has 2 or more sentences and the
    most frequent one (after normalize) is repeated and makes up more than half of them."""
    sentences = [s for s in (normalize(p) for p in _SENTENCE_END.split(text)) if s]
    if len(sentences) < 2:
        return False
    top = Counter(sentences).most_common(1)[0][1]
    return top >= 2 and top * 2 > len(sentences)


@dataclass(frozen=True)
class ExplanationScreen:
    """Counts over one system's n explanations (one per task), each with the positions of the
    tasks it flags. Missing (None) and empty (blank text) are apart; duplicated (the same
    normalized text in 2 or more tasks, every copy counted) and templated (one sentence
    repeated, see is_templated) are judged on the others and may overlap."""

    n: int
    missing: tuple[int, ...]
    empty: tuple[int, ...]
    duplicated: tuple[int, ...]
    templated: tuple[int, ...]

    @property
    def flagged(self) -> tuple[int, ...]:
        """Return the tasks with any of the four problems."""
        return tuple(sorted({*self.missing, *self.empty, *self.duplicated, *self.templated}))

    def share(self, kind: str) -> float | None:
        """Return the share (0-1) of tasks in kind ('missing', 'empty', 'duplicated',
        'templated' or 'flagged'); None without tasks."""
        return len(getattr(self, kind)) / self.n if self.n else None


def explanation_screen(explanations: Sequence[str | None]) -> ExplanationScreen:
    """Screen a system's explanations, given in task order (None where it gave none)."""
    missing, empty, texts = [], [], {}
    for i, text in enumerate(explanations):
        if text is None:
            missing.append(i)
        elif is_blank(text):
            empty.append(i)
        else:
            texts[i] = text
    seen = Counter(normalize(t) for t in texts.values())
    return ExplanationScreen(
        n=len(explanations),
        missing=tuple(missing),
        empty=tuple(empty),
        duplicated=tuple(i for i, t in texts.items() if seen[normalize(t)] > 1),
        templated=tuple(i for i, t in texts.items() if is_templated(t)),
    )
