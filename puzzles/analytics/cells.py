"""Cells of the analytics' CSV files that several imports read alike: a whole number (a run
index, a problem number), a seed, and how a bad cell is quoted in a refusal. Each refusal
names file, line and field."""

from __future__ import annotations

from ..errors import ImportFailure

# The largest whole number every database's integer fields hold (PositiveIntegerField,
# IntegerField): a larger one would fail in the database, not in the check.
MAX_INT = 2_147_483_647
_DIGITS_MAX = len(str(MAX_INT))


def shown(text: str | None, limit: int = 20) -> str:
    """The cell as a refusal quotes it: trimmed, and cut after `limit` characters."""
    value = (text or "").strip()
    return value if len(value) <= limit else value[:limit] + "…"


def natural(text: str | None, *, field: str, what: str, **where) -> int:
    """A whole number from 0 to MAX_INT, `what` (e.g. "a run index") naming it in a refusal."""
    raw = (text or "").strip()
    # ASCII digits only ("²" is a digit to str.isdigit, not to int), and the length first:
    # int() refuses texts of over 4,300 digits with an error of its own.
    if not (raw.isascii() and raw.isdigit()) or len(raw) > _DIGITS_MAX or int(raw) > MAX_INT:
        raise ImportFailure(
            f"{shown(raw)!r} is not {what} (a whole number from 0 to {MAX_INT})",
            **where,
            field=field,
        )
    return int(raw)


def run_index(text: str | None, *, field: str = "run", **where) -> int:
    """A run index: a whole number from 0 to MAX_INT."""
    return natural(text, field=field, what="a run index", **where)


def seed(text: str | None, **where) -> int | None:
    """A seed: empty (None) or a whole number from -MAX_INT to MAX_INT."""
    raw = (text or "").strip()
    if not raw:
        return None
    digits = raw[1:] if raw[0] in "+-" else raw
    if not (digits.isascii() and digits.isdigit()) or len(digits) > _DIGITS_MAX:
        value = None
    else:
        value = int(raw)
    if value is None or abs(value) > MAX_INT:
        raise ImportFailure(
            f"{shown(raw)!r} is not a seed (a whole number from -{MAX_INT} to {MAX_INT})",
            **where,
            field="seed",
        )
    return value
