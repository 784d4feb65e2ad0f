"""Cells of the analytics' CSV files that several imports read alike: a run index and a seed,
beside the cells every importer reads (ioleval.cells: a whole number, how a bad cell is
quoted in a refusal). Each refusal names file, line and field."""

from __future__ import annotations

from ioleval.cells import DIGITS_MAX, MAX_INT, natural, shown

from ..errors import ImportFailure

__all__ = ["MAX_INT", "natural", "run_index", "seed", "shown"]


def run_index(text: str | None, *, field: str = "run", **where) -> int:
    """A run index: a whole number from 0 to MAX_INT."""
    return natural(text, field=field, what="a run index", **where)


def seed(text: str | None, **where) -> int | None:
    """A seed: empty (None) or a whole number from -MAX_INT to MAX_INT."""
    raw = (text or "").strip()
    if not raw:
        return None
    digits = raw[1:] if raw[0] in "+-" else raw
    if not (digits.isascii() and digits.isdigit()) or len(digits) > DIGITS_MAX:
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
