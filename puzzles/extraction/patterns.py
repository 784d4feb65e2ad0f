"""The regular expressions and key names the extraction matches replies with."""

from __future__ import annotations

import re

_ANSWER_WORDS = r"final\s+answers?|answers?|solutions?|translations?"
_EXPLAIN_WORDS = r"explanations?|reasoning|rationale|justification|analysis"
KEYWORD = re.compile(rf"\b(?:(?P<answer>{_ANSWER_WORDS})|{_EXPLAIN_WORDS})\b", re.I)
HEADING_LINE = re.compile(
    rf"^(?:(?:my|the|our)\s++)?(?P<kw>{_ANSWER_WORDS}|{_EXPLAIN_WORDS})(?:\s*+\([^)]*\))?"
    r"(?:\s++(?:is|are|would be))?\s*+(?:[:：]\s*+(?P<rest>.*))?$",
    re.I | re.S,
)
# "So the answer is tovak." opens an answer section holding the rest of the line.
ANSWER_SENTENCE = re.compile(
    r"^(?:(?:so|thus|therefore|hence)\b,?\s*+)?(?:the|my|our)\s++(?:final\s++)?answers?"
    r"\s++(?:is|are|would be)\s++(?P<rest>[^:：\s].*)(?<![:：])$",
    re.I,
)
MD_HEADING = re.compile(r"^#{1,6}(?:\s|$)")
FENCE = re.compile(r"^\s*(?:```|~~~)")
FENCE_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)
# Bullets of every glyph models print, and a task-list box after one ("- [x] tovak").
BULLET = re.compile(r"^[-*+•–—◦▪▫‣·●○■□►▸➤✓✔]\s+(?:\[[ xX]\]\s+)?")
RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
TABLE_RULE = re.compile(r"^(?=[^-]*-)[\s:|-]+$")
TRAILING_GLOSS = re.compile(r"\(([^()]*)\)$")
LABELLED = re.compile(
    r"""^(?:\((?P<p>[0-9]{1,3}|[A-Za-z]{1,5})\)     # (3)  (iv)  (b)
        |(?:(?:answer|item|question|task|no\.?|q|\#)\s*)?  # Answer 16:  Q3.  #2
         (?P<d>[0-9]{1,3})(?:[.):]|\s*(?:->|→|=|[-–—]))(?![0-9])  # 3. 17) 16: 1 - C
        |(?P<w>[A-Za-z]{1,5})[.)](?=\s)             # a)  BB.  iv)
    )\s*(?P<body>.*)$""",
    re.X | re.S | re.I,
)
ROMAN = re.compile(r"^(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})$")
# Spans may not contain their own marker, which keeps the scans linear on long lines.
BOLD = re.compile(r"\*\*([^*\n]+)\*\*|(?<!\w)__([^_\n]+)__(?!\w)")
ITALIC = re.compile(
    r"(?<![\w*])\*(?![\s*])([^*\n]+)(?<!\s)\*(?![\w*])|(?<!\w)_(?![\s_])([^_\n]+)(?<!\s)_(?!\w)"
)
CODE = re.compile(r"`([^`\n]*)`")
# (?<!\s) starts a match only at the start of a whitespace run: no quadratic rescans.
ARROW = re.compile(r"(?<!\s)\s*+(?:→|->|=>|⇒|⟶)\s*+")
SEPARATOR = re.compile(r"(?<!\s)(?:\s*+(?:→|->|=>|⇒|⟶|=|:|\|)\s*+|\s++[-–—]\s++|\s*+[–—]\s*+)")
# Greetings, sign-offs and "Here are the answers:" intros; "Here is my reasoning: X" is not.
CHATTER = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|great|alright|absolutely|i hope|hope (?:this|that)"
    r"|let me know|good luck|feel free|thanks?)\b|^(?:here(?:'s| is| are)|below (?:is|are))\b.*[:：]$",
    re.I,
)
ANSWER_KEYS = "answers answer final_answers final_answer items predictions translations".split()
EXPLAIN_KEYS = "explanation explanations reasoning rationale".split()
MAX_EMBEDDED_TRIES = 200
