"""Tiers (issue 12, item 2; the paper's Figure 1): the distribution of leaderboard scores by
tier. Pure: no Django.

The stated order of tiers (TIER_ORDER) follows the paper: baselines, challenge submissions,
open models, proprietary (frontier) models; then ensembles and "other"; then any other tier
the data has, in alphabetical order. ioleval stores one tier for open models, so the paper's
open mid-size and open large tiers are one row here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

TIER_ORDER = ("baseline", "challenge", "open", "frontier", "ensemble", "other")


@dataclass(frozen=True)
class TierStats:
    """The scores (0-1) of the `n` systems of one tier and their summary figures."""

    tier: str
    n: int
    median: float
    mean: float
    minimum: float
    maximum: float
    scores: tuple[float, ...]


def tier_key(tier: str) -> tuple[int, str]:
    """Return a tier's sort key: its place in TIER_ORDER, unknown tiers after, by name."""
    if tier in TIER_ORDER:
        return (TIER_ORDER.index(tier), "")
    return (len(TIER_ORDER), tier)


def median(values: Iterable[float]) -> float:
    """Return the middle value, or the mean of the two middle values; 0.0 for no values."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return 0.0
    middle = n // 2
    if n % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def tier_stats(scores: Iterable[tuple[str, float]]) -> list[TierStats]:
    """Summarize (tier, score) pairs per tier, in the stated tier order; a tier without a
    system has no row."""
    by_tier: dict[str, list[float]] = {}
    for tier, score in scores:
        by_tier.setdefault(tier, []).append(float(score))
    return [
        TierStats(
            tier=tier,
            n=len(values),
            median=median(values),
            mean=sum(values) / len(values),
            minimum=min(values),
            maximum=max(values),
            scores=tuple(sorted(values)),
        )
        for tier, values in sorted(by_tier.items(), key=lambda item: tier_key(item[0]))
    ]
