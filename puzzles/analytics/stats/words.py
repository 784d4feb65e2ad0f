"""How the analytics' sentences write a count (shared by their modules); a p-value is
written by ioleval.wording."""

from __future__ import annotations


def counted(n: int, word: str) -> str:
    """ "no run", "1 run", "3 runs"."""
    return {0: f"no {word}", 1: f"1 {word}"}.get(n, f"{n} {word}s")
