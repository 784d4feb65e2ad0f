"""Runs (issue 12, item 1): every submission of a team, its failures, the selection of the
scored run. Pure rules in ..stats.runs and ..stats.scores; here its imports (runs, and the
outputs of a run), reads, chart and demo data."""

from __future__ import annotations

from .charts import runs_page_chart
from .demo import runs_demo_load
from .forms import RunOutputsImportForm, RunsImportForm
from .imports import runs_import
from .output_imports import run_output_scored, run_outputs_import, run_outputs_replace
from .scores import run_outputs, task_refs
from .selectors import EXPORT_HEADER, runs_page

__all__ = [
    "EXPORT_HEADER",
    "RunOutputsImportForm",
    "RunsImportForm",
    "run_output_scored",
    "run_outputs",
    "run_outputs_import",
    "run_outputs_replace",
    "runs_demo_load",
    "runs_import",
    "runs_page",
    "runs_page_chart",
    "task_refs",
]
