"""The challenge analytics as one JSON object: a section per analysis, built from the
selectors its page uses (no second computation path), for `manage.py report --format json`.

Figures are on the 0-1 scale, as in the pages' CSV/XLSX exports; a figure that cannot be
given (NaN, infinity, a correlation not computed) is null. An analysis without data is
`{"available": false, "note": "..."}`, never left out. Add an analysis by adding one
(name, function) line to SECTIONS.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict
from datetime import date, datetime
from decimal import Decimal

from ..models import Competition
from .ablations import ablations_json
from .formats import formats_page
from .oracle import CompetitionFigures, competition_figures, saved_oracles
from .probes import probes_page
from .runs import runs_page
from .stats.oracle import TIE_RULE
from .stats.probes import sentence as probe_sentence
from .stats.runs import agreement_sentence, correlation_sentence
from .techniques import techniques_json
from .tiers import tiers_page

Section = Callable[[Competition], dict]


# Why an analysis has nothing to show: the JSON section's note and the PDF part's line.
NOTES = {
    "runs": "No runs imported (manage.py import_runs SLUG FILE.csv).",
    "tiers": "No system with a leaderboard score.",
    "formats": "No system has outputs.",
    "oracle": "No oracle ensemble saved (the oracle page or manage.py oracle_create).",
    "techniques": "No run tagged with a technique (the techniques page or tag_runs).",
    "probes": "No probe results imported (manage.py import_probes SLUG FILE.csv).",
    "ablations": "No run made under a condition (import_runs: condition, seed).",
}


def unavailable(note: str) -> dict:
    """Return the section of an analysis that has no data, saying why."""
    return {"available": False, "note": note}


def runs_json(competition: Competition) -> dict:
    """Submission statistics, failures by family, the selection check and rank correlation."""
    page = runs_page(competition)
    if not page.runs:
        return unavailable(NOTES["runs"])
    return {
        "available": True,
        "runs": page.runs,
        "failed": page.failed,
        "teams": [
            {
                "team": row.team.team,
                "runs": row.team.runs,
                "scored": row.team.scored,
                "success_rate": row.team.success_rate,
                "failures": row.team.failures,
            }
            for row in page.teams
        ],
        "failures_by_family": [
            {"family": f.family, "label": f.label, "runs": f.runs} for f in page.families
        ],
        "per_day": [
            {"day": d.day, "scored": d.scored, "failed": d.failed, "runs": d.runs}
            for d in page.days
        ],
        # Runs without a known submission time: in no day above.
        "undated_runs": page.undated,
        "selection": [
            {
                **asdict(c),
                "public_gain_missed": c.public_gain_missed,
                "private_gain_missed": c.private_gain_missed,
                "selected_best_private": c.selected_best_private,
                "public_best_is_private_best": c.public_best_is_private_best,
            }
            for c in page.checks
        ],
        "agreement": {
            "same": page.agreement.same,
            "teams": page.agreement.teams,
            "ties": page.agreement.ties,
            "share": page.agreement.share,
            "sentence": agreement_sentence(page.agreement),
        },
        "rank_correlation": {
            **asdict(page.correlation),
            "sentence": correlation_sentence(page.correlation),
        },
    }


def tiers_json(competition: Competition) -> dict:
    """Per tier n, median, mean, min and max of the board score, and each task's mean."""
    page = tiers_page(competition)
    if not page.groups:
        return unavailable(NOTES["tiers"])
    tiers = []
    for g in page.groups:
        # A tier always has systems; each column is one task's scores over them.
        columns = zip(*(s.task_scores for s in g.systems), strict=True)
        means = [round(sum(col) / len(col), 4) for col in columns]
        tiers.append(
            {
                "tier": g.tier,
                "label": str(g.label),
                "n": g.stats.n,
                "median": g.stats.median,
                "mean": g.stats.mean,
                "min": g.stats.minimum,
                "max": g.stats.maximum,
                "scores": list(g.stats.scores),
                "task_means": dict(zip(page.tasks, means, strict=True)),
            }
        )
    return {
        "available": True,
        "metric": page.metric,
        "tasks": page.tasks,
        "tiers": tiers,
        "oracles_left_out": page.oracles,
    }


def formats_json(competition: Competition) -> dict:
    """The prevalence of each format failure before and after extraction, and the gain."""
    page = formats_page(competition)
    if not page.rows:
        return unavailable(NOTES["formats"])
    return {
        "available": True,
        "metric": page.metric,
        "tasks": page.n_tasks,
        "families": dict(page.families),
        "stages": list(page.stages),
        "systems": [
            {
                "system": r.system,
                "tier": r.tier,
                "before": r.shares["before"],
                "after": r.shares["after"],
                "score_before": r.score_before,
                "score_after": r.score_after,
                "gain": r.gain,
            }
            for r in page.rows
        ],
    }


