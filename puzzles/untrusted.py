"""Checks on decoded input before it reaches the database: text no column can hold, deep JSON.

PostgreSQL's text and jsonb refuse a NUL character (U+0000), and a lone surrogate
(U+D800-U+DFFF, which JSON's \\ud800 escape decodes to) is not text in any encoding;
SQLite would store both. JSON nested past Python's recursion limit makes json.loads raise
RecursionError, which is not a ValueError. Every reader of untrusted files goes through
these checks, so such input is refused with a message naming the file, line and field.
"""

from __future__ import annotations

import json
import math
import re

from .errors import ImportFailure

# Deeper than any file we read (a rubric nests four levels) and far below the recursion
# limit that storing or printing a nested value would hit.
MAX_JSON_DEPTH = 64
MAX_DIGITS = 100  # of an integer: no count, rank or score in our files comes near

_SURROGATE = re.compile("[\ud800-\udfff]")
_BAD = re.compile("[\x00\ud800-\udfff]")
_JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_CONTAINERS = frozenset({list, dict})
# The escapes JSON text needs to decode to a NUL or a surrogate (or a false alarm such as
# "\\u0000", a backslash and u0000, or a well-formed pair).
_BAD_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def text_problem(text: str) -> str | None:
    """Return what in the text no database column can hold, or None."""
    if "\x00" in text:
        return "a NUL character (U+0000), which the database cannot store as text"
    found = _SURROGATE.search(text)
    if found:
        return f"a lone surrogate (U+{ord(found.group()):04X}), half of a character, not text"
    return None


def text_check(text: str, *, file: str = "", line: int | None = None, field: str = "") -> str:
    """Return the text, or raise ImportFailure if it holds a NUL or a lone surrogate."""
    problem = text_problem(text)
    if problem:
        raise ImportFailure(f"{problem}; remove it", file=file, line=line, field=field)
    return text


def value_check(
    value: object,
    *,
    file: str = "",
    line: int | None = None,
    field: str = "",
    source: str = "",
) -> None:
    """Check every string (keys too) of decoded JSON, and its depth; name a bad one by its path.

    The path is the field: `[3].pred` is the third element's "pred" (counted from 1, as
    the other messages count rows). With the JSON `source`, a bad string's line is found
    from its escape in the text.
    """
    stack: list[tuple[object, str, int]] = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()  # depth: the containers around the item
        if depth >= MAX_JSON_DEPTH and isinstance(item, list | dict):
            raise ImportFailure(
                f"JSON nested more than {MAX_JSON_DEPTH} levels deep", file=file, line=line
            )
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                raise ImportFailure(
                    f"{problem}; remove it",
                    file=file,
                    line=_escape_line(source, line),
                    field=path,
                )
        elif isinstance(item, dict):
            for key, element in reversed(item.items()):
                # A bad key stays escaped in the path, so the message itself is text.
                shown = _BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", key)
                inner = f"{path}.{shown}" if path else shown
                stack.append((element, inner, depth + 1))
                stack.append((key, inner, depth + 1))
        elif isinstance(item, list):
            for index in range(len(item), 0, -1):
                stack.append((item[index - 1], f"{path}[{index}]", depth + 1))


def json_parse(text: str, *, file: str = "", line: int | None = None, field: str = "") -> object:
    """Decode untrusted JSON, or raise ImportFailure naming the file, line and field.

    `line` is the line the text starts on (a JSONL record's); without it, a file's lines
    count from 1.
    """
    first = 1 if line is None else line
    try:
        value = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, parse_int=_integer
        )
    except json.JSONDecodeError as exc:
        raise ImportFailure(
            f"malformed JSON ({exc.msg}, column {exc.colno})",
            file=file,
            line=first + exc.lineno - 1,
            field=field,
        ) from None
    except ValueError as exc:  # a number JSON allows but Python or the database does not
        raise ImportFailure(f"malformed JSON ({exc})", file=file, line=line, field=field) from None
    except RecursionError:
        raise ImportFailure(
            f"JSON nested more than {MAX_JSON_DEPTH} levels deep", file=file, line=line, field=field
        ) from None
    # Checking every string in Python costs ten times the parse: walk the value only when
    # the text could decode to a bad character or nest too deeply (a false alarm passes).
    if _BAD_ESCAPE.search(text) or _has_surrogate(text) or _nests_deeper(text, value):
        value_check(value, file=file, line=line, field=field, source=text)
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")  # C speed; only a surrogate fails
    except UnicodeEncodeError:
        return True
    return False


def _nests_deeper(text: str, value: object) -> bool:
    """Tell whether the decoded JSON nests lists and objects more than MAX_JSON_DEPTH deep."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return False
    stack = [(value, 1)]  # containers, with how many levels they make
    while stack:
        item, levels = stack.pop()
        if levels > MAX_JSON_DEPTH:
            return True
        for inner in item.values() if type(item) is dict else item:
            if type(inner) in _CONTAINERS:  # what json.loads makes: no subclasses
                stack.append((inner, levels + 1))
    return False


def _no_constant(name: str) -> object:
    # Python reads NaN and Infinity, which are not JSON and which jsonb refuses.
    raise ValueError(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text) > MAX_DIGITS:  # int() refuses past 4300 digits, with advice for coders
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is too large a number")
    return value


def _escape_line(source: str, line: int | None) -> int | None:
    """Return the line of the first escape in JSON text that decodes to a bad character."""
    if not source:
        return line
    high: re.Match | None = None  # a high surrogate escape waiting for its low half
    bad = None
    for match in _JSON_ESCAPE.finditer(source):
        code = int(match.group(1)[1:], 16) if len(match.group(1)) == 5 else None
        if high is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF and match.start() == high.end():
                high = None
                continue
            bad = high
            break
        if code == 0 or (code is not None and 0xDC00 <= code <= 0xDFFF):
            bad = match
            break
        if code is not None and 0xD800 <= code <= 0xDBFF:
            high = match
    bad = bad or high or _SURROGATE.search(source)
    if bad is None:
        return line
    return (1 if line is None else line) + source.count("\n", 0, bad.start())
