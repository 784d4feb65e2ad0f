"""Knowledge probes (issue 12, item 6): what the models know of a problem's language, and
how it goes with their scores. Pure rule in ..stats.probes; here its import, reads, chart
and demo data."""

from __future__ import annotations

from .charts import probes_scatter
from .demo import PROBE_ONLY_MODEL, probes_demo_load
from .forms import ProbesImportForm
from .imports import probes_import
from .selectors import EXPORT_HEADER, probes_page

__all__ = [
    "EXPORT_HEADER",
    "PROBE_ONLY_MODEL",
    "ProbesImportForm",
    "probes_demo_load",
    "probes_import",
    "probes_page",
    "probes_scatter",
]
