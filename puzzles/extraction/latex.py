"""LaTeX in answers: `\\boxed{...}` boxes and the few commands models wrap answers in."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

BOX_OPEN = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")
# Commands whose argument is the text itself: \text{kayé} is kayé.
_WRAPPER = re.compile(
    r"\\(?:text(?:bf|it|rm|sf|tt|normal|up)?|math(?:rm|it|bf|sf|tt|normal)|emph|operatorname"
    r"|textsc|underline|boxed|fbox|framebox)\s*\{([^{}]*)\}"
)
# Accents as TeX writes them (\'e, \"{u}, \v{c}) become combining marks, then NFC.
_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
}
_ACCENT = re.compile(r"""\\(['`^"~=.]|[vuHck](?![A-Za-z]))\s*(?:\{(\w)\}|(\w))""")
_COMMAND = re.compile(r"\\(?:boxed|fbox|framebox|text\w*|math\w+|emph|operatorname)\s*\{")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?")
_SPACES = re.compile(r"\\[ ,;:!]|\\quad\b|\\qquad\b")
_ESCAPED = re.compile(r"\\([_&%#${}])")
_MATH_DELIMITERS = re.compile(r"\$+|\\[()\[\]]")
_ALL_MATH = re.compile(r"^(?:\$+[^$]+\$+|\\\(.*\\\)|\\\[.*\\\])$", re.S)
_MAX_UNWRAP = 8  # nesting of \text{} inside \boxed{} that is unwrapped


@dataclass(frozen=True)
class Box:
    start: int
    end: int
    content: str


def find_boxes(text: str) -> list[Box]:
    """Return the `\\boxed{...}` spans with balanced braces, outermost only, in order."""
    boxes: list[Box] = []
    position = 0
    while match := BOX_OPEN.search(text, position):
        depth, index = 1, match.end()
        while index < len(text) and depth:
            char = text[index]
            if char == "\\":
                index += 2  # an escaped brace \{ does not count
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            index += 1
        if depth:  # unbalanced: the box runs to the end of the reply, never closed
            break
        boxes.append(Box(match.start(), index, text[match.end() : index - 1]))
        position = index
    return boxes


def plain_if_latex(text: str) -> str:
    """Return latex_plain(text) when text holds a box or wrapper or is all math, else text."""
    if _COMMAND.search(text) or _ALL_MATH.match(text.strip()):
        return latex_plain(text)
    return text


def latex_plain(text: str) -> str:
    """Return the text a reader sees: wrappers unwrapped, accents composed, math marks gone.

    Line breaks (`\\\\`) become newlines, so a box holding a list keeps one item per line.
    """
    for _ in range(_MAX_UNWRAP):  # boxes first: their braces are balanced, not flat
        boxes = find_boxes(text)
        if not boxes:
            break
        text = "".join(_around(text, boxes))
    text = _ENVIRONMENT.sub("\n", text)
    text = _ACCENT.sub(lambda m: (m.group(2) or m.group(3)) + _ACCENTS[m.group(1)], text)
    for _ in range(_MAX_UNWRAP):
        text, count = _WRAPPER.subn(r"\1", text)
        if not count:
            break
    text = text.replace("\\\\", "\n")
    text = _SPACES.sub(" ", text)
    text = _ESCAPED.sub(r"\1", text)
    text = _MATH_DELIMITERS.sub("", text)
    text = re.sub(r"[ \t]+", " ", text)
    return unicodedata.normalize("NFC", "\n".join(line.strip() for line in text.split("\n")))


def _around(text: str, boxes: list[Box], keep: bool = True):
    """Yield the text with each box replaced by its content (or by nothing)."""
    position = 0
    for box in boxes:
        yield text[position : box.start]
        yield box.content if keep else ""
        position = box.end
    yield text[position:]


def without_boxes(text: str) -> str:
    """Return the text with every box (and its content) removed."""
    return "".join(_around(text, find_boxes(text), keep=False))


def has_words(text: str) -> bool:
    """Tell whether text holds a word of two letters or more (not just labels and marks)."""
    return bool(re.search(r"[^\W\d_]{2,}", latex_plain(text)))
