"""Knowledge probes (issue 12, item 6): accuracy per model and probe type, and how probe
accuracy goes with the automatic score across models. Pure: no Django.

A figure that cannot be given is None and a sentence (`note`) says why: fewer than
MIN_MODELS models with both figures, or a column that is constant (no correlation exists).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ioleval.inference import correlation_tests
from ioleval.wording import p_method_text

from .words import counted

ALL = "all probes"  # the probe type of the overall row, over every probe of a model
MIN_MODELS = 3


@dataclass(frozen=True)
class Accuracy:
    """How many probe items a model answered under one probe type, and how many correctly."""

    model: str
    probe_type: str
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


@dataclass(frozen=True)
class ProbeCorrelation:
    """Pearson and Spearman (with two-sided p-values and the methods that gave them:
    `ioleval.inference`, exact permutation up to 10 models) of probe accuracy against the
    automatic score, across the `n` models that have both; figures None with `note` when not
    given."""

    probe_type: str
    n: int
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    note: str | None = None
    pearson_p_method: str | None = None
    spearman_p_method: str | None = None


def accuracies(counts: Iterable[tuple[str, str, int, int]]) -> list[Accuracy]:
    """Turn (model, probe_type, n, correct) counts into rows per model and probe type (a
    type given twice adds up), plus one row per model over every probe type (probe type
    ALL). Sorted by model, then probe type, ALL last."""
    tally: dict[tuple[str, str], list[int]] = {}
    for model, probe_type, n, correct in counts:
        for key in ((model, probe_type), (model, ALL)):
            pair = tally.setdefault(key, [0, 0])
            pair[0] += n
            pair[1] += correct
    return sorted(
        (Accuracy(model, probe_type, n, c) for (model, probe_type), (n, c) in tally.items()),
        key=lambda a: (a.model, a.probe_type == ALL, a.probe_type),
    )


def probe_types(table: Iterable[Accuracy]) -> list[str]:
    """Return the probe types of a table in sorted order, ALL last (when present)."""
    found = {a.probe_type for a in table}
    return sorted(found - {ALL}) + ([ALL] if ALL in found else [])


def correlate(
    pairs: Iterable[tuple[float | None, float | None]], *, probe_type: str = ALL
) -> ProbeCorrelation:
    """Pearson and Spearman of (accuracy, score) pairs; a pair missing either is left out."""
    kept = [
        (float(x), float(y))
        for x, y in pairs
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    n = len(kept)
    if n < MIN_MODELS:
        return ProbeCorrelation(
            probe_type,
            n,
            note=f"Not computed: {counted(n, 'model')} with both a probe accuracy and an automatic "
            f"score; at least {MIN_MODELS} are needed.",
        )
    xs, ys = [x for x, _ in kept], [y for _, y in kept]
    constant = [
        name
        for name, col in (("probe accuracy", xs), ("automatic score", ys))
        if len(set(col)) == 1
    ]
    if constant:
        return ProbeCorrelation(
            probe_type,
            n,
            note=f"Not computed: the {' and the '.join(constant)} "
            f"{'is' if len(constant) == 1 else 'are'} the same for all {n} models, so nothing "
            "varies with it.",
        )
    tests = correlation_tests(xs, ys, ("pearson", "spearman"))
    pearson, spearman = tests["pearson"], tests["spearman"]
    return ProbeCorrelation(
        probe_type,
        n,
        pearson=pearson.statistic,
        pearson_p=pearson.p,
        spearman=spearman.statistic,
        spearman_p=spearman.p,
        pearson_p_method=pearson.method,
        spearman_p_method=spearman.method,
    )


def correlations(
    table: Iterable[Accuracy], scores: Mapping[str, float | None]
) -> list[ProbeCorrelation]:
    """Per probe type (ALL last), correlate the models' accuracy with `scores` (by model
    name; a model without a score is left out)."""
    table = list(table)
    return [
        correlate(
            ((a.accuracy, scores.get(a.model)) for a in table if a.probe_type == probe_type),
            probe_type=probe_type,
        )
        for probe_type in probe_types(table)
    ]


def sentence(c: ProbeCorrelation) -> str:
    """Say a correlation in words, or why it is not given."""
    if c.note:
        return f"{c.probe_type}: {c.note}"
    return (
        f"{c.probe_type}: across {c.n} models, Pearson r = {c.pearson:.3f} "
        f"({p_method_text(c.pearson_p, c.pearson_p_method)}), Spearman rho = "
        f"{c.spearman:.3f} ({p_method_text(c.spearman_p, c.spearman_p_method)})."
    )
