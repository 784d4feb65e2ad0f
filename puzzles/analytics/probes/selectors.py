"""The knowledge probes page: accuracy per model and probe type, the correlation with the
automatic score and the export table, in a constant number of queries (one for the
probes, the four of `system_auto_scores`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from ...models import Competition, ProbeResult
from ...selectors import system_auto_scores
from ..stats.probes import Accuracy, ProbeCorrelation, accuracies, correlations, probe_types

EXPORT_HEADER = ["model", "system", "automatic_score", "probe_type", "n", "correct", "accuracy"]


@dataclass(frozen=True)
class ProbeModelRow:
    """One model's line of the table: its automatic score (None without a system of that
    name or without figures) and its accuracy under each probe type of the page (None where
    it answered none)."""

    model: str
    system: bool
    score: float | None
    cells: list[Accuracy | None]


@dataclass(frozen=True)
class ProbesPage:
    competition: Competition
    probe_types: list[str]
    rows: list[ProbeModelRow]
    correlations: list[ProbeCorrelation]

    @property
    def points(self) -> list[tuple[str, float, float]]:
        """(model, accuracy over all probes, automatic score) of the models with both."""
        return [
            (r.model, r.cells[-1].accuracy, r.score)
            for r in self.rows
            if r.score is not None and r.cells and r.cells[-1] is not None
        ]

    def export_rows(self) -> list[list[object]]:
        return [
            [
                r.model,
                "yes" if r.system else "no",
                r.score,
                cell.probe_type,
                cell.n,
                cell.correct,
                cell.accuracy,
            ]
            for r in self.rows
            for cell in r.cells
            if cell is not None
        ]


def probes_page(competition: Competition) -> ProbesPage:
    counted = (
        ProbeResult.objects.filter(competition=competition)
        .values_list("model", "probe_type", "system_id")
        .annotate(n=Count("pk"), right=Count("pk", filter=Q(correct=True)))
        .order_by()
    )
    counts, system_of = [], {}
    for model, probe_type, system_id, n, right in counted:
        counts.append((model, probe_type, n, right))
        if system_id is not None:
            system_of[model] = system_id
    table = accuracies(counts)
    score_of = {}
    if system_of:
        score_of = {
            s.system_id: s.overall.score for s in system_auto_scores(competition) if s.overall
        }
    scores = {model: score_of.get(pk) for model, pk in system_of.items()}
    types = probe_types(table)
    cell = {(a.model, a.probe_type): a for a in table}
    models = sorted({a.model for a in table})
    rows = [
        ProbeModelRow(
            model=m,
            system=m in system_of,
            score=scores.get(m),
            cells=[cell.get((m, t)) for t in types],
        )
        for m in models
    ]
    return ProbesPage(competition, types, rows, correlations(table, scores))
