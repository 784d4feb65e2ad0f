"""Reasoning traces and tagged blocks: `<think>…</think>`, `<answer>…</answer>`, channels.

Reasoning models print their thinking before the reply. A `<reasoning>` block is not
thinking but the explanation a prompt asked for beside an `<answer>` block. Answers are never read from a
trace unless the reply outside it holds nothing at all (a run cut off mid-thought), and
the trace is the explanation only when the reply has none of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TRACE_NAMES = "think|thinking|thought|thoughts|reflection|scratchpad"
TRACE_TAG = re.compile(
    rf"<(?P<close>/?)\s*(?:{_TRACE_NAMES})\s*>|<\|(?P<mark>begin|end)_of_thought\|>", re.I
)
# Tokens of chat formats that leak into printed replies; their content stays.
_FORMAT_TOKEN = re.compile(
    r"<\|(?:begin|end)_of_solution\|>|<\|(?:start|end|return|im_start|im_end)\|>(?:assistant\b)?"
)
# gpt-oss "harmony" replies: an analysis channel, then the final channel holds the reply.
_CHANNEL = re.compile(r"<\|channel\|>\s*(?P<name>\w+)[^<]*<\|message\|>", re.I)
_BLOCK_TAG = re.compile(
    r"<(?P<close>/?)(?P<name>final_answer|final|answers?|solution|explanation|reasoning)>", re.I
)


@dataclass(frozen=True)
class Reply:
    """A reply without its trace; answer and explanation from tags, when it had them."""

    text: str
    trace: str
    answer: str | None = None
    explanation: str = ""


def read_reply(text: str) -> Reply:
    """Split a reply into its visible text, its reasoning trace and its tagged blocks."""
    visible, trace = _split_channels(text)
    visible, more = _split_trace(visible)
    trace = "\n\n".join(part for part in (trace, more) if part.strip())
    visible = _FORMAT_TOKEN.sub("", visible)
    trace = _FORMAT_TOKEN.sub("", trace).strip()
    answer, explanation = None, ""
    rest: list[str] = []
    position = 0
    for name, start, end, body in _blocks(visible):
        rest.append(visible[position:start])
        position = end
        if name in ("explanation", "reasoning"):
            explanation = body.strip()
        else:
            answer = body  # the last answer block wins
    if answer is None and not explanation:
        return Reply(visible, trace)
    rest.append(visible[position:])
    return Reply("\n".join(rest), trace, answer, explanation)


def _blocks(text: str):
    """Yield (name, start, end, body) of each closed tagged block, in one pass."""
    opened: re.Match[str] | None = None
    for match in _BLOCK_TAG.finditer(text):
        name = match.group("name").lower()
        if not match.group("close"):
            opened = opened or match
        elif opened and opened.group("name").lower() == name:
            yield name, opened.start(), match.end(), text[opened.end() : match.start()]
            opened = None


def _split_channels(text: str) -> tuple[str, str]:
    """Return (final channel, other channels) of a harmony reply, else (text, "")."""
    channels = list(_CHANNEL.finditer(text))
    finals = [m for m in channels if m.group("name").lower() == "final"]
    if not finals:
        return text, ""
    last = finals[-1]
    trace = _CHANNEL.sub("\n", text[: last.start()])
    return text[last.end() :], trace


def _split_trace(text: str) -> tuple[str, str]:
    """Return (text outside trace tags, text inside them).

    A closing tag with no opening one (the model's template printed the opening) makes
    everything before it trace; an opening tag never closed makes the rest trace.
    """
    visible: list[str] = []
    trace: list[str] = []
    position, inside = 0, False
    for match in TRACE_TAG.finditer(text):
        closing = bool(match.group("close")) or match.group("mark") == "end"
        chunk = text[position : match.start()]
        position = match.end()
        if inside:
            trace.append(chunk)
            inside = not closing
        elif closing:
            trace.extend(visible + [chunk])  # a dangling close: all before was thinking
            visible = []
        else:
            visible.append(chunk)
            inside = True
    (trace if inside else visible).append(text[position:])
    return "".join(visible), "\n".join(part.strip() for part in trace if part.strip())
