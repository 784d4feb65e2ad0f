"""The context lab's tables as rows for CSV and XLSX (text neutralized: ioleval.spreadsheet)."""

from __future__ import annotations

from collections.abc import Callable

from ioleval.spreadsheet import csv_text, xlsx_bytes

from .pages import CorpusPage, PuzzlePage

Table = tuple[list[str], list[list]]


def _ids(values) -> str:
    return " ".join(str(v) for v in values)


def examples_table(page: PuzzlePage) -> Table:
    header = ["index", "foreign", "english", "d", "dq", "singletons", "damaged_questions"]
    rows = [
        [
            e.index,
            " / ".join(e.foreign),
            e.english,
            e.d,
            e.dq,
            _ids(e.singletons),
            _ids(e.damaged_questions),
        ]
        for e in page.examples
    ]
    return header, rows


def questions_table(page: PuzzlePage) -> Table:
    header = [
        "question",
        "direction",
        "required",
        "absent",
        "damaged_by",
        "distance",
        "distance_examples",
        "distance_exact",
    ]
    rows = [
        [
            q.id,
            q.direction,
            " / ".join(_ids(alt) for alt in q.required),
            _ids(q.absent),
            _ids(q.damaged_by),
            "" if q.distance is None else q.distance,
            _ids(q.distance_examples),
            int(q.distance_exact),
        ]
        for q in page.questions
    ]
    return header, rows


def coverage_table(page: PuzzlePage) -> Table:
    """F[i][j] with one column per example, then whether singleton and who needs it."""
    n = page.analysis.n_examples
    header = ["token", *(f"e{j}" for j in range(1, n + 1)), "singleton", "questions"]
    rows = [
        [t.token, *(1 if c else 0 for c in t.cells), int(t.singleton), _ids(t.questions)]
        for t in page.tokens
    ]
    return header, rows


def deletions_table(page: PuzzlePage) -> Table:
    header = [
        "k",
        "greedy_deleted",
        "greedy_damage",
        "optimum_deleted",
        "optimum_damage",
        "subsets",
        "gap",
    ]
    rows = []
    for line in page.deletions:
        best = line.optimum.best
        rows.append(
            [
                line.k,
                _ids(line.greedy.deleted),
                line.greedy.damage,
                "" if best is None else _ids(best.deleted),
                "" if best is None else best.damage,
                line.optimum.combinations,
                "" if line.gap is None else line.gap,
            ]
        )
    return header, rows


PUZZLE_TABLES: dict[str, Callable[[PuzzlePage], Table]] = {
    "examples": examples_table,
    "questions": questions_table,
    "coverage": coverage_table,
    "deletions": deletions_table,
}


def corpus_table(page: CorpusPage) -> Table:
    header = [
        "puzzle",
        "title",
        "language",
        "examples",
        "questions",
        "tokens",
        "singletons",
        "fragile",
        "max_dq",
        "smallest_distance",
        "distances_exact",
    ]
    rows = [
        [
            line.slug,
            line.title,
            line.language,
            line.n_examples,
            line.n_questions,
            line.n_tokens,
            line.singletons,
            int(line.fragile),
            line.max_dq,
            "" if line.smallest_distance is None else line.smallest_distance,
            int(line.distances_exact),
        ]
        for line in page.lines
    ]
    return header, rows


def table_file(table: Table, fmt: str, *, title: str) -> bytes | str:
    """Render a table as CSV text or XLSX bytes."""
    if fmt == "xlsx":
        return xlsx_bytes(*table, title=title, freeze_panes="B2")
    return csv_text(*table)
