"""The cells that imported files hold, read one way by every importer: a number, a whole
number, a yes/no, a date and time, and a bad cell as a refusal quotes it.

Each reader takes the cell's text (None for a short row) and where it is (`file`, `line`),
and raises ImportFailure naming file, line and field; it never sends a long cell back whole
(`shown`). An importer whose refusals are its own app's error type re-raises them as such.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from .errors import ImportFailure

# The largest whole number every database's integer fields hold (PositiveIntegerField,
# IntegerField): a larger one would fail in the database, not in the check.
MAX_INT = 2_147_483_647
DIGITS_MAX = len(str(MAX_INT))

TRUE = frozenset({"1", "true", "yes"})
FALSE = frozenset({"0", "false", "no"})


def shown(text: str | None, limit: int = 20) -> str:
    """Return the cell as a refusal quotes it: trimmed, and cut after `limit` characters."""
    value = (text or "").strip()
    return value if len(value) <= limit else value[:limit] + "…"


def natural(text: str | None, *, field: str, what: str, **where) -> int:
    """Return a whole number from 0 to MAX_INT, `what` (e.g. "a run index") naming it in a
    refusal."""
    raw = (text or "").strip()
    # ASCII digits only ("²" is a digit to str.isdigit, not to int), and the length first:
    # int() refuses texts of over 4,300 digits with an error of its own.
    if not (raw.isascii() and raw.isdigit()) or len(raw) > DIGITS_MAX or int(raw) > MAX_INT:
        raise ImportFailure(
            f"{shown(raw)!r} is not {what} (a whole number from 0 to {MAX_INT})",
            **where,
            field=field,
        )
    return int(raw)


def number(text: str | None, *, field: str, **where) -> float | None:
    """Return a finite number, None for an empty cell."""
    raw = (text or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ImportFailure(f"{shown(raw)!r} is not a number", **where, field=field)
    return value


def boolean(text: str | None, *, field: str, empty: bool | None = None, **where) -> bool:
    """Return yes or no from 1/0, true/false or yes/no (any letter case); an empty cell is
    `empty`, refused when it is None."""
    value = (text or "").strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    if not value and empty is not None:
        return empty
    raise ImportFailure(
        f"{shown(text)!r} is not a boolean (use 1/0, true/false or yes/no)", **where, field=field
    )


def moment(text: str | None, *, field: str, **where) -> datetime:
    """Return an ISO 8601 date and time; one without a time zone is in UTC."""
    raw = (text or "").strip()
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ImportFailure(
            f"{shown(raw)!r} is not an ISO 8601 date and time (e.g. 2026-03-01T14:05:00Z)",
            **where,
            field=field,
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)
