"""Extract answer items and an explanation from a model's free-text reply.

Pure functions, no Django. `extract_answer(text, n_items, query)` works in three steps:

1. A reply that is wholly a JSON list is split exactly as `metrics.parse_prediction`
   splits it, so clean submissions never change; a JSON object with an "answers" list
   (and perhaps an "explanation") is taken the same way.
2. The reply is cut into sections at headings: `Answer:`, `Final answers:`, `## Answer`,
   `**Reasoning**`, `Explanation: ...`, or a short line ending in a colon that names one
   ("Sure! Here are the answers:"). The answers are looked for in the last answer
   section (a "final" one preferred), else in the text outside explanation sections,
   else (when that holds no list) inside the explanation sections.
3. In that region: a JSON value or Python list repr (whole, fenced, or embedded with
   exactly n elements); else labelled lines (`16.`, `17)`, `(b)`, `iv)`, `BB.`, `1 - C`,
   bullets, table rows), mapped to the query's item labels when most of them match and
   otherwise taken in order; else plain lines. A single-item task takes a multi-line
   region as one paragraph.

Items lose their label, markdown emphasis and backticks, and the query's source item
when echoed before a separator (`→`, `->`, `=`, `:`, ` - `, ` — `) or after the answer
in brackets; anything before an arrow goes even without a query. Quotes are left to
`metrics.normalize`. The explanation is the explanation sections' text, the JSON
object's "explanation", or else the text outside the answer block minus chatter.

Not handled: one "Answer:" heading per item (only the last such section is read),
answers inside running prose ("so 16 is kayé"), nested sub-lists under items, and
several answer lists without a heading (the last list of n items wins).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

_ANSWER_WORDS = r"final\s+answers?|answers?|solutions?|translations?"
_EXPLAIN_WORDS = r"explanations?|reasoning|rationale|justification|analysis"
_KEYWORD = re.compile(rf"\b(?:(?P<answer>{_ANSWER_WORDS})|{_EXPLAIN_WORDS})\b", re.I)
_HEADING_LINE = re.compile(
    rf"^(?:(?:my|the|our)\s++)?(?P<kw>{_ANSWER_WORDS}|{_EXPLAIN_WORDS})(?:\s*+\([^)]*\))?"
    r"(?:\s++(?:is|are|would be))?\s*+(?:[:：]\s*+(?P<rest>.*))?$",
    re.I | re.S,
)
_MD_HEADING = re.compile(r"^#{1,6}(?:\s|$)")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_FENCE_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)
_BULLET = re.compile(r"^[-*•+]\s+")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_TABLE_RULE = re.compile(r"^(?=[^-]*-)[\s:|-]+$")
_TRAILING_GLOSS = re.compile(r"\(([^()]*)\)$")
_LABELLED = re.compile(
    r"""^(?:\((?P<p>[0-9]{1,3}|[A-Za-z]{1,5})\)     # (3)  (iv)  (b)
        |(?P<d>[0-9]{1,3})(?:[.):]|\s*(?:->|→|=|[-–—]))(?![0-9])  # 3. 17) 16: 1 - C
        |(?P<w>[A-Za-z]{1,5})[.)](?=\s)             # a)  BB.  iv)
    )\s*(?P<body>.*)$""",
    re.X | re.S,
)
_ROMAN = re.compile(r"^(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})$")
# Spans may not contain their own marker, which keeps the scans linear on long lines.
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|(?<!\w)__([^_\n]+)__(?!\w)")
_ITALIC = re.compile(
    r"(?<![\w*])\*(?![\s*])([^*\n]+)(?<!\s)\*(?![\w*])|(?<!\w)_(?![\s_])([^_\n]+)(?<!\s)_(?!\w)"
)
_CODE = re.compile(r"`([^`\n]*)`")
# (?<!\s) starts a match only at the start of a whitespace run: no quadratic rescans.
_ARROW = re.compile(r"(?<!\s)\s*+(?:→|->|=>|⇒|⟶)\s*+")
_SEPARATOR = re.compile(r"(?<!\s)(?:\s*+(?:→|->|=>|⇒|⟶|=|:|\|)\s*+|\s++[-–—]\s++|\s*+[–—]\s*+)")
# Greetings, sign-offs and "Here are the answers:" intros; "Here is my reasoning: X" is not.
_CHATTER = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|great|alright|absolutely|i hope|hope (?:this|that)"
    r"|let me know|good luck|feel free|thanks?)\b|^(?:here(?:'s| is| are)|below (?:is|are))\b.*[:：]$",
    re.I,
)
_ANSWER_KEYS = "answers answer final_answers final_answer items predictions translations".split()
_EXPLAIN_KEYS = "explanation explanations reasoning rationale".split()
_MAX_EMBEDDED_TRIES = 200


@dataclass(frozen=True)
class Extraction:
    """Answer items cut or padded to the task's item count, and the explanation."""

    items: list[str]
    explanation: str
    n_items_found: int
    method: str


