"""Deletion variants of a Rosetta Stone puzzle: which example each condition removes.

Pure computation: plain inputs, frozen dataclasses out, no Django. Example indices are
1-based throughout, as the puzzle numbers its examples.

Conditions:

- `original`: every example kept.
- `random`: one example deleted uniformly at random. The generator is seeded with the
  string `f"{seed}:{puzzle_slug}"`, so a puzzle's choice is reproducible and does not
  depend on which other puzzles are drawn, nor in what order. (`random.Random` hashes a
  string seed with SHA-512, so it does not depend on PYTHONHASHSEED either.)
- `targeted`: the ECC-targeted deletion, the example with the largest question damage
  score D_Q(j); ties broken by the larger base damage score D(j), then by the lower index.
  On a robust puzzle (every D_Q(j) = 0) this is the example with the most singleton tokens.
- `no_context`: every example deleted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

CONDITIONS = ("original", "random", "targeted", "no_context")
DELETIONS = ("random", "targeted")
DEFAULT_SEED = 2026


@dataclass(frozen=True)
class Variant:
    """One condition of a puzzle: the example it deletes (1-based, or None) and those it keeps."""

    condition: str
    deleted: int | None
    kept: tuple[int, ...]


def random_deletion(n_examples: int, *, puzzle_slug: str, seed: int | str = DEFAULT_SEED) -> int:
    """Return the 1-based index of the example the `random` condition deletes."""
    _check_count(n_examples)
    return random.Random(f"{seed}:{puzzle_slug}").randrange(n_examples) + 1


def targeted_deletion(d: Sequence[int], dq: Sequence[int]) -> int:
    """Return the 1-based index of the example with the largest D_Q (then D, then lowest index)."""
    _check_scores(d, dq)
    best = min(range(len(d)), key=lambda j: (-dq[j], -d[j], j))
    return best + 1


def variant(condition: str, n_examples: int, deleted: int | None = None) -> Variant:
    """Return the Variant of `condition`, deleting `deleted` (1-based) for a one-example deletion."""
    _check_count(n_examples)
    everything = tuple(range(1, n_examples + 1))
    if condition not in CONDITIONS:
        raise ValueError(
            f"unknown condition {condition!r}; expected one of {', '.join(CONDITIONS)}"
        )
    if condition in DELETIONS:
        if deleted is None or not 1 <= deleted <= n_examples:
            raise ValueError(
                f"condition {condition!r} needs a deleted example between 1 and {n_examples}, "
                f"got {deleted!r}"
            )
        return Variant(condition, deleted, tuple(j for j in everything if j != deleted))
    if deleted is not None:
        raise ValueError(f"condition {condition!r} deletes no single example, got {deleted!r}")
    if condition == "original":
        return Variant(condition, None, everything)
    return Variant(condition, None, ())


def puzzle_variants(
    d: Sequence[int],
    dq: Sequence[int],
    *,
    puzzle_slug: str,
    seed: int | str = DEFAULT_SEED,
) -> tuple[Variant, ...]:
    """Return the four variants of a puzzle (in CONDITIONS order) from its D(j) and D_Q(j) lists.

    `d[j - 1]` and `dq[j - 1]` are the scores of example j; their length is the number of
    examples."""
    _check_scores(d, dq)
    n = len(d)
    return (
        variant("original", n),
        variant("random", n, random_deletion(n, puzzle_slug=puzzle_slug, seed=seed)),
        variant("targeted", n, targeted_deletion(d, dq)),
        variant("no_context", n),
    )


def _check_count(n_examples: int) -> None:
    if n_examples < 1:
        raise ValueError(f"a puzzle needs at least one example to delete from, got {n_examples}")


def _check_scores(d: Sequence[int], dq: Sequence[int]) -> None:
    if len(d) != len(dq):
        raise ValueError(f"D and D_Q must list the same examples, got {len(d)} and {len(dq)}")
    _check_count(len(d))
