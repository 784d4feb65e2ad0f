"""Techniques (issue 12, item 5): which techniques the teams' runs used, and the effect of
each within a team. Pure rule in ..stats.techniques; here its tags (the one write), reads,
chart and demo data."""

from __future__ import annotations

from .charts import techniques_page_chart
from .demo import techniques_demo_load
from .forms import REMOVE, TagForm, TagsImportForm
from .selectors import EXPORT_HEADER, teams_with_runs, techniques_json, techniques_page
from .services import runs_tag, runs_untag, tags_add, tags_import, technique_name, techniques_prune

__all__ = [
    "EXPORT_HEADER",
    "REMOVE",
    "TagForm",
    "TagsImportForm",
    "runs_tag",
    "runs_untag",
    "tags_add",
    "tags_import",
    "teams_with_runs",
    "technique_name",
    "techniques_demo_load",
    "techniques_json",
    "techniques_page",
    "techniques_page_chart",
    "techniques_prune",
]
