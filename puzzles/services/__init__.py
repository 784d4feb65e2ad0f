"""Writes to the problem set: imports, scoring, answer-key amendments."""

from .amendments import AmendmentReport, answer_key_amend
from .competitions import competition_names_save
from .external_scores import ScoresImport, fraction_parse, system_scores_import
from .imports import ImportSummary, outputs_import_csv, outputs_import_jsonl
from .iolai import competition_import_iolai, competition_import_iolai_archive
from .scoring import competition_rescore, output_prepare

__all__ = [
    "AmendmentReport",
    "ImportSummary",
    "ScoresImport",
    "answer_key_amend",
    "competition_import_iolai",
    "competition_import_iolai_archive",
    "competition_names_save",
    "competition_rescore",
    "fraction_parse",
    "output_prepare",
    "outputs_import_csv",
    "outputs_import_jsonl",
    "system_scores_import",
]
