"""Juror agreement per problem and criterion: discrepant cells before consensus, Krippendorff's
alpha, ICC(A,k) and ICC(A,1), and each juror's severity (issue 8, item 8; issue 20, part 4).

A cell is one criterion of one paper. Every figure rests on the jurors' marks *as submitted*:
a juror's independent verdict, before discussion moved it (a revision after submitting is
recorded in the mark's history, and agreement measured on revised marks would only measure
the consensus). Drafts never count: a juror's unsubmitted marks are private. Jurors are named,
so this is for organizers and the chair only; the caller checks the role.

A problem's figures pool its criteria on marks as a share of each criterion's maximum (points /
maximum), so that a 10-point criterion does not outweigh a 1-point one and the figures measure
the jurors rather than how the criteria's scales differ; a criterion's own figures are on its
points (alpha and ICC do not change when one criterion's marks are divided by its maximum).
Every interval resamples papers, each with all its cells (SCALE and RESAMPLING say so).
"""

from .queries import problem_agreement
from .results import (
    ICC_METHOD,
    MAX_RESAMPLES,
    MC_TARGET,
    RESAMPLING,
    SCALE,
    SEVERITY_METHOD,
    CriterionAgreement,
    JurorAgreement,
    ProblemAgreement,
    display_name,
)

__all__ = [
    "ICC_METHOD",
    "MAX_RESAMPLES",
    "MC_TARGET",
    "RESAMPLING",
    "SCALE",
    "SEVERITY_METHOD",
    "CriterionAgreement",
    "JurorAgreement",
    "ProblemAgreement",
    "display_name",
    "problem_agreement",
]
