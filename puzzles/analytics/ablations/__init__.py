"""Ablations (issue 12, item 7): what a model's score does when a condition of its runs
changes. Pure rule in ..stats.ablations; here its reads, its chart and its demo data."""

from __future__ import annotations

from .charts import ablations_page_chart
from .demo import ablations_demo_load
from .selectors import EXPORT_HEADER, AblationsPage, ablations_json, ablations_page

__all__ = [
    "AblationsPage",
    "EXPORT_HEADER",
    "ablations_demo_load",
    "ablations_json",
    "ablations_page",
    "ablations_page_chart",
]