def oracle_json(competition: Competition, *, figures: CompetitionFigures | None = None) -> dict:
    """Each saved oracle: members, the member that supplies each task, its board score, the
    attainable maximum over choices of one member per task, and the share its top member
    carries (ties: the member whose name comes first). The members are recombined by the
    preview's rule (`stats.oracle.TIE_RULE`, which no order of the members changes); the
    recombined score differs from the board score only if outputs changed since, or if a
    member was deleted or renamed: such members are listed (`missing_members`) and a
    `note` says they supply nothing to the recombination. `figures`: the competition's, when
    the caller has them already."""
    data = figures or competition_figures(competition)
    saved = saved_oracles(data)
    if not saved:
        return unavailable(NOTES["oracle"])
    oracles = []
    for listed in saved:
        members = list(dict.fromkeys(listed.members))
        entry: dict = {"name": listed.name, "members": members, "score": listed.score}
        if not members:
            oracles.append({**entry, "note": "The oracle lists no members."})
            continue
        known = {s.name for s in data.systems}
        missing = [m for m in members if m not in known]
        if missing:
            entry["missing_members"] = missing
            entry["note"] = (
                f"Member{'s' if len(missing) > 1 else ''} no longer in the competition "
                f"(deleted or renamed): {', '.join(missing)}. "
                f"{'They supply' if len(missing) > 1 else 'It supplies'} no task to the "
                "recombined score, which is why it can fall below the board score."
            )
        combined = data.combine(members)
        top = min(combined.shares, key=lambda s: (-s.share, s.member))
        oracles.append(
            {
                **entry,
                "recombined_score": combined.overall.score,
                "attainable_maximum": combined.maximum.score,
                "attainable_maximum_method": combined.maximum_method,
                "tie_rule": TIE_RULE,
                "tasks_tied": combined.ties,
                "best_member": combined.best_member,
                "best_member_score": combined.best_member_overall.score,
                "gain": combined.gain,
                "top_member": top.member,
                "top_share": top.share,
                "shares": [
                    {
                        "member": s.member,
                        "score": s.overall.score,
                        "tasks_supplied": s.tasks_supplied,
                        "share": s.share,
                    }
                    for s in combined.shares
                ],
                "tasks": [
                    {
                        "task": t.task,
                        "weight": t.weight,
                        "member": t.member,
                        "score": t.score,
                        "tied_with": list(t.tied),
                        "member_at_maximum": t.maximum_member,
                    }
                    for t in combined.tasks
                ],
            }
        )
    return {"available": True, "oracles": oracles}


def probes_json(competition: Competition) -> dict:
    """Accuracy per model and probe type, and its correlations with the automatic score."""
    page = probes_page(competition)
    if not page.rows:
        return unavailable(NOTES["probes"])
    return {
        "available": True,
        "probe_types": page.probe_types,
        "models": [
            {
                "model": r.model,
                "system": r.system,
                "automatic_score": r.score,
                "accuracy": {
                    c.probe_type: {"n": c.n, "correct": c.correct, "accuracy": c.accuracy}
                    for c in r.cells
                    if c is not None
                },
            }
            for r in page.rows
        ],
        "correlations": [{**asdict(c), "sentence": probe_sentence(c)} for c in page.correlations],
    }


def techniques_section(competition: Competition) -> dict:
    data = techniques_json(competition)
    if not data["by_score"][0]["techniques"]:
        return unavailable(NOTES["techniques"])
    return {"available": True, **data}


def ablations_section(competition: Competition) -> dict:
    data = ablations_json(competition)
    if not data["conditions"]:
        return unavailable(NOTES["ablations"])
    return {"available": True, **data}


# The report's sections, in issue 12's order; one line an analysis.
SECTIONS: list[tuple[str, Section]] = [
    ("runs", runs_json),
    ("tiers", tiers_json),
    ("formats", formats_json),
    ("oracle", oracle_json),
    ("techniques", techniques_section),
    ("probes", probes_json),
    ("ablations", ablations_section),
]


def json_safe(value: object) -> object:
    """Return `value` with NaN and infinity as None, decimals as floats, dates as ISO text,
    tuples as lists."""
    if isinstance(value, (float, Decimal)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def analytics_json(competition: Competition) -> dict:
    """Return every analysis of the competition, one section each, JSON-safe."""
    return {name: json_safe(section(competition)) for name, section in SECTIONS}