@dataclass
class _Section:
    kind: str  # "answer", "explain" or "other"
    final: bool
    lines: list[str]

    @property
    def body(self) -> str:
        return "\n".join(self.lines).strip()


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


def extract_answer(text: str | None, n_items: int, query: str = "") -> Extraction:
    """Extract answer items and the explanation from free model text."""
    n = max(int(n_items), 0)
    if text is None or not text.strip():
        return Extraction([""] * n, "", 0, "empty")
    whole = _value_items(_load_json(text.strip(), strict=True))
    if whole is not None:  # the competition's own parse of a clean JSON list
        items, explanation = whole
        return Extraction((items + [""] * n)[:n], explanation.strip(), len(items), "json")
    sections = _split_sections(text)
    answer = _pick_answer_section(sections)
    explained = "\n\n".join(s.body for s in sections if s.kind == "explain" and s.body)
    others = "\n".join(s.body for s in sections if s.kind == "other")
    region, outside = (answer.body, others) if answer else (others, "")
    labels, sources = _query_items(query, n)
    found = _find_items(region, n, labels, sources, from_section=answer is not None)
    borrowed = False
    if answer is None and explained and found.method == "lines":
        # Models often run their reasoning straight into an unheaded list of answers.
        alt = _find_items(explained, n, labels, sources, from_section=False)
        if alt.method != "lines" or not region.strip():
            outside, region, found, borrowed = region, explained, alt, True
    leftover = _clean_explanation("\n".join((outside, region[: found.start], region[found.end :])))
    if found.explanation:
        explanation = found.explanation
    elif borrowed:
        explanation = leftover or explained
    else:
        explanation = explained or leftover
    n_found = len(found.items) if found.n_found is None else found.n_found
    return Extraction((found.items + [""] * n)[:n], explanation.strip(), n_found, found.method)


def _heading(line: str) -> tuple[str, bool, str] | None:
    """Return (kind, is_final, inline rest) when the line opens a section, else None."""
    stripped = line.strip()
    is_markdown = bool(_MD_HEADING.match(stripped))
    text = _strip_emphasis(stripped.lstrip("#")).strip()
    final = bool(re.search(r"\bfinal\b", text, re.I))
    match = _HEADING_LINE.match(text)
    if match:
        kind = _keyword_kind(_KEYWORD.match(match.group("kw")))
        return kind, final, (match.group("rest") or "").strip()
    keyword = _KEYWORD.search(text)
    if is_markdown:
        return (_keyword_kind(keyword), final, "") if keyword else ("other", False, "")
    # "Here are my answers:" opens a section; "Translation of item 16:" does not.
    intro = text.endswith((":", "：")) and len(text.split()) <= 10
    if keyword and intro and not re.search(r"\d", text):
        return _keyword_kind(keyword), final, ""
    return None


def _keyword_kind(match: re.Match[str] | None) -> str:
    """Return the section kind a heading keyword names."""
    return "answer" if match and match.group("answer") else "explain"


