"""Techniques (issue 12, item 5): adoption and the within-team effect of each technique the
organizers tagged runs with. Pure: no Django; plain `TaggedRun` facts in, dataclasses out.

The score is the one the caller gives each run: the selectors compute every figure twice,
on the private score (the IOL-AI paper's, known only for the runs scored on the private
board, mostly the selected ones) and on the public score (every scored run has one).

- Adoption: the teams with at least one scored run tagged with the technique, as a count
  and as a share of the teams with scored runs.
- Within-team effect: for each team with scored runs both with and without the technique,
  the mean public score of its runs with it minus the mean of its runs without it; the
  effect is the mean of these differences over those `n` teams, so that a team with many
  runs weighs no more than a team with few, and differences between teams (a strong team
  that happens to use a technique) cancel out.
- Its 95% interval: `scipy.stats.bootstrap` over the teams' differences (teams resampled
  with replacement; percentile by default, BCa on request; a fixed seed, so the page, the
  chart, the exports and the report agree). With fewer than two teams, or when every
  team's difference is the same (no spread: a bootstrap would give a zero-width interval),
  there is no interval, and a sentence (`note`) says why, as for the ablations.
- Its test: a sign-flip permutation test of the mean of the teams' differences (under "no
  effect" a team's difference is as likely negative as positive;
  `scipy.stats.permutation_test`, one sample, `permutation_type="samples"`): exact, every
  one of the 2^n sign patterns, while 2^n <= the resamples (n <= 13 at 10,000), else that
  many random patterns with the fixed seed. Given when at least two teams compare.
- Many techniques are tested at once: the p-values of one score's techniques are one family,
  adjusted by Holm's step-down procedure (`ioleval.multiplicity`: valid whatever the
  dependence between techniques sharing teams); a technique is flagged when its adjusted
  p-value is at most 0.05.

An effect is an association within teams, not proof of cause: a team may have turned a
technique on together with other changes.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

from ioleval.multiplicity import ALPHA, holm
from ioleval.wording import p_text

RESAMPLES = 10_000
SEED = 20260312
CONFIDENCE = 0.95
METHODS = ("percentile", "BCa")
MIN_TEAMS = 2


@dataclass(frozen=True)
class TaggedRun:
    """What the statistics need of one scored run: its team, index, public score and the
    names of the techniques it is tagged with."""

    team: str
    run: int
    score: float
    techniques: frozenset[str] = frozenset()


@dataclass(frozen=True)
class TeamDifference:
    """One team's mean score with the technique minus its mean without it."""

    team: str
    runs_with: int
    runs_without: int
    mean_with: float
    mean_without: float

    @property
    def difference(self) -> float:
        return self.mean_with - self.mean_without


@dataclass(frozen=True)
class TechniqueEffect:
    """A technique's adoption and its within-team effect. `effect` is None when no team has
    scored runs both with and without it; `low`/`high` are None when there is no interval;
    `note` says why in a sentence (empty when every figure is there)."""

    technique: str
    teams_using: int
    teams_scored: int
    runs_tagged: int
    differences: tuple[TeamDifference, ...]
    effect: float | None = None
    low: float | None = None
    high: float | None = None
    note: str = ""
    # The sign-flip test's p-value (None: fewer than two teams compare), how it was found,
    # and Holm's adjustment over the techniques of the same score.
    p: float | None = None
    p_method: str = ""
    p_adjusted: float | None = None

    @property
    def n(self) -> int:
        return len(self.differences)

    @property
    def flagged(self) -> bool:
        """Tell whether the Holm-adjusted p-value is at most 0.05."""
        return self.p_adjusted is not None and self.p_adjusted <= ALPHA

    @property
    def adoption(self) -> float | None:
        return self.teams_using / self.teams_scored if self.teams_scored else None

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None


