"""What the agreement of a problem is made of: its figures as frozen dataclasses, each able to
say itself as JSON, and the sentences that name the methods."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..stats import DiscrepancyRate, Reliability

Interval = tuple[float, float]
Cell = tuple[int, int]  # (paper id, criterion id)

# An interval's ends are drawn again with more resamples while their Monte-Carlo error could
# move the second decimal the pages print (few papers: cheap, and there it is largest).
MC_TARGET = 0.005
MAX_RESAMPLES = 100_000

SCALE = (
    "Problem figures pool the criteria on marks as a share of each criterion's maximum; "
    "a criterion's figures are on its points."
)
RESAMPLING = (
    "Intervals are 95% bootstrap intervals that resample papers, each with all its cells "
    "(a cluster bootstrap): none with fewer than 5 papers; with 5 to 10, the exact bootstrap "
    "distribution over every distinct resample; otherwise percentiles of random resamples, "
    "with the Monte-Carlo error of their ends, and more resamples (up to 100,000) where that "
    "error exceeds 0.005."
)
ICC_METHOD = (
    "ICC(A,k) = ICC(2,k) is the reliability of the mean of k jurors' marks; ICC(A,1) = ICC(2,1) "
    "that of one juror's mark (two-way random effects, absolute agreement; McGraw & Wong 1996)."
)
SEVERITY_METHOD = (
    "Juror severity: a two-way additive model, mark = cell effect + juror effect, fitted by "
    "least squares to the marks as submitted (shares of each criterion's maximum), on the cells "
    "two or more jurors marked; effects are against the average juror of a group linked by "
    "shared papers, or, in a group of two, the difference between them, the only thing the data "
    "identify; intervals resample papers."
)


@dataclass(frozen=True)
class JurorAgreement:
    """One juror's severity (stats.severity.JurorEffect), named and worded."""

    name: str
    kind: str  # "group", "pair" or "alone" (stats.severity)
    peers: tuple[str, ...]
    effect: float | None  # share of a criterion's maximum, + more lenient
    ci: Interval | None
    cells: int  # cells shared with another juror
    papers: int
    sentence: str  # without a subject: "marks 0.040 of a criterion's maximum above ..."
    method: str | None = None  # how the interval was drawn

    @property
    def n(self) -> int:
        return self.cells

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "peers": list(self.peers),
            "effect": self.effect,
            "effect_ci": _pair(self.ci),
            "effect_scale": "share of a criterion's maximum",
            "cells": self.cells,
            "papers": self.papers,
            "sentence": self.sentence,
            "method": self.method,
        }


@dataclass(frozen=True)
class CriterionAgreement:
    """The agreement figures of one criterion code of a problem."""

    code: str
    discrepancy_rate: float | None
    discrepant: int
    compared: int
    alpha: float | None
    alpha_ci: Interval | None
    n_cells: int  # cells with at least two submitted marks (alpha's units)
    icc: float | None = None
    icc_ci: Interval | None = None
    resamples: int = 0  # bootstrap resamples behind the intervals (distinct ones when exact)
    note: str | None = None
    maximum: float | None = None
    exact: bool = False  # the exact bootstrap distribution (few papers)
    mc_error: float | None = None  # Monte-Carlo error of the alpha interval's ends
    method: str | None = None  # how the alpha interval was drawn
    icc_single: float | None = None  # ICC(A,1), with icc when asked
    icc_single_ci: Interval | None = None

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "maximum": self.maximum,
            "scale": "points",
            "discrepancy_rate": self.discrepancy_rate,
            "discrepant": self.discrepant,
            "compared": self.compared,
            "alpha": self.alpha,
            "alpha_ci": _pair(self.alpha_ci),
            "icc": self.icc,
            "icc_ci": _pair(self.icc_ci),
            "icc_single": self.icc_single,
            "icc_single_ci": _pair(self.icc_single_ci),
            "n_cells": self.n_cells,
            "resamples": self.resamples,
            "resampling_unit": "paper",
            "exact": self.exact,
            "mc_error": self.mc_error,
            "method": self.method,
            "note": self.note,
        }


@dataclass(frozen=True)
class ProblemAgreement:
    """A problem's juror agreement; `note` says what the figures rest on and what is missing."""

    problem: int  # the problem's number
    title: str
    finalized: bool
    tolerance: Decimal
    discrepancy: DiscrepancyRate
    alpha: Reliability  # on shares of each criterion's maximum, intervals over papers
    icc: Reliability  # ICC(A,k) = ICC(2,k), on the same shares
    k: int  # juror slots per cell in the ICC
    jurors: tuple[JurorAgreement, ...]
    criteria: tuple[CriterionAgreement, ...]
    cells: int  # papers x criteria
    revised: int  # submitted marks changed since (revisions after discussion)
    note: str | None
    icc_single: Reliability | None = None  # ICC(A,1) = ICC(2,1): one juror's mark
    scale: str = SCALE
    resampling: str = RESAMPLING

    @property
    def provisional(self) -> bool:
        return not self.finalized

    @property
    def discrepancy_rate(self) -> float | None:
        return self.discrepancy.rate

    @property
    def criterion_notes(self) -> list[tuple[str, str]]:
        """Return (code, note) of each criterion with something to say (e.g. why no interval)."""
        return [(c.code, c.note) for c in self.criteria if c.note]

    def as_json(self) -> dict:
        return {
            "problem": self.problem,
            "title": self.title,
            "provisional": self.provisional,
            "tolerance": float(self.tolerance),
            "alpha": self.alpha.value,
            "alpha_ci": _pair(self.alpha.ci),
            "icc": self.icc.value,
            "icc_ci": _pair(self.icc.ci),
            "icc_k": self.k,
            "icc_single": self.icc_single.value if self.icc_single else None,
            "icc_single_ci": _pair(self.icc_single.ci) if self.icc_single else None,
            "icc_method": ICC_METHOD,
            "scale": self.scale,
            "resampling_unit": "paper",
            "resampling": self.resampling,
            "papers": self.alpha.clusters,
            "resamples": self.alpha.resamples,
            "exact": self.alpha.exact,
            "alpha_mc_error": self.alpha.mc_error,
            "alpha_interval_method": self.alpha.method,
            "icc_interval_method": self.icc.method,
            "alpha_note": self.alpha.note,
            "icc_note": self.icc.note,
            "severity_method": SEVERITY_METHOD,
            "discrepancy_rate": self.discrepancy.rate,
            "discrepant": self.discrepancy.discrepant,
            "compared": self.discrepancy.compared,
            "cells": self.cells,
            "revised": self.revised,
            "jurors": [j.as_json() for j in self.jurors],
            "criteria": [c.as_json() for c in self.criteria],
            "note": self.note,
        }


def _pair(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [interval[0], interval[1]]


def display_name(first: str, last: str, username: str) -> str:
    """Return what User.get_full_name() would, or the username when that is empty."""
    return f"{first} {last}".strip() or username


# --- the data ------------------------------------------------------------------------------------
