"""Untrusted model text made safe for pages and PDFs: markdown in, allowlisted HTML out.

Model text is also made cheap. Python-Markdown is superlinear on some inputs (a run of `[`
is quadratic, a list nested a few hundred levels deep exhausts the stack) and WeasyPrint on
others (an unbreakable 20,000-character word, hundreds of nested boxes). So before any
markdown runs, a text is cut to a size and a number of lines, its list and quote nesting is
flattened beyond a depth, and the forward scans of Python-Markdown's link, code and HTML
patterns are estimated in one linear pass, with a coarser backstop (markup characters times
the length of their block); a text over either budget, or whose HTML would nest too deep or
hold too many elements for WeasyPrint, is shown as escaped plain text instead. The full text stays downloadable
(`paper_text`), and benchmarks/untrusted_text.py measures the worst cases.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

import markdown
import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# Structure only: no links, images, forms, styles, classes or ids. Markdown passes raw
# HTML through, so this allowlist, not the markdown step, is what keeps model text inert.
ALLOWED_TAGS = frozenset(
    {
        "p",
        "br",
        "b",
        "i",
        "hr",
        "em",
        "strong",
        "code",
        "pre",
        "ul",
        "ol",
        "li",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "dl",
        "dt",
        "dd",
        "sup",
        "sub",
        "del",
    }
)
# Dropped together with everything inside them, not just unwrapped.
DROPPED_WITH_CONTENT = frozenset({"script", "style", "title", "template", "noscript"})
MARKDOWN_EXTENSIONS = ["extra", "sane_lists"]

# The bounds (figures in benchmarks/HISTORY.md). The longest of the 644 explanations of the
# IOL-AI 2026 submissions has 2,975 characters and 104 lines.
EXPLANATION_LIMIT = 10_000  # characters shown of an explanation
LINE_LIMIT = 250  # lines shown of an explanation
ANSWER_LIMIT = 2_000  # characters shown of one answer item
NESTING_LIMIT = 8  # list and quote levels a line may open
HTML_DEPTH_LIMIT = 32  # element depth of an explanation's HTML
ELEMENT_LIMIT = 400  # elements of an explanation's HTML (the IOL-AI maximum: 163)
# Estimated characters that Python-Markdown's bracket, code and HTML patterns scan forward.
SCAN_BUDGET = 100_000
# Markup characters times the length of their block, summed over blocks: a backstop for
# superlinear paths that the estimate above does not follow. The IOL-AI maximum: 207,752.
MARKUP_BUDGET = 8_000_000
# PDFs: an unbreakable run longer than this gets a break opportunity every BREAK_EVERY.
BREAK_EVERY = 32
ZERO_WIDTH_SPACE = "\u200b"
# Whitespace to Python (\s) that gives no line break (Unicode line breaking class GL, and
# the word joiners): a run of them and letters is one unbreakable word to WeasyPrint.
NO_BREAK = "\u00a0\u2007\u202f\u2060\ufeff"
# Where a run of combining marks longer than BREAK_EVERY is broken, the marks after the
# break need a base to stand on (after a bare break WeasyPrint still measures them as one
# cluster): a no-break space, invisible.
MARK_BASE = "\u00a0"

_VOID_TAGS = frozenset({"br", "hr"})
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
# A line's container prefix: indentation, quote markers and list markers, one char a step.
_PREFIX = re.compile(r"(?:[ \t]|>|[-*+](?=[ \t])|[0-9]{1,9}[.)](?=[ \t]))*")
_PREFIX_TOKEN = re.compile(r"[ \t]|>|[-*+]|[0-9]{1,9}[.)]")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_BACKTICKS = re.compile(r"`+")
_MARKUP = re.compile(r"[`\[\]<>!*_\\]")
_ESCAPABLE = frozenset("\\`*_{}[]()>#+-.!:|")
_LONG_RUN = re.compile(rf"(?:[^\s<>]|[{NO_BREAK}]){{{2 * BREAK_EVERY},}}")
_LONG_WORD = re.compile(rf"(?:\S|[{NO_BREAK}]){{{2 * BREAK_EVERY},}}")
_HTML_UNIT = re.compile(r"&#?[A-Za-z0-9]{1,32};|[^&]|&")


@dataclass(frozen=True)
class Shown:
    """The part of an untrusted text that is shown, and the length of the whole."""

    text: str
    length: int

    @property
    def truncated(self) -> bool:
        return len(self.text) < self.length


def shown_part(text: str, *, limit: int, line_limit: int | None = None) -> Shown:
    """Return the first `limit` characters (and at most `line_limit` lines) of the text."""
    part = text[:limit]
    if line_limit is not None:
        end = -1
        for _ in range(line_limit):
            end = part.find("\n", end + 1)
            if end < 0:
                break
        if end >= 0:
            part = part[:end]
    return Shown(part, len(text))


def truncation_note(what: str, length: int) -> SafeString:
    """Return the note shown under a cut text: what it is and how long the whole is."""
    return mark_safe(  # noqa: S308 -- a fixed sentence and an int
        f'<p class="truncated"><em>{escape(what)} truncated ({int(length)} characters);'
        " full text in the download</em></p>"
    )


def explanation_html(text: str) -> SafeString:
    """Render a system's markdown explanation as sanitized HTML, bounded in size and cost."""
    if not text or not text.strip():
        return mark_safe("")
    shown = shown_part(text, limit=EXPLANATION_LIMIT, line_limit=LINE_LIMIT)
    html = _markdown_html(shown.text)
    if html is None:
        html = _plain_html(shown.text) + (
            '<p class="plain-text"><em>shown as plain text: its markup is too long or too'
            " complex to format</em></p>"
        )
    if shown.truncated:
        html += truncation_note("explanation", shown.length)
    return mark_safe(html)  # noqa: S308 -- nh3 allowlist, or escaped text


