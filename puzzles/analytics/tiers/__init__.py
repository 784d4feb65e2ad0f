"""Tiers (issue 12, item 2): the board's scores by system tier. Pure rule in ..stats.tiers;
here its read and its chart."""

from __future__ import annotations

from .charts import tier_strips
from .selectors import EXPORT_HEADER, tiers_page

__all__ = [
    "EXPORT_HEADER",
    "tier_strips",
    "tiers_page",
]
