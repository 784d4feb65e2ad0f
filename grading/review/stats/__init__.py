"""Statistics of the result review as pure computation: plain data in, frozen dataclasses out.

No Django here: selectors build the inputs, pages, the JSON report and the PDF read the
results. Every figure that cannot be given is None beside a `note` in plain English."""

from __future__ import annotations

from .agreement import (
    DEVIATION_MARGIN,
    DiscrepancyRate,
    RaterDeviation,
    Reliability,
    coincidence_matrix,
    deviation_sentence,
    discrepancy_rate,
    icc_2k,
    krippendorff_alpha_interval,
    rater_deviation,
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

__all__ = [
    "DEVIATION_MARGIN",
    "DIFFICULTY_MARGIN",
    "MEDALS",
    "Columns",
    "Correlation",
    "CriterionDifficulty",
    "CriterionGap",
    "DiscrepancyRate",
    "ExplanationScreen",
    "Placement",
    "RaterDeviation",
    "Reliability",
    "coincidence_matrix",
    "competition_ranks",
    "correlate",
    "correlations",
    "criterion_difficulty",
    "deviation_sentence",
    "discrepancy_rate",
    "explanation_screen",
    "icc_2k",
    "krippendorff_alpha_interval",
    "medal",
    "placement",
    "placements",
    "rater_deviation",
    "reliabilities",
    "spread",
]
