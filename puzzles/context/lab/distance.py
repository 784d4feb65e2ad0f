"""A question's deletion distance: the smallest set of examples whose deletion damages it,
searched over the examples' bitmasks (bit j-1 for example j); pure, no Django.

The definitions are `analysis.py`'s; the search is a smallest hitting set, exponential in a
question's accepted answers at worst, and stops after DISTANCE_SEARCH_WORK.
"""

from __future__ import annotations

from collections.abc import Iterable

# A question's deletion distance is a smallest hitting set, exponential in its accepted
# answers at worst: its search stops after this much work (token masks looked at) and gives
# the smallest set found as an upper bound. Real questions (a few answers of a few words)
# need a few dozen; 10 accepted answers of 2 words, each word in 2 examples, a few hundred.
DISTANCE_SEARCH_WORK = 1_000


def mask_of(indices: Iterable[int]) -> int:
    """Return the bitmask of examples (from 1): bit j-1 for example j."""
    mask = 0
    for j in indices:
        mask |= 1 << (j - 1)
    return mask


def indices_of(mask: int) -> tuple[int, ...]:
    """Return the examples (from 1) of a bitmask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return tuple(out)


def lost(alternatives: tuple[tuple[int, ...], ...], gone: int) -> bool:
    """Tell whether every alternative loses a token: all its examples are deleted."""
    if not alternatives:
        return False
    return all(any(m & ~gone == 0 for m in alt) for alt in alternatives)


def smallest_damaging_set(
    alternatives: tuple[tuple[int, ...], ...], *, work: int = DISTANCE_SEARCH_WORK
) -> tuple[tuple[int, ...] | None, bool]:
    """Return the smallest set of examples whose deletion damages the question (None if no
    deletion can), and whether it is exact.

    Damaging it means choosing, for every alternative, one required token and deleting all
    the examples holding it: the answer is the smallest union of one token mask per
    alternative. A depth-first search over the alternatives, keeping per alternative only
    its minimal masks (a superset of another mask never helps), pruning a partial union
    when even a lower bound of what the rest adds (below) leaves it no smaller than the
    best found. Ties go to the first found, with masks tried by size, then by the lower
    highest example. After `work` (masks looked at) it stops: the best found so far, or if
    none yet the first mask of each alternative, is an upper bound (exact False).

    The lower bound: an alternative left adds at least as many examples as its mask with
    the fewest outside the union, and alternatives whose masks reach pairwise disjoint
    examples add disjoint ones: a greedy packing of such alternatives sums their least.
    """
    if not alternatives or any(not alt for alt in alternatives):
        return None, True
    options = []
    for alt in alternatives:
        unique = sorted(set(alt), key=lambda m: (m.bit_count(), m))
        minimal = [m for m in unique if not any(o != m and o & m == o for o in unique)]
        options.append(minimal)
    if len(options) == 1:
        return indices_of(options[0][0]), True
    options.sort(key=len)
    reach = [0] * len(options)  # the examples each alternative's masks reach
    for a, masks in enumerate(options):
        for m in masks:
            reach[a] |= m
    # What a step at each depth costs: the masks the bound looks at, and one.
    cost = [1 + sum(len(masks) for masks in options[depth:]) for depth in range(len(options))]
    best: int | None = None
    left = work
    stopped = False

    def more(depth: int, union: int) -> int:
        """A lower bound on the examples alternatives depth.. add to the union."""
        taken = needed = 0
        for a in range(depth, len(options)):
            new = reach[a] & ~union
            if new & taken == 0:
                least = min((m & ~union).bit_count() for m in options[a])
                if least:
                    needed += least
                    taken |= new
        return needed

    def search(depth: int, union: int) -> None:
        nonlocal best, left, stopped
        if best is not None and union.bit_count() + more(depth, union) >= best.bit_count():
            return
        if depth == len(options):
            best = union
            return
        if left <= 0:
            stopped = True
            return
        left -= cost[depth]
        for m in options[depth]:
            search(depth + 1, union | m)

    search(0, 0)
    exact = not stopped
    if best is None:  # stopped before any complete choice: the first masks are one
        best = 0
        for masks in options:
            best |= masks[0]
    return indices_of(best), exact
