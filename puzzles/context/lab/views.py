"""The context lab's pages: the corpus of puzzles and one puzzle's analysis (organizers).

Organizers only, as every page of `puzzles`: chairs and jurors grade and resolve, they do
not need the lab (its results tables will name systems and models too).
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, HtmxHttpRequest, attachment
from ioleval.roles import organizer_required

from .exports import PUZZLE_TABLES, corpus_table, table_file
from .forms import AnalysisOptionsForm
from .pages import corpus_page, puzzle_page
from .selectors import puzzle_or_none

FORMATS = {"csv": "text/csv", "xlsx": XLSX}


def _options(request: HtmxHttpRequest) -> tuple[AnalysisOptionsForm, dict]:
    form = AnalysisOptionsForm(request.GET or None)
    return form, form.options()


def _download(table, fmt: str, stem: str) -> HttpResponse:
    return attachment(table_file(table, fmt, title=stem), f"{stem}.{fmt}", FORMATS[fmt])


@require_GET
@organizer_required
def context_corpus(request: HtmxHttpRequest) -> HttpResponse:
    form, options = _options(request)
    page = corpus_page(tokenizer=options["tokenizer"])
    return render(request, "puzzles/context/corpus.html", {"page": page, "form": form})


@require_GET
@organizer_required
def context_corpus_export(request: HtmxHttpRequest, fmt: str) -> HttpResponse:
    if fmt not in FORMATS:
        raise Http404("export formats: csv, xlsx")
    _, options = _options(request)
    page = corpus_page(tokenizer=options["tokenizer"], chart=False)
    return _download(corpus_table(page), fmt, f"context-corpus-{page.tokenizer}")


@require_GET
@organizer_required
def context_puzzle(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    puzzle = puzzle_or_none(slug)
    if puzzle is None:
        raise Http404("no such puzzle")
    form, options = _options(request)
    page = puzzle_page(puzzle, tokenizer=options["tokenizer"], k=options["k"])
    return render(
        request,
        "puzzles/context/puzzle.html",
        {"page": page, "form": form, "tables": list(PUZZLE_TABLES)},
    )


@require_GET
@organizer_required
def context_puzzle_export(
    request: HtmxHttpRequest, slug: str, table: str, fmt: str
) -> HttpResponse:
    puzzle = puzzle_or_none(slug)
    if puzzle is None or table not in PUZZLE_TABLES or fmt not in FORMATS:
        raise Http404(f"tables: {', '.join(PUZZLE_TABLES)}; formats: csv, xlsx")
    _, options = _options(request)
    page = puzzle_page(puzzle, tokenizer=options["tokenizer"], k=options["k"])
    stem = f"{puzzle.slug}-{table}-{page.tokenizer}"
    return _download(PUZZLE_TABLES[table](page), fmt, stem)
