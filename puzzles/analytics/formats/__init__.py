"""Format failures (issue 12, item 3): which outputs fail the line format, before and
after extraction. Pure rules in ..stats.formats; here its reads and its heat map."""

from __future__ import annotations

from .charts import formats_page_chart, formats_pdf_charts
from .selectors import FormatsPage, format_cell_page, formats_page

__all__ = [
    "FormatsPage",
    "format_cell_page",
    "formats_page",
    "formats_page_chart",
    "formats_pdf_charts",
]