def technique_effects(
    runs: Iterable[TaggedRun],
    *,
    techniques: Iterable[str] = (),
    resamples: int = RESAMPLES,
    method: str = "percentile",
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> list[TechniqueEffect]:
    """Return every technique's figures, in name order: those tagged on the runs, and the
    names in `techniques` too (a known technique on no scored run has zero adoption)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    facts = [r for r in runs if r.score is not None and math.isfinite(r.score)]
    by_team: dict[str, list[TaggedRun]] = defaultdict(list)
    for run in facts:
        by_team[run.team].append(run)
    names = sorted({*techniques, *(name for run in facts for name in run.techniques)}, key=_order)
    effects = [
        _effect(name, by_team, resamples=resamples, method=method, seed=seed, level=confidence)
        for name in names
    ]
    adjusted = holm([e.p for e in effects])
    return [replace(e, p_adjusted=a) for e, a in zip(effects, adjusted, strict=True)]


def within_team_differences(
    name: str, by_team: dict[str, list[TaggedRun]]
) -> tuple[TeamDifference, ...]:
    """Return, in team order, the differences of the teams with scored runs both with and
    without the technique."""
    out = []
    for team in sorted(by_team):
        with_ = [r.score for r in by_team[team] if name in r.techniques]
        without = [r.score for r in by_team[team] if name not in r.techniques]
        if with_ and without:
            out.append(
                TeamDifference(
                    team=team,
                    runs_with=len(with_),
                    runs_without=len(without),
                    mean_with=sum(with_) / len(with_),
                    mean_without=sum(without) / len(without),
                )
            )
    return tuple(out)


def bootstrap_interval(
    values: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    method: str = "percentile",
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float] | None:
    """Return the bootstrap interval of the mean of `values` (scipy.stats.bootstrap), or
    None when it cannot be given (fewer than two values, no spread at all, or scipy finds
    no interval)."""
    if len(values) < MIN_TEAMS:
        return None
    data = np.asarray(values, dtype=float)
    if np.ptp(data) == 0:
        # Every resample has the same mean: a zero-width "interval" would claim a certainty
        # the data do not give (and scipy's BCa would answer nan and warn).
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sps.DegenerateDataWarning)
        result = sps.bootstrap(
            (data,),
            np.mean,
            n_resamples=resamples,
            confidence_level=confidence,
            method=method,
            rng=np.random.default_rng(seed),
        )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return low, high


EXACT = "exact"
RANDOM = "random"


def sign_flip_test(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, str] | None:
    """Return the two-sided p-value of the mean of `values` against 0 by flipping signs, and
    "exact" (every sign pattern) or "random" (`resamples` random ones); None for fewer than
    two values."""
    if len(values) < MIN_TEAMS:
        return None
    data = np.asarray(values, dtype=float)
    result = sps.permutation_test(
        (data,),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return min(1.0, float(result.pvalue)), EXACT if 2 ** len(data) <= resamples else RANDOM


def _effect(
    name: str,
    by_team: dict[str, list[TaggedRun]],
    *,
    resamples: int,
    method: str,
    seed: int,
    level: float,
) -> TechniqueEffect:
    using = sum(any(name in r.techniques for r in team) for team in by_team.values())
    tagged = sum(name in r.techniques for team in by_team.values() for r in team)
    differences = within_team_differences(name, by_team)
    base = TechniqueEffect(
        technique=name,
        teams_using=using,
        teams_scored=len(by_team),
        runs_tagged=tagged,
        differences=differences,
    )
    n = len(differences)
    if n == 0:
        why = (
            "no scored run uses it"
            if not using
            else "no team has scored runs both with and without it"
        )
        return _with(base, note=f"No effect: {why}.")
    effect = sum(d.difference for d in differences) / n
    test = sign_flip_test([d.difference for d in differences], resamples=resamples, seed=seed)
    if test is not None:
        base = _with(base, p=test[0], p_method=test[1])
    if n < MIN_TEAMS:
        return _with(
            base,
            effect=effect,
            note="No interval: only one team has scored runs both with and without it "
            f"(a bootstrap over teams needs at least {MIN_TEAMS}).",
        )
    if len({round(d.difference, 12) for d in differences}) == 1:
        return _with(base, effect=effect, note=_NO_SPREAD.format(n=n))
    interval = bootstrap_interval(
        [d.difference for d in differences],
        resamples=resamples,
        method=method,
        seed=seed,
        confidence=level,
    )
    if interval is None:
        return _with(base, effect=effect, note="No interval: the bootstrap gave none.")
    note = ""
    if n < 5:
        note = f"Only {n} teams: the interval is rough."
    return _with(base, effect=effect, low=interval[0], high=interval[1], note=note)


_NO_SPREAD = (
    "No interval: all {n} teams' differences are the same, so resampling them has no spread "
    "to build one from."
)


def _order(name: str) -> tuple[str, str]:
    return name.casefold(), name


def _with(base: TechniqueEffect, **changes) -> TechniqueEffect:
    return replace(base, **changes)


def effect_sentence(effect: TechniqueEffect, *, score: str = "") -> str:
    """Say a technique's figures in plain words (`score`: which score, e.g. "private")."""
    share = effect.adoption
    used = (
        f"{effect.teams_using} of {effect.teams_scored} teams "
        f"({share * 100:.0f}%) used “{effect.technique}” on {effect.runs_tagged} scored "
        f"run{'' if effect.runs_tagged == 1 else 's'}"
        if share is not None
        else f"No team has scored runs, so nothing is known of “{effect.technique}”"
    )
    if effect.effect is None:
        return f"{used}. {effect.note}".strip()
    if effect.effect == 0:
        change = "the same as without it"
    else:
        direction = "higher" if effect.effect > 0 else "lower"
        change = f"{abs(effect.effect):.3f} {direction} than without it"
    plural = "s" if effect.n != 1 else ""
    on = f" on the {score} score" if score else ""
    text = (
        f"{used}. Within the {effect.n} team{plural} with scored runs both with and without "
        f"it, runs with it scored{on} on average {change}"
    )
    if effect.has_interval:
        text += f" (95% interval {effect.low:.3f} to {effect.high:.3f})"
    text += "."
    if effect.p is not None:
        text += (
            f" Sign-flip test {p_text(effect.p)} ({effect.p_method}), Holm-adjusted "
            f"{p_text(effect.p_adjusted)}: {'flagged' if effect.flagged else 'not flagged'}."
        )
    return f"{text} {effect.note}".strip()