def answer_text(text: str) -> Shown:
    """Return the part of one answer item that pages and PDFs show."""
    return shown_part(text, limit=ANSWER_LIMIT)


def _markdown_html(text: str) -> str | None:
    """Return the sanitized HTML of the text's markdown, or None when it would cost too much."""
    source = flatten_nesting(text)
    if scan_cost(source) > SCAN_BUDGET or markup_load(source) > MARKUP_BUDGET:
        return None
    try:
        html = markdown.markdown(source, extensions=MARKDOWN_EXTENSIONS, output_format="html")
    except RecursionError:  # a shape the bounds above missed: still shown, as plain text
        return None
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={},
        url_schemes=set(),
        strip_comments=True,
        link_rel=None,
    )
    # Raw HTML passes through markdown: <ul><li> a thousand times over would reach
    # WeasyPrint, whose layout recurses once per level; and WeasyPrint's time grows with
    # the number of boxes (about half a millisecond each), so thousands of table rows or
    # emphasised words are shown as the text they were written as.
    if html_depth(cleaned) > HTML_DEPTH_LIMIT or html_elements(cleaned) > ELEMENT_LIMIT:
        return None
    return cleaned


def _plain_html(text: str) -> str:
    """Return the text escaped: a paragraph per blank-line-separated block, lines kept."""
    blocks = (block.strip("\n") for block in _BLANK_LINE.split(text.replace("\r\n", "\n")))
    return "".join(
        "<p>" + "<br>".join(escape(line) for line in block.split("\n")) + "</p>"
        for block in blocks
        if block.strip()
    )


