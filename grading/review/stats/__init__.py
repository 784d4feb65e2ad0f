"""Statistics of the result review as pure computation: plain data in, frozen dataclasses out.

No Django here: selectors build the inputs, pages, the JSON report and the PDF read the
results. Every figure that cannot be given is None beside a `note` in plain English."""

from __future__ import annotations

from .agreement import (
    DiscrepancyRate,
    Icc,
    Ratings,
    Reliability,
    coincidence_matrix,
    discrepancy_rate,
    icc,
    icc_2k,
    krippendorff_alpha_interval,
    reliabilities,
)
from .correlation import (
    DIFFICULTY_MARGIN,
    Columns,
    Correlation,
    CriterionDifficulty,
    CriterionGap,
    competition_ranks,
    correlate,
    correlations,
    criterion_difficulty,
    spread,
)
from .explanations import ExplanationScreen, explanation_screen
from .placement import MEDALS, Placement, medal, placement, placements
from .severity import JurorEffect, effect_sentence, juror_effects, juror_effects_of_many

__all__ = [
    "DIFFICULTY_MARGIN",
    "MEDALS",
    "Columns",
    "Correlation",
    "CriterionDifficulty",
    "CriterionGap",
    "DiscrepancyRate",
    "ExplanationScreen",
    "Icc",
    "JurorEffect",
    "Placement",
    "Ratings",
    "Reliability",
    "coincidence_matrix",
    "competition_ranks",
    "correlate",
    "correlations",
    "criterion_difficulty",
    "discrepancy_rate",
    "effect_sentence",
    "explanation_screen",
    "icc",
    "icc_2k",
    "juror_effects",
    "juror_effects_of_many",
    "krippendorff_alpha_interval",
    "medal",
    "placement",
    "placements",
    "reliabilities",
    "spread",
]
