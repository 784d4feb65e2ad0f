"""Runs and teams (issue 12, item 1): submission statistics and the selection check. Pure:
no Django; plain `RunFacts` in, dataclasses out.

The selection check asks, for each team, whether the run it selected for the private board
was its best: the best run by public score and by private score, and the private score the
team missed by its choice. The rank correlation compares the public and the private score
over all runs that have both (Spearman and Kendall, two-sided p-values); a figure that
cannot be given is None and a sentence (`note`) says why.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ioleval.inference import correlation_tests
from ioleval.wording import p_method_text

from .words import counted

SCORED = "scored"
FAILED = "failed"
MIN_RUNS = 3


@dataclass(frozen=True)
class RunFacts:
    """What the statistics need of one run."""

    team: str
    run: int
    submitted_at: datetime | None  # None: the submission time is not known (undated)
    status: str
    failure: str = ""
    public: float | None = None
    private: float | None = None
    selected: bool = False
    board_fallback: bool = False


@dataclass(frozen=True)
class TeamRuns:
    """A team's submissions: how many, how many were scored, and the failures by family."""

    team: str
    runs: int
    scored: int
    failures: dict[str, int]

    @property
    def success_rate(self) -> float:
        return self.scored / self.runs if self.runs else 0.0


@dataclass(frozen=True)
class DayCount:
    day: date
    scored: int
    failed: int

    @property
    def runs(self) -> int:
        return self.scored + self.failed


@dataclass(frozen=True)
class SelectionCheck:
    """A team's run on the private board against its best runs. That run is the one the team
    selected; a team that selected none is scored on its best public run (`fallback`), as the 2026 board did
    ("fallback-best-public"): the run marked `board_fallback` when the import knows it, else
    the best public. Indices and scores are None where the team has
    no such run (no scored run, no run with a private score)."""

    team: str
    selected_run: int | None
    selected_public: float | None
    selected_private: float | None
    best_public_run: int | None
    best_public: float | None
    best_private_run: int | None
    best_private: float | None
    fallback: bool = False
    # Every run with the best public (private) score: more than one on a tie.
    best_public_runs: tuple[int, ...] = ()
    best_private_runs: tuple[int, ...] = ()

    @property
    def public_gain_missed(self) -> float | None:
        if self.best_public is None or self.selected_public is None:
            return None
        return self.best_public - self.selected_public

    @property
    def private_gain_missed(self) -> float | None:
        if self.best_private is None or self.selected_private is None:
            return None
        return self.best_private - self.selected_private

    @property
    def selected_best_private(self) -> bool | None:
        gain = self.private_gain_missed
        return None if gain is None else gain <= 0

    @property
    def public_best_is_private_best(self) -> bool | None:
        """Tell whether one of the best public runs is a best private run (a tie agrees)."""
        if self.best_public_run is None or self.best_private_run is None:
            return None
        return bool(set(self.best_public_runs) & set(self.best_private_runs))


@dataclass(frozen=True)
class Agreement:
    """How many teams' best public run was also their best private run, of the `teams` with
    at least two runs that have both scores; a tie in public score counts as agreement when
    one of the tied runs is a best private run, and `ties` says for how many of the `same`
    the tied runs differ on the private board (the public board could not single out the
    private best)."""

    same: int
    teams: int
    ties: int = 0

    @property
    def share(self) -> float | None:
        return self.same / self.teams if self.teams else None


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman and Kendall of public against private score over `n` runs, with two-sided
    p-values and the methods that gave them (`ioleval.inference`: exact permutation up to 10
    runs)."""

    n: int
    spearman: float | None = None
    spearman_p: float | None = None
    kendall: float | None = None
    kendall_p: float | None = None
    note: str | None = None
    spearman_p_method: str | None = None
    kendall_p_method: str | None = None


def team_runs(runs: Iterable[RunFacts]) -> list[TeamRuns]:
    """Count each team's runs, scored runs and failures by family; sorted by team."""
    by_team: dict[str, list[RunFacts]] = {}
    for r in runs:
        by_team.setdefault(r.team, []).append(r)
    return [
        TeamRuns(
            team,
            len(rs),
            sum(r.status == SCORED for r in rs),
            dict(sorted(Counter(r.failure for r in rs if r.status == FAILED).items())),
        )
        for team, rs in sorted(by_team.items())
    ]


def failures_by_family(runs: Iterable[RunFacts]) -> dict[str, int]:
    """Count the failed runs per failure family, most frequent first (ties by name)."""
    counts = Counter(r.failure for r in runs if r.status == FAILED)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def per_day(runs: Iterable[RunFacts]) -> list[DayCount]:
    """Count scored and failed submissions per calendar day of `submitted_at` (in the
    time zone the datetimes carry), in date order; days without a run are left out, and so
    are runs without a known time (`undated` counts them)."""
    tally: dict[date, list[int]] = {}
    for r in runs:
        if r.submitted_at is None:
            continue
        pair = tally.setdefault(r.submitted_at.date(), [0, 0])
        pair[0 if r.status == SCORED else 1] += 1
    return [DayCount(day, s, f) for day, (s, f) in sorted(tally.items())]


