"""An assignment's question for each item, read from the lines of its query.

The one reading of "the item's line of the assignment": the grading page, the PDF papers,
the distinct answers and the answer key all show each item beside what it reads here."""

from __future__ import annotations

import re

# "1. kaimek", "BB. (his) son", "a) ...": an item's label at the start of a query line.
_ITEM_LINE = re.compile(r"^\s*([0-9]{1,3}|[A-Za-z]{1,3})[.)]\s+(\S.*?)\s*$")


def item_prompts(query: str, n_items: int) -> list[tuple[str, str]] | None:
    """Return (label, prompt) per item read from the query's lines, or None if they don't fit."""
    found = [(m[1], m[2]) for line in query.splitlines() if (m := _ITEM_LINE.match(line))]
    return found if n_items and len(found) == n_items else None