def _split_sections(text: str) -> list[_Section]:
    """Cut the text into sections at heading lines outside code fences."""
    sections = [_Section("other", False, [])]
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        head = None if in_fence else _heading(line)
        if head is None:
            sections[-1].lines.append(line.rstrip())
            continue
        kind, final, rest = head
        sections.append(_Section(kind, final, [rest] if rest else []))
    return sections


def _pick_answer_section(sections: list[_Section]) -> _Section | None:
    """Return the last non-empty answer section, preferring one headed "final"."""
    answers = [s for s in sections if s.kind == "answer" and s.body]
    finals = [s for s in answers if s.final]
    return (finals or answers or [None])[-1]


def _query_items(query: str, n: int) -> tuple[list[str], list[str]]:
    """Return the labels and source texts of the query's first run of n labelled lines."""
    if not query:
        return [], []
    items = [i for i in _list_items(_content_lines(query)) if i.label is not None]
    for run in _runs(items):
        if len(run) == n:
            return [i.label or "" for i in run], [i.body for i in run]
    return [], []


def _find_items(
    region: str, n: int, labels: list[str], sources: list[str], from_section: bool
) -> _Found:
    """Find the answer items in a region, trying the strategies from strictest to loosest."""
    found = _find_json(region, n)
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


def _load_json(text: str, strict: bool = False) -> object:
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


def _value_items(value: object) -> tuple[list[str], str] | None:
    """Return (items, explanation) from a decoded list or answers object, else None."""
    if isinstance(value, list):
        return _strings(value), ""
    if not isinstance(value, dict):
        return None
    fields = {str(k).casefold(): v for k, v in value.items()}
    explanation = next((fields[k] for k in _EXPLAIN_KEYS if isinstance(fields.get(k), str)), "")
    for key in _ANSWER_KEYS:
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
    value = _value_items(_load_json(region.strip()))
    if value is not None:
        return _Found(value[0], "json", 0, len(region), value[1])
    fenced = [
        (m, v)
        for m in _FENCE_BLOCK.finditer(region)
        if (v := _value_items(_load_json(m.group(1).strip()))) is not None
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
        if tries >= _MAX_EMBEDDED_TRIES:
            break
        if match.start() < resume:
            continue
        try:
            value, end = decoder.raw_decode(region, match.start())
        except (ValueError, RecursionError):
            continue
        parsed = _value_items(value)
        # A bracketed "[1]" in prose is not an answer list: demand n items (strings if n is 1).
        plausible = isinstance(value, list) and len(value) == n
        plausible = plausible and (n > 1 or all(isinstance(v, str) for v in value))
        if parsed is not None and (isinstance(value, dict) or plausible):
            best = _Found(parsed[0], "json", match.start(), end, parsed[1])
            resume = end
    return best


def _content_lines(region: str) -> list[_Line]:
    """Return the region's non-blank lines, minus fences and headings, with offsets."""
    lines: list[_Line] = []
    position = para = 0
    gap = False
    block_start: int | None = None  # a table header joins the block of its first row
    for raw in region.split("\n"):
        start, position = position, position + len(raw) + 1
        stripped = raw.strip()
        if not stripped or _FENCE.match(stripped) or _MD_HEADING.match(stripped):
            gap = True
            continue
        if _TABLE_RULE.match(stripped):
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
    if text.startswith("|") and text.endswith("|") and len(text) > 1:
        cells = [cell.strip() for cell in text.strip("|").split("|")]
        label = _strip_emphasis(cells[0]).strip(" .)(")
        # A table row: "| 16 | source | answer |" answers in its last cell.
        if len(cells) > 1 and label and _valid_label(label):
            return label, _strip_emphasis(cells[-1]).strip()
        return None, _strip_emphasis(cells[-1]).strip()
    bullet = _BULLET.match(text)
    if bullet:
        text = text[bullet.end() :]
    text = _strip_emphasis(text).strip()
    match = _LABELLED.match(text)
    if match:
        label = match.group("p") or match.group("d") or match.group("w")
        if _valid_label(label):
            return label, match.group("body").strip()
    return (None, text) if bullet else None


def _valid_label(label: str) -> bool:
    """Tell whether a label looks like an item label (3, b, BB, iv), not a word."""
    if label.isdigit() or len(label) == 1:
        return True
    if label.isupper() and len(label) == 2 and label[0] == label[1]:
        return True
    return (label.islower() or label.isupper()) and bool(_ROMAN.match(label.lower()))


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
            body, end = _strip_emphasis(lines[index].text), lines[index].end
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
        _clean_item(chosen[k].body, s) if k in chosen else ""
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
    answers = [
        _clean_item(item.body, sources[i] if i < len(sources) else "")
        for i, item in enumerate(best)
    ]
    return _Found(answers, "numbered", best[0].start, best[-1].end)


def _plain_lines(region: str, n: int, sources: list[str], from_section: bool) -> _Found:
    """Take the region's lines as items (one paragraph for a single-item task)."""
    method = "answer_section" if from_section else "lines"
    lines = _content_lines(region)
    if n == 1:
        kept = [line for line in lines if not _CHATTER.match(line.text)] or lines
        text = "\n".join(_strip_emphasis(line.text).strip() for line in kept)
        return _Found([text] if text else [], method, 0, len(region))
    kept = [line for line in lines if not line.text.endswith((":", "："))]
    if len(kept) > n:
        kept = [line for line in kept if not _CHATTER.match(line.text)]
    kept = _fit_paragraphs(kept, n)
    if not kept:
        return _Found([], method, 0, len(region))
    answers = []
    for i, line in enumerate(kept[:n]):  # cleaning items beyond n is wasted work
        parsed = _parse_list_line(line.text)
        body = parsed[1] if parsed else line.text
        answers.append(_clean_item(body, sources[i] if i < len(sources) else ""))
    return _Found(answers, method, kept[0].start, kept[-1].end, n_found=len(kept))


def _fit_paragraphs(lines: list[_Line], n: int) -> list[_Line]:
    """Return the leading or trailing whole paragraphs holding exactly n lines, if any."""
    if len(lines) <= n:
        return lines
    for ordered in (lines, lines[::-1]):
        taken: list[_Line] = []
        for line in ordered:
            if taken and len(taken) >= n and line.para != taken[-1].para:
                break
            taken.append(line)
        if len(taken) == n:
            return taken if ordered is lines else taken[::-1]
    return lines


def _strip_emphasis(text: str) -> str:
    """Remove markdown bold, italics and inline-code backticks, keeping their text."""
    text = _CODE.sub(r"\1", text)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2) or "", text)
    return text.replace("**", "")


