"""Cleaning extracted text: markdown emphasis, echoed source items, chatter lines."""

from __future__ import annotations

import re
from itertools import takewhile

from .latex import plain_if_latex
from .patterns import ARROW, BOLD, CHATTER, CODE, FENCE, ITALIC, RULE, SEPARATOR, TRAILING_GLOSS


def strip_emphasis(text: str) -> str:
    """Remove markdown bold, italics and inline-code backticks, keeping their text."""
    text = CODE.sub(r"\1", text)
    text = BOLD.sub(r"\1\2", text)  # a group that did not take part is empty
    text = ITALIC.sub(r"\1\2", text)
    return text.replace("**", "")


def clean_item(text: str, source: str) -> str:
    """Return an answer item without emphasis and without an echoed source item or arrow."""
    text = plain_if_latex(strip_emphasis(text)).strip()
    gloss = TRAILING_GLOSS.search(text)
    if source and gloss and gloss.start() > 0 and _same_source(gloss.group(1), source):
        text = text[: gloss.start()]
    if source:
        # An echo is about as long as its source (a column may pad it with any number of
        # spaces before the separator): look no further, longest echo first.
        limit = 2 * len(source) + 10
        nearby = takewhile(lambda m: m.start() <= limit, SEPARATOR.finditer(text))
        for match in reversed(list(nearby)):
            rest = text[match.end() :].strip()
            if rest and _same_source(text[: match.start()], source):
                return rest
    arrow = ARROW.search(text)
    if arrow and text[arrow.end() :].strip():  # "tovak → sanu" and "→ sanu" are sanu
        return text[arrow.end() :].strip()
    return text.strip()


def _same_source(echo: str, source: str) -> bool:
    """Tell whether text is the source item, ignoring brackets, quotes, case, glosses."""
    key = _loose(echo)
    if not key:
        return False
    for part in (source, *source.split("|")):
        if key in (_loose(part), _loose(re.sub(r"\([^)]*\)", " ", part))):
            return True
    return False


def _loose(text: str) -> str:
    """Return text lower-cased without brackets, quotes or trailing punctuation."""
    text = re.sub(r"[\[\]\"'“”‘’«»]", "", strip_emphasis(text))
    return re.sub(r"\s+", " ", text).strip().casefold().rstrip(".,;:!?").strip()


def clean_explanation(text: str) -> str:
    """Return leftover text without fences, chatter lines or runs of blank lines."""
    lines = [
        line.rstrip()
        for line in text.split("\n")
        if not (FENCE.match(line) or CHATTER.match(line.strip()) or RULE.match(line.strip()))
    ]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
