"""Finding the answer items in a region: JSON, labelled or bulleted lists, plain lines."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

from .cleaning import clean_item, strip_emphasis
from .latex import find_boxes, latex_plain
from .patterns import (
    ANSWER_KEYS,
    BULLET,
    CHATTER,
    EXPLAIN_KEYS,
    FENCE,
    FENCE_BLOCK,
    LABELLED,
    MAX_EMBEDDED_TRIES,
    MD_HEADING,
    ROMAN,
    TABLE_RULE,
)


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    text: str
    para: int


@dataclass(frozen=True)
class _Item:
    start: int
    end: int
    label: str | None  # None for a bullet
    body: str


@dataclass(frozen=True)
class _Found:
    items: list[str]
    method: str
    start: int
    end: int
    explanation: str = ""
    n_found: int | None = None  # when not len(items): slots kept for unanswered labels


def query_items(query: str, n: int) -> tuple[list[str], list[str]]:
    """Return the labels and source texts of the query's first run of n labelled lines."""
    if not query:
        return [], []
    items = [i for i in _list_items(_content_lines(query)) if i.label is not None]
    for run in _runs(items):
        if len(run) == n:
            return [i.label or "" for i in run], [i.body for i in run]
    return [], []


def find_items(
    region: str, n: int, labels: list[str], sources: list[str], from_section: bool
) -> _Found:
    """Find the answer items in a region, trying the strategies from strictest to loosest."""
    found = _find_json(region, n) or _find_boxed(region, n, sources)
    if found is not None:
        return found
    items = _list_items(_content_lines(region))
    labelled = [i for i in items if i.label is not None]
    if n != 1 or len(labelled) == 1:
        found = _by_label(labelled, labels, sources) or _in_order(
            labelled or items, n, sources, from_section
        )
        if found is not None:
            return found
    return _plain_lines(region, n, sources, from_section)


def load_json(text: str, strict: bool = False) -> object:
    """Return the decoded JSON (or, unless strict, Python literal) list/object, else None."""
    if not text or text[0] not in "[{":
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    if strict or len(text) > 20_000:
        return None
    try:
        return ast.literal_eval(text)  # models sometimes print a Python list repr
    except Exception:  # literal_eval raises many kinds on garbage
        return None


def value_items(value: object) -> tuple[list[str], str] | None:
    """Return (items, explanation) from a decoded list or answers object, else None."""
    if isinstance(value, list):
        return _strings(value), ""
    if not isinstance(value, dict):
        return None
    fields = {str(k).casefold(): v for k, v in value.items()}
    explanation = next((fields[k] for k in EXPLAIN_KEYS if isinstance(fields.get(k), str)), "")
    for key in ANSWER_KEYS:
        answer = fields.get(key)
        if isinstance(answer, list):
            return _strings(answer), explanation
        if isinstance(answer, str):
            return [answer.strip()], explanation
    return None


def _strings(values: list[object]) -> list[str]:
    """Return JSON elements as item strings, as the competition did: str(), null -> ""."""
    return ["" if v is None else str(v).strip() for v in values]


def _find_json(region: str, n: int) -> _Found | None:
    """Return items from a JSON value that is the region, a fenced block, or n long inside."""
    value = value_items(load_json(region.strip()))
    if value is not None:
        return _Found(value[0], "json", 0, len(region), value[1])
    fenced = [
        (m, v)
        for m in FENCE_BLOCK.finditer(region)
        if (v := value_items(load_json(m.group(1).strip()))) is not None
    ]
    if fenced:
        match, value = max(fenced, key=lambda mv: (len(mv[1][0]) == n, mv[0].start()))
        return _Found(value[0], "json", match.start(), match.end(), value[1])
    return _embedded_json(region, n)


def _embedded_json(region: str, n: int) -> _Found | None:
    """Return the last JSON list of exactly n elements (or answers object) inside prose."""
    decoder = json.JSONDecoder()
    best: _Found | None = None
    resume = 0
    for tries, match in enumerate(re.finditer(r"[\[{]", region)):
        if tries >= MAX_EMBEDDED_TRIES:
            break
        if match.start() < resume:
            continue
        try:
            value, end = decoder.raw_decode(region, match.start())
        except (ValueError, RecursionError):
            continue
        parsed = value_items(value)
        # A bracketed "[1]" or "[3, 7]" in prose is not an answer list: demand n items, and
        # a string among them unless the list stands on a line of its own.
        plausible = isinstance(value, list) and len(value) == n
        plausible = plausible and (
            any(isinstance(v, str) for v in value) or _own_line(region, match.start(), end)
        )
        if parsed is not None and (isinstance(value, dict) or plausible):
            best = _Found(parsed[0], "json", match.start(), end, parsed[1])
            resume = end
    return best


