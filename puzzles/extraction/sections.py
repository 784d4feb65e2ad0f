"""Cutting a reply into answer, explanation and other sections at its headings."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cleaning import strip_emphasis
from .patterns import ANSWER_SENTENCE, FENCE, HEADING_LINE, KEYWORD, MD_HEADING


@dataclass
class Section:
    kind: str  # "answer", "explain" or "other"
    lines: list[str]
    final: bool = False  # headed "final"; read only for answer sections

    @property
    def body(self) -> str:
        return "\n".join(self.lines).strip()


def _heading(line: str) -> tuple[str, bool, str] | None:
    """Return (kind, is_final, inline rest) when the line opens a section, else None."""
    stripped = line.strip()
    is_markdown = bool(MD_HEADING.match(stripped))
    text = strip_emphasis(stripped.lstrip("#")).strip()
    final = bool(re.search(r"\bfinal\b", text, re.I))
    match = HEADING_LINE.match(text)
    if match:
        kind = _keyword_kind(KEYWORD.match(match.group("kw")))
        return kind, final, (match.group("rest") or "").strip()
    sentence = ANSWER_SENTENCE.match(text)
    if sentence and not is_markdown:
        return "answer", final, sentence.group("rest").strip()
    keyword = KEYWORD.search(text)
    if is_markdown:
        return (_keyword_kind(keyword) if keyword else "other"), final, ""
    # "Here are my answers:" opens a section; "Translation of item 16:" does not.
    intro = text.endswith((":", "：")) and len(text.split()) <= 10
    if keyword and intro and not re.search(r"\d", text):
        return _keyword_kind(keyword), final, ""
    return None


def _keyword_kind(match: re.Match[str] | None) -> str:
    """Return the section kind a heading keyword names."""
    return "answer" if match and match.group("answer") else "explain"


def split_sections(text: str) -> list[Section]:
    """Cut the text into sections at heading lines outside code fences."""
    sections = [Section("other", [])]
    in_fence = False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        head = None if in_fence else _heading(line)
        if head is None:
            sections[-1].lines.append(line.rstrip())
            continue
        kind, final, rest = head
        sections.append(Section(kind, [rest], final))  # body drops an empty rest
    return sections


def pick_answer_section(sections: list[Section]) -> Section | None:
    """Return the last non-empty answer section, preferring one headed "final"."""
    answers = [s for s in sections if s.kind == "answer" and s.body]
    finals = [s for s in answers if s.final]
    return (finals or answers or [None])[-1]