def flatten_nesting(text: str) -> str:
    """Return the text with every line's list and quote markers beyond NESTING_LIMIT escaped.

    A line's depth is counted from its prefix: each `>` and each list marker opens a level,
    and so do every four columns of indentation at the start of the line or after a `>`
    (after a list marker, markdown takes the spaces as the marker's). Markers beyond the
    limit become literal text and the whitespace among them one space.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        prefix = _PREFIX.match(line)[0]
        if not prefix:
            continue
        levels = _prefix_levels(prefix)
        if levels[-1][1] > NESTING_LIMIT:
            lines[index] = _flattened(levels) + line[len(prefix) :]
    return "\n".join(lines)


def _prefix_levels(prefix: str) -> list[tuple[str, int]]:
    """Return the prefix's tokens, each with the nesting depth reached once it is read."""
    levels = []
    depth = columns = 0
    counting = True  # whitespace is indentation at the start and after `>`
    for token in _PREFIX_TOKEN.findall(prefix):
        if token in (" ", "\t"):
            if counting:
                columns += 4 - columns % 4 if token == "\t" else 1
            levels.append((token, depth + max(columns, 0) // 4))
            continue
        depth += max(columns, 0) // 4 + 1
        counting = token == ">"
        columns = -1 if counting else 0  # `>` takes one space as its own
        levels.append((token, depth))
    return levels


def _flattened(levels: list[tuple[str, int]]) -> str:
    kept: list[str] = []
    for token, depth in levels:
        if depth <= NESTING_LIMIT:
            kept.append(token)
        elif token in (" ", "\t"):
            if kept and kept[-1] != " ":
                kept.append(" ")
        else:  # `>`, `-`, `*`, `+`, `12.`, `12)`: escaped, they open nothing
            kept.append(token[:-1] + "\\" + token[-1])
    return "".join(kept)


def scan_cost(text: str) -> int:
    """Estimate how many characters Python-Markdown's inline patterns scan in the text.

    Its link patterns scan from each `[` (and each `](`) to the matching bracket, its code
    pattern from each backtick run to the next run as long, its HTML patterns from each `<`
    before a tag-like character to the next `>`; unmatched, to the end of the block; its HTML
    parser, at each comment, the rest of the block once per inline tag left open. Blocks end
    at blank lines. Linear in the text; a sum of n scans of up to n characters each.
    """
    return sum(_block_scan_cost(block) for block in _BLANK_LINE.split(text))


def _block_scan_cost(block: str) -> int:
    end = len(block)
    cost = 0
    brackets: list[int] = []
    parens: list[int] = []  # opened by `](`: a link's destination
    in_destination = 0  # parens open inside the destinations counted above
    closed_at = -2  # the last `]` that closed a bracket
    tags = 0  # HTML start tags not closed yet (about)
    next_gt = -1
    escaped = False
    for index, char in enumerate(block):
        if escaped:  # `\[`, `\]`, `\)`: escapes are replaced before the link patterns run
            escaped = False
        elif char == "\\":
            escaped = index + 1 < end and block[index + 1] in _ESCAPABLE
        elif char == "[":
            brackets.append(index)
        elif char == "]":
            if brackets:
                cost += index - brackets.pop()
                closed_at = index
        elif char == "(":
            if closed_at == index - 1:
                parens.append(index)
            elif parens:
                in_destination += 1
        elif char == ")" and parens:
            if in_destination:
                in_destination -= 1
            else:
                cost += index - parens.pop()
        elif (
            char == "<"
            and index + 1 < end
            and (block[index + 1].isalpha() or block[index + 1] in "/!?")
        ):
            if next_gt < index:
                found = block.find(">", index)
                next_gt = found if found >= 0 else end
            cost += next_gt - index
            if block[index + 1].isalpha():
                tags += 1
            elif block[index + 1] == "/":
                tags = max(0, tags - 1)
            elif block.startswith("!--", index + 1):
                # A comment makes the HTML parser search the rest of the block for the end
                # of every inline tag still open (a regex in C: a thousand times cheaper).
                cost += tags * (end - index) // 1024
    cost += sum(end - opened for opened in brackets) + sum(end - opened for opened in parens)
    return cost + _backtick_cost(block)


def markup_load(text: str) -> int:
    """Return the sum over blocks of (markup characters x block length).

    Python-Markdown's superlinear paths (scans to the end of a block from an opener) need
    many markup characters in a long block; prose with some emphasis stays far below.
    """
    return sum(len(block) * len(_MARKUP.findall(block)) for block in _BLANK_LINE.split(text))


def _backtick_cost(block: str) -> int:
    # A run after a backslash opens one backtick shorter, and only a whole run closes: in
    # "\``\``…" every span opens with one backtick and none closes.
    cost = 0
    following: dict[int, int] = {}  # run length -> start of the nearest later run as long
    for match in reversed(list(_BACKTICKS.finditer(block))):
        start, length = match.start(), len(match[0])
        opens = length - 1 if start and block[start - 1] == "\\" else length
        if opens:
            cost += following.get(opens, len(block)) - start
        following[length] = start
    return cost


def html_depth(html: str) -> int:
    """Return how deep the elements of well-formed HTML (as nh3 writes it) nest."""
    depth = deepest = 0
    for match in _TAG.finditer(html):
        if match[2].lower() in _VOID_TAGS:
            continue
        if match[1]:
            depth -= 1
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def html_elements(html: str) -> int:
    """Return how many elements HTML holds (its start tags)."""
    return sum(1 for match in _TAG.finditer(html) if not match[1])


def breakable_html(html: str) -> str:
    """Return HTML whose text runs without spaces get a zero-width space every BREAK_EVERY.

    WeasyPrint's time grows with the square of an unbreakable word's length (20,000
    characters: 9 s); a break opportunity every few dozen characters makes it linear.
    Character references such as `&amp;` are kept whole; see `breakable_text` for what a
    run is and where it is broken.
    """
    return _LONG_RUN.sub(lambda match: _broken(_HTML_UNIT.findall(match[0])), html)


def breakable_text(text: str) -> str:
    """Return plain text whose runs without spaces get a zero-width space every BREAK_EVERY.

    A run is what WeasyPrint cannot break: no space, or only no-break spaces (NO_BREAK,
    which Python counts as whitespace). It is broken between characters, never between a
    letter and its combining marks, unless those marks alone are longer than BREAK_EVERY.
    """
    return _LONG_WORD.sub(lambda match: _broken(list(match[0])), text)


def _broken(units: list[str]) -> str:
    """Join units (characters, or HTML character references) with a zero-width space once
    a chunk has BREAK_EVERY, at the start of the next cluster (a unit and its combining
    marks); a cluster longer than that is cut, its marks after each cut on MARK_BASE."""
    chunks: list[str] = []
    chunk: list[str] = []
    cluster = 0  # units of the cluster being read
    for unit in units:
        mark = len(unit) == 1 and unicodedata.category(unit).startswith("M")
        cluster = cluster + 1 if mark else 1
        if not mark and len(chunk) >= BREAK_EVERY:
            chunks.append("".join(chunk))
            chunk = []
        elif mark and cluster > BREAK_EVERY and cluster % BREAK_EVERY == 1:
            chunks.append("".join(chunk))
            chunk = [MARK_BASE]
        chunk.append(unit)
    chunks.append("".join(chunk))
    return ZERO_WIDTH_SPACE.join(chunks)


def points_text(value: Decimal | int | str | None) -> str:
    """Return points as written by hand: 3, 0.5, 10 (never 3.00 or 1E+1); "" for None."""
    if value is None or value == "":
        return ""
    return format(Decimal(str(value)).normalize(), "f")
