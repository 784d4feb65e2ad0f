"""The context lab's results pages and their exports, for organizers (they name models)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, HtmxHttpRequest, attachment
from ioleval.roles import organizer_required
from ioleval.spreadsheet import csv_text, xlsx_bytes

from .forms import ResultsOptionsForm
from .pages import context_results_page
from .selectors import context_results
from .tables import EXPORT_FORMATS, TABLES, result_table, result_table_filename


@require_GET
@organizer_required
def results(request: HtmxHttpRequest) -> HttpResponse:
    """Table 1, the paired tests and the mean EM chart."""
    form = ResultsOptionsForm(request.GET or None)
    page = context_results_page(**form.options())
    context = {"page": page, "results": page.results, "form": form}
    return render(request, "puzzles/context/results/results.html", context)


@require_GET
@organizer_required
def judges(request: HtmxHttpRequest) -> HttpResponse:
    """Table 2 and the contradiction lists (Tables 7 and 8)."""
    form = ResultsOptionsForm(request.GET or None)
    page = context_results_page(**form.options(), with_chart=False)
    context = {"page": page, "results": page.results, "form": form}
    return render(request, "puzzles/context/results/judges.html", context)


@require_GET
@organizer_required
def results_export(request: HtmxHttpRequest, table: str, fmt: str) -> HttpResponse:
    """One table (result_tables.TABLES) as CSV or XLSX; any other name is a 404."""
    if table not in TABLES or fmt not in EXPORT_FORMATS:
        raise Http404(f"tables: {', '.join(TABLES)}; formats: {', '.join(EXPORT_FORMATS)}")
    found = context_results(**ResultsOptionsForm(request.GET or None).options())
    header, rows = result_table(found, table)
    name = result_table_filename(found, table, fmt)
    if fmt == "csv":
        return attachment(csv_text(header, rows), name, "text/csv; charset=utf-8")
    return attachment(
        xlsx_bytes(header, rows, title=TABLES[table][0], freeze_panes="A2"), name, XLSX
    )
