"""The oracle ensemble (issue 12, item 4): pure rule in ..stats.oracle; here its reads, its
one write, its page and exports."""

from __future__ import annotations

from .charts import oracle_chart
from .demo import oracle_demo_load
from .forms import OracleForm
from .selectors import (
    CompetitionFigures,
    competition_figures,
    oracle_page,
    oracle_table,
    saved_oracles,
)
from .services import oracle_create

__all__ = [
    "CompetitionFigures",
    "OracleForm",
    "competition_figures",
    "oracle_chart",
    "oracle_create",
    "oracle_demo_load",
    "oracle_page",
    "oracle_table",
    "saved_oracles",
]
