"""The context lab's result tables as header and rows, for CSV and XLSX. Pure: no Django.

Rows come from a `result_selectors.ContextResults`; numbers stay numbers (EM and rates on
0-1, p-values as computed) and a figure that cannot be given is an empty cell, its note in
the row's `note` column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .judges import Contradiction, JudgeAgreement
    from .selectors import ContextResults

Table = tuple[list[str], list[list[object]]]


def conditions_table(results: ContextResults) -> Table:
    """Table 1: one row per model and condition."""
    header = [
        "model",
        "condition",
        "puzzles",
        "mean_em",
        "puzzles_abstained",
        "mean_em_attempted",
        "puzzles_caused_abstention",
        "puzzles_answered_in_original",
        "questions_caused_abstention",
        "questions_answered_in_original",
        "note",
    ]
    rows = [
        [
            s.model,
            s.condition,
            s.n_puzzles,
            s.mean_em,
            s.puzzles_abstained,
            s.mean_em_attempted,
            s.puzzles_caused_abstention,
            s.puzzles_answered_in_original,
            s.questions_caused_abstention,
            s.questions_answered_in_original,
            s.note or "",
        ]
        for s in results.summaries
    ]
    return header, rows


def paired_tests_table(results: ContextResults) -> Table:
    """The original against each deletion, per model: Wilcoxon and exact McNemar."""
    header = [
        "model",
        "condition",
        "n_puzzles",
        "n_changed",
        "mean_em_original",
        "mean_em_variant",
        "wilcoxon_statistic",
        "wilcoxon_p",
        "wilcoxon_note",
        "n_questions",
        "lost",
        "gained",
        "mcnemar_p",
        "mcnemar_note",
    ]
    rows = [
        [
            t.model,
            t.condition,
            t.n_puzzles,
            t.n_changed,
            t.mean_em_original,
            t.mean_em_variant,
            t.wilcoxon_statistic,
            t.wilcoxon_p,
            t.wilcoxon_note or "",
            t.n_questions,
            t.lost,
            t.gained,
            t.mcnemar_p,
            t.mcnemar_note or "",
        ]
        for t in results.tests
    ]
    return header, rows


def _judges(rows: tuple[JudgeAgreement, ...]) -> Table:
    header = [
        "judge",
        "conditions",
        "n",
        "tp",
        "fp",
        "fn",
        "tn",
        "precision",
        "recall",
        "f1",
        "note",
    ]
    return header, [
        [
            a.judge,
            " ".join(a.conditions),
            a.n,
            a.tp,
            a.fp,
            a.fn,
            a.tn,
            a.precision,
            a.recall,
            a.f1,
            a.note or "",
        ]
        for a in rows
    ]


def judges_targeted_table(results: ContextResults) -> Table:
    """The paper's Table 2: each judge's verdicts on the targeted variant against fragility."""
    return _judges(results.agreement_targeted)


def judges_pooled_table(results: ContextResults) -> Table:
    """Ours, not the paper's Table 2: each judge's verdicts on every condition, pooled."""
    return _judges(results.agreement_pooled)


def _contradictions(rows: tuple[Contradiction, ...]) -> Table:
    header = ["judge", "model", "puzzle", "condition", "verdict", "em_original", "em_variant"]
    return header, [
        [c.judge, c.model, c.puzzle, c.condition, c.verdict, c.em_original, c.em_variant]
        for c in rows
    ]


def unsolvable_but_held_table(results: ContextResults) -> Table:
    """Table 7: variants a judge called unsolvable whose EM stayed equal or rose."""
    return _contradictions(results.contradictions.unsolvable_but_held)


def valid_but_fell_table(results: ContextResults) -> Table:
    """Table 8: variants a judge called valid whose EM fell."""
    return _contradictions(results.contradictions.valid_but_fell)


TABLES: dict[str, tuple[str, Callable[[ContextResults], Table]]] = {
    "conditions": ("Mean EM per model and condition", conditions_table),
    "paired-tests": ("Paired tests", paired_tests_table),
    "judges-targeted": ("Table 2 (targeted deletion)", judges_targeted_table),
    "judges-pooled": ("Judges, all variants pooled", judges_pooled_table),
    "unsolvable-but-held": ("Unsolvable but EM held", unsolvable_but_held_table),
    "valid-but-fell": ("Valid but EM fell", valid_but_fell_table),
}
EXPORT_FORMATS = ("csv", "xlsx")


def result_table(results: ContextResults, name: str) -> Table:
    """Return the header and rows of one of TABLES (KeyError for another name)."""
    return TABLES[name][1](results)


def result_table_filename(results: ContextResults, name: str, fmt: str) -> str:
    """Name the file after the table and the options its labels were made with."""
    return f"context-{name}-seed{results.seed}-{results.tokenizer}.{fmt}"