def undated(runs: Iterable[RunFacts]) -> int:
    """Count the runs whose submission time is not known (left out of `per_day`)."""
    return sum(r.submitted_at is None for r in runs)


def _best(runs: Sequence[RunFacts], key: str) -> RunFacts | None:
    """The run with the highest score `key`; ties go to the earliest run index."""
    have = [r for r in runs if getattr(r, key) is not None]
    return max(have, key=lambda r: (getattr(r, key), -r.run)) if have else None


def selection_checks(runs: Iterable[RunFacts]) -> list[SelectionCheck]:
    """For each team (sorted), its run on the private board (selected, else its best public
    run) against its best by public and by private score, over its scored runs."""
    by_team: dict[str, list[RunFacts]] = {}
    for r in runs:
        by_team.setdefault(r.team, []).append(r)
    out = []
    for team, rs in sorted(by_team.items()):
        scored = [r for r in rs if r.status == SCORED]
        best_public, best_private = _best(scored, "public"), _best(scored, "private")
        public_runs, private_runs = _tied(scored, "public"), _tied(scored, "private")
        chosen = next((r for r in rs if r.selected), None)
        fallback = chosen is None and best_public is not None
        if fallback:
            # The run the board says it took (an import that knows), else the best public
            # (ties to the earliest, as every best run here).
            chosen = next((r for r in scored if r.board_fallback), best_public)
        out.append(
            SelectionCheck(
                team,
                chosen.run if chosen else None,
                chosen.public if chosen else None,
                chosen.private if chosen else None,
                best_public.run if best_public else None,
                best_public.public if best_public else None,
                best_private.run if best_private else None,
                best_private.private if best_private else None,
                fallback,
                public_runs,
                private_runs,
            )
        )
    return out


def _tied(runs: Sequence[RunFacts], key: str) -> tuple[int, ...]:
    """Return the indices of every run with the highest score `key`, in index order."""
    have = [r for r in runs if getattr(r, key) is not None]
    if not have:
        return ()
    top = max(getattr(r, key) for r in have)
    return tuple(sorted(r.run for r in have if getattr(r, key) == top))


def agreement(runs: Iterable[RunFacts]) -> Agreement:
    """How often a team's best run by public score was also its best by private score,
    over teams with at least two runs that have both scores (a tie agrees when one of the
    runs tied on public score is a best private run)."""
    by_team: dict[str, list[RunFacts]] = {}
    for r in runs:
        if r.status == SCORED and r.public is not None and r.private is not None:
            by_team.setdefault(r.team, []).append(r)
    teams = [rs for rs in by_team.values() if len(rs) >= 2]
    same = ties = 0
    for rs in teams:
        public, private = set(_tied(rs, "public")), set(_tied(rs, "private"))
        if public & private:
            same += 1
            ties += not public <= private
    return Agreement(same, len(teams), ties)


def rank_correlation(runs: Iterable[RunFacts]) -> RankCorrelation:
    """Spearman and Kendall of public against private score over the scored runs with both."""
    pairs = [
        (r.public, r.private)
        for r in runs
        if r.status == SCORED
        and r.public is not None
        and r.private is not None
        and math.isfinite(r.public)
        and math.isfinite(r.private)
    ]
    n = len(pairs)
    if n < MIN_RUNS:
        return RankCorrelation(
            n,
            note=f"Not computed: {counted(n, 'run')} with both a public and a private score; at least "
            f"{MIN_RUNS} are needed.",
        )
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    constant = [name for name, col in (("public", xs), ("private", ys)) if len(set(col)) == 1]
    if constant:
        return RankCorrelation(
            n,
            note=f"Not computed: the {' and the '.join(constant)} score "
            f"{'is' if len(constant) == 1 else 'are'} the same for all {n} runs, so there is "
            "no ranking to compare.",
        )
    tests = correlation_tests(xs, ys, ("spearman", "kendall"))
    spearman, kendall = tests["spearman"], tests["kendall"]
    return RankCorrelation(
        n,
        spearman=spearman.statistic,
        spearman_p=spearman.p,
        kendall=kendall.statistic,
        kendall_p=kendall.p,
        spearman_p_method=spearman.method,
        kendall_p_method=kendall.method,
    )


def correlation_sentence(c: RankCorrelation) -> str:
    """Say the rank correlation in words, or why it is not given."""
    if c.note:
        return c.note
    return (
        f"Across {c.n} runs with both scores, Spearman rho = {c.spearman:.3f} "
        f"({p_method_text(c.spearman_p, c.spearman_p_method)}), Kendall tau = "
        f"{c.kendall:.3f} ({p_method_text(c.kendall_p, c.kendall_p_method)})."
    )


def agreement_sentence(a: Agreement) -> str:
    """Say how often the public best was the private best, or why it cannot be said."""
    if not a.teams:
        return "No team has two runs with both a public and a private score."
    text = (
        f"The best run on the public board was also the best on the private board for "
        f"{a.same} of {a.teams} teams ({a.share * 100:.0f}%), a tie in public score "
        "counting as agreement when one of the tied runs is best on the private board"
    )
    if not a.ties:
        return f"{text}; no agreement rests on such a tie."
    return (
        f"{text}; {a.ties} of the {a.same} rest on such a tie (runs with the same best "
        "public score that differ on the private board)."
    )
