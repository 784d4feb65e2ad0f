"""The context lab's results pages: one selector per page, one dataclass the template reads."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from .charts import mean_em_bars
from .selectors import ContextResults, context_results
from .tables import TABLES


@dataclass(frozen=True)
class ContextResultsPage:
    """What models and judges did, read with one seed and tokenizer.

    `query`: those options as a query string, for the export links; `chart`: the mean EM
    chart as inline SVG (None on the judges page); `tables`: (name, label) of the exports."""

    results: ContextResults
    query: str
    chart: str | None
    tables: tuple[tuple[str, str], ...]

    @property
    def unsolvable_variants(self) -> int:
        return sum(label.unsolvable for label in self.results.labels)


def context_results_page(
    *, seed: int, tokenizer: str, with_chart: bool = True
) -> ContextResultsPage:
    """Return every puzzle's results (Table 1, paired tests, judges) and, if asked, the chart."""
    results = context_results(seed=seed, tokenizer=tokenizer)
    return ContextResultsPage(
        results=results,
        query=urlencode({"seed": seed, "tokenizer": tokenizer}),
        chart=mean_em_bars(results.summaries) if with_chart else None,
        tables=tuple((name, label) for name, (label, _) in TABLES.items()),
    )