def _own_line(text: str, start: int, end: int) -> bool:
    """Tell whether text[start:end] is all of its line but whitespace."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return not (
        text[line_start:start].strip() or text[end : None if line_end < 0 else line_end].strip()
    )


def _find_boxed(region: str, n: int, sources: list[str]) -> _Found | None:
    """Return items from LaTeX boxes: the last n boxes, else one box holding the list.

    The span is empty: the text around and in the boxes stays for the explanation.
    """
    boxes = find_boxes(region)
    if not boxes or n < 1:
        return None
    if len(boxes) >= n:
        answers = _cleaned([_box_text(box.content) for box in boxes[-n:]], sources)
        return _Found(answers, "boxed", 0, 0)
    parts = [line for line in latex_plain(boxes[-1].content).split("\n") if line.strip()]
    if len(parts) == 1:  # one line: items separated by semicolons, else commas
        parts = next((p for p in (parts[0].split(";"), parts[0].split(",")) if len(p) == n), [])
    if len(parts) < 2:  # one boxed word of a several-item task is an aside, not the answers
        return None
    return _Found(_cleaned([_box_text(part) for part in parts], sources), "boxed", 0, 0)


def _box_text(text: str) -> str:
    """Return one boxed answer as plain text, without an item label."""
    text = latex_plain(text).strip()
    parsed = _parse_list_line(text)
    return parsed[1] if parsed else text


def _cleaned(bodies: list[str], sources: list[str]) -> list[str]:
    """Clean the answer items, each against the query's source item in its place, if any."""
    return [
        clean_item(body, sources[i] if i < len(sources) else "") for i, body in enumerate(bodies)
    ]


def _content_lines(region: str) -> list[_Line]:
    """Return the region's non-blank lines, minus fences and headings, with offsets."""
    lines: list[_Line] = []
    position = para = 0
    gap = False
    block_start: int | None = None  # a table header joins the block of its first row
    for raw in region.split("\n"):
        start, position = position, position + len(raw) + 1
        stripped = raw.strip()
        if not stripped or FENCE.match(stripped) or MD_HEADING.match(stripped):
            gap = True
            continue
        if TABLE_RULE.match(stripped):
            if lines and not gap and lines[-1].text.startswith("|"):
                block_start = lines.pop().start  # a table's header row is not an answer
            else:
                gap = True  # a horizontal rule
            continue
        if gap and lines:
            para += 1
        gap = False
        lines.append(
            _Line(start if block_start is None else block_start, start + len(raw), stripped, para)
        )
        block_start = None
    return lines


def _parse_list_line(text: str) -> tuple[str | None, str] | None:
    """Return (label or None for a bullet, body) when the line is a list item, else None."""
    # A table row; its closing pipe is optional, but a lone leading pipe is a click ("|xam").
    if text.startswith("|") and text.count("|") >= 2:
        cells = [cell.strip() for cell in text.strip("|").split("|")]
        if not any(cells):  # an empty row or a stray pipe
            return None
        label = strip_emphasis(cells[0]).strip(" .)(")
        # A table row: "| 16 | source | answer |" answers in its last cell.
        if len(cells) > 1 and label and _valid_label(label):
            return label, strip_emphasis(cells[-1]).strip()
        return None, strip_emphasis(cells[-1]).strip()
    bullet = BULLET.match(text)
    if bullet:
        text = text[bullet.end() :]
    text = strip_emphasis(text).strip()
    match = LABELLED.match(text)
    if match:
        label = match.group("p") or match.group("d") or match.group("w")
        if _valid_label(label):
            body = match.group("body").strip()
            return label, body[inner.end() :] if (inner := BULLET.match(body)) else body
    return (None, text) if bullet else None


def _valid_label(label: str) -> bool:
    """Tell whether a label looks like an item label (3, b, BB, iv), not a word."""
    if label.isdigit() or len(label) == 1:
        return True
    if label.isupper() and len(label) == 2 and label[0] == label[1]:
        return True
    return (label.islower() or label.isupper()) and bool(ROMAN.match(label.lower()))


