"""The assertion the extraction tests share: what one reply gives."""

from __future__ import annotations

from puzzles.extraction import Extraction, extract_answer


def check(text, n, items, explanation=None, method=None, query="", n_found=None) -> Extraction:
    """Assert the items (and, when given, explanation, method and count found) of a reply."""
    result = extract_answer(text, n, query)
    assert result.items == items
    if explanation is not None:
        assert result.explanation == explanation
    if method is not None:
        assert result.method == method
    if n_found is not None:
        assert result.n_items_found == n_found
    return result