def _clean_item(text: str, source: str = "") -> str:
    """Return an answer item without emphasis and without an echoed source item or arrow."""
    text = _strip_emphasis(text).strip()
    gloss = _TRAILING_GLOSS.search(text)
    if source and gloss and gloss.start() > 0 and _same_source(gloss.group(1), source):
        text = text[: gloss.start()].rstrip()
    if source:
        # An echo is about as long as its source: look no further, longest echo first.
        nearby = _SEPARATOR.finditer(text, 0, 2 * len(source) + 10)
        for match in reversed(list(nearby)):
            rest = text[match.end() :].strip()
            if match.start() > 0 and rest and _same_source(text[: match.start()], source):
                return rest
    arrow = _ARROW.search(text)
    if arrow and arrow.start() > 0 and text[arrow.end() :].strip():
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
    text = re.sub(r"[\[\]\"'“”‘’«»]", "", _strip_emphasis(text))
    return re.sub(r"\s+", " ", text).strip().casefold().rstrip(".,;:!?").strip()


def _clean_explanation(text: str) -> str:
    """Return leftover text without fences, chatter lines or runs of blank lines."""
    lines = [
        line.rstrip()
        for line in text.split("\n")
        if not (_FENCE.match(line) or _CHATTER.match(line.strip()) or _RULE.match(line.strip()))
    ]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