def _list_items(lines: list[_Line]) -> list[_Item]:
    """Return the list items among the lines; a bare label takes the next line as body."""
    items: list[_Item] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        parsed = _parse_list_line(line.text)
        index += 1
        if parsed is None:
            continue
        label, body = parsed
        end = line.end
        if not body and index < len(lines) and _parse_list_line(lines[index].text) is None:
            body, end = strip_emphasis(lines[index].text), lines[index].end
            index += 1
        items.append(_Item(line.start, end, label, body))
    return items


def _label_kind(label: str | None) -> str:
    """Return the family of a label: bullet, digit, upper or lower."""
    if label is None:
        return "bullet"
    if label.isdigit():
        return "digit"
    return "upper" if label.isupper() else "lower"


def _runs(items: list[_Item]) -> list[list[_Item]]:
    """Split list items into runs where the numbering restarts or the label kind changes."""
    runs: list[list[_Item]] = []
    for item in items:
        current = runs[-1] if runs else []
        previous = current[-1] if current else None
        restart = previous is None or _label_kind(previous.label) != _label_kind(item.label)
        if not restart and item.label is not None and previous and previous.label:
            seen = {i.label.casefold() for i in current if i.label}
            restart = item.label.casefold() in seen or (
                item.label.isdigit() and int(item.label) <= int(previous.label)
            )
        if restart:
            runs.append([item])
        else:
            current.append(item)
    return runs


def _by_label(items: list[_Item], labels: list[str], sources: list[str]) -> _Found | None:
    """Map labelled answers onto the query's labels, when most answer labels are the query's."""
    if not labels:
        return None
    keys = [label.casefold() for label in labels]
    chosen: dict[str, _Item] = {}
    for item in items:
        if item.label and item.label.casefold() in keys:
            chosen[item.label.casefold()] = item  # later wins: models reason, then answer
    distinct = {item.label.casefold() for item in items if item.label}
    if not chosen or len(chosen) * 2 < len(distinct):
        return None
    answers = [
        clean_item(chosen[k].body, s) if k in chosen else ""
        for k, s in zip(keys, sources, strict=True)
    ]
    used = chosen.values()
    start, end = min(i.start for i in used), max(i.end for i in used)
    return _Found(answers, "labelled", start, end, n_found=len(chosen))


def _in_order(items: list[_Item], n: int, sources: list[str], from_section: bool) -> _Found | None:
    """Take the best run of list items in order: the last with n items, else the longest."""
    runs = _runs(items)
    if not runs:
        return None
    best = max(enumerate(runs), key=lambda ir: (len(ir[1]) == n, len(ir[1]), ir[0]))[1]
    # Outside an answer section a lone numbered line is more likely prose than a list.
    if len(best) < 2 and n > 1 and not from_section:
        return None
    answers = _cleaned([item.body for item in best], sources)
    return _Found(answers, "numbered", best[0].start, best[-1].end)


def _plain_lines(region: str, n: int, sources: list[str], from_section: bool) -> _Found:
    """Take the region's lines as items (one paragraph for a single-item task)."""
    method = "answer_section" if from_section else "lines"
    lines = _content_lines(region)
    if n == 1:
        kept = [line for line in lines if not CHATTER.match(line.text)] or lines
        if not from_section and kept:  # outside a section, the answer is the last paragraph
            kept = [line for line in kept if line.para == kept[-1].para]
        text = "\n".join(strip_emphasis(line.text).strip() for line in kept)
        start = kept[0].start if kept and not from_section else 0
        return _Found([text] if text else [], method, start, len(region))
    kept = [line for line in lines if not line.text.endswith((":", "："))]
    if len(kept) > n:
        kept = [line for line in kept if not CHATTER.match(line.text)]
    kept = _fit_paragraphs(kept, n)
    if not kept:
        return _Found([], method, 0, len(region))
    bodies = [
        parsed[1] if (parsed := _parse_list_line(line.text)) else line.text
        for line in kept[:n]  # cleaning items beyond n is wasted work
    ]
    answers = _cleaned(bodies, sources)
    return _Found(answers, method, kept[0].start, kept[-1].end, n_found=len(kept))


def _fit_paragraphs(lines: list[_Line], n: int) -> list[_Line]:
    """Return the leading or trailing whole paragraphs holding exactly n lines, else all."""
    for ordered in (lines, lines[::-1]):
        taken: list[_Line] = []
        for line in ordered:
            if taken and len(taken) >= n and line.para != taken[-1].para:
                break
            taken.append(line)
        if len(taken) == n:
            return taken if ordered is lines else taken[::-1]
    return lines
