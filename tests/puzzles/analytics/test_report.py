"""The analytics report (issue 12, item 8): one JSON section per analysis, with the figures
its page and export show, JSON-safe, a note where an analysis has no data, and the
"analytics" key of `manage.py report SLUG --format json`."""

from __future__ import annotations

import io
import json
import math
import statistics

import pytest
from django.core.cache import cache
from django.core.management import call_command

from puzzles.analytics.formats.selectors import formats_page
from puzzles.analytics.oracle.selectors import oracle_page, oracle_table
from puzzles.analytics.oracle.services import oracle_create
from puzzles.analytics.probes.demo import PROBE_ONLY_MODEL
from puzzles.analytics.probes.imports import probes_import
from puzzles.analytics.probes.selectors import probes_page
from puzzles.analytics.report import SECTIONS, analytics_json, json_safe
from puzzles.analytics.runs.imports import runs_import
from puzzles.analytics.runs.selectors import runs_page
from puzzles.analytics.tiers.selectors import tiers_page
from puzzles.models import Competition, System
from puzzles.services import competition_rescore
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

pytestmark = pytest.mark.django_db

NAMES = ["runs", "tiers", "formats", "oracle", "techniques", "probes", "ablations"]

RUNS = """team,run,submitted_at,status,failure,public,private,selected
Alpha,1,2026-03-01T10:00:00Z,scored,,0.50,0.40,0
Alpha,2,2026-03-02T10:00:00Z,scored,,0.60,0.65,1
Alpha,3,2026-03-02T11:00:00Z,failed,runtime,,,0
Beta,1,2026-03-01T12:00:00Z,scored,,0.30,0.35,1
Beta,2,2026-03-03T12:00:00Z,scored,,0.45,0.30,0
Gamma,1,2026-03-03T09:00:00Z,failed,limit,,,0
Gamma,2,2026-03-04T09:00:00Z,scored,,0.20,0.10,1
"""

PROBES = "model,problem,probe_type,item,correct\n" + "".join(
    f"{model},1,{kind},q{i},{int(i < right)}\n"
    for model, rights in {
        "Alpha": (4, 3),
        "Beta": (2, 2),
        "Gamma": (1, 0),
        "Probe-only": (3, 1),
    }.items()
    for kind, right in zip(("language context", "lexicon"), rights, strict=True)
    for i in range(4)
)


def _built() -> Competition:
    """Three systems over two tasks (Alpha best on t1, Beta on t2), runs, probes, and the
    saved oracle of Alpha and Beta."""
    competition = CompetitionFactory(slug="rep")
    problem = ProblemFactory(competition=competition, number=1)
    t1 = TaskFactory(problem=problem, number=1, answer_key=[["one"], ["two"]])
    t2 = TaskFactory(problem=problem, number=2, answer_key=[["three"], ["four"]])
    alpha = SystemFactory(competition=competition, name="Alpha", tier="challenge")
    beta = SystemFactory(competition=competition, name="Beta", tier="challenge")
    gamma = SystemFactory(competition=competition, name="Gamma", tier="baseline")
    OutputFactory(system=alpha, task=t1, raw_text='["one", "two"]')
    OutputFactory(system=alpha, task=t2, raw_text="Sure! Here they are:\n**three**\nfive")
    OutputFactory(system=beta, task=t1, raw_text="(a) one\n(b) zwei")
    OutputFactory(system=beta, task=t2, raw_text="three\nfour")
    OutputFactory(system=gamma, task=t1, raw_text="")
    competition_rescore(competition=competition)
    runs_import(competition=competition, stream=io.StringIO(RUNS), file="runs.csv")
    probes_import(competition=competition, stream=io.StringIO(PROBES), file="probes.csv")
    oracle_create(competition=competition, members=["Alpha", "Beta"], name="Oracle AB")
    return competition


def _json(competition: Competition) -> dict:
    data = analytics_json(competition)
    # Every number is JSON-safe: a NaN or an infinity would make this raise.
    return json.loads(json.dumps(data, allow_nan=False))


# --- each section against its page --------------------------------------------------------


def _check_runs(competition, section):
    page = runs_page(competition)
    assert section["available"] is True
    assert (section["runs"], section["failed"]) == (page.runs, page.failed)
    assert [(t["team"], t["runs"], t["scored"], t["success_rate"]) for t in section["teams"]] == [
        (r.team.team, r.team.runs, r.team.scored, r.team.success_rate) for r in page.teams
    ]
    assert [(f["family"], f["runs"]) for f in section["failures_by_family"]] == [
        (f.family, f.runs) for f in page.families
    ]
    assert [(d["day"], d["runs"]) for d in section["per_day"]] == [
        (d.day.isoformat(), d.runs) for d in page.days
    ]
    # The selection check as the export has it (0-1 scale; "yes"/"no"/"" there, a boolean here).
    yes_no = {True: "yes", False: "no", None: ""}
    assert [
        [
            c["team"],
            c["selected_run"],
            c["selected_public"],
            c["selected_private"],
            c["best_public_run"],
            c["best_public"],
            c["best_private_run"],
            c["best_private"],
            c["public_gain_missed"],
            c["private_gain_missed"],
            yes_no[c["public_best_is_private_best"]],
            "" if c["selected_run"] is None else ("best public" if c["fallback"] else "team"),
            "; ".join(map(str, c["best_public_runs"])),
            "; ".join(map(str, c["best_private_runs"])),
        ]
        for c in section["selection"]
    ] == page.export_rows()
    assert section["undated_runs"] == page.undated
    assert section["agreement"]["same"] == page.agreement.same
    assert section["agreement"]["teams"] == page.agreement.teams
    assert section["agreement"]["ties"] == page.agreement.ties
    correlation = section["rank_correlation"]
    for name in ("n", "spearman", "spearman_p", "kendall", "kendall_p", "note"):
        assert correlation[name] == getattr(page.correlation, name), name


def _check_tiers(competition, section):
    page = tiers_page(competition)
    assert section["available"] is True
    assert section["tasks"] == page.tasks
    assert section["oracles_left_out"] == page.oracles
    assert [
        [t["tier"], t["label"], t["n"], t["median"], t["mean"], t["min"], t["max"]]
        for t in section["tiers"]
    ] == page.export_rows()
    for tier, group in zip(section["tiers"], page.groups, strict=True):
        for i, task in enumerate(page.tasks):
            expected = statistics.fmean(s.task_scores[i] for s in group.systems)
            assert tier["task_means"][task] == pytest.approx(expected, abs=5e-5)


def _check_formats(competition, section):
    page = formats_page(competition)
    header, body = page.table()
    assert section["available"] is True
    assert section["tasks"] == page.n_tasks
    assert section["stages"] == ["before", "after"]
    rows = []
    for s in section["systems"]:
        cells = {
            f"{f}_{stage}": s[stage][f] for f in section["families"] for stage in section["stages"]
        }
        cells |= {k: s[k] for k in ("system", "tier", "score_before", "score_after", "gain")}
        rows.append([cells.get(h) for h in header])
    assert rows == body


def _check_oracle(competition, section):
    page = oracle_page(competition)
    assert section["available"] is True
    assert [(o["name"], o["members"], o["score"]) for o in section["oracles"]] == [
        (o.name, o.members, o.score) for o in page.oracles
    ]
    for entry in section["oracles"]:
        # The page's preview of the same members: its export's supplier and score per task,
        # and its member shares.
        preview = oracle_page(competition, members=entry["members"]).preview
        _, rows = oracle_table(preview)
        assert [
            [t["task"], t["weight"], t["member"] or "", t["score"]] for t in entry["tasks"]
        ] == [row[:4] for row in rows[:-2]]
        # The preview lists members by board score, the saved oracle as they were given:
        # compare by member (a tie in share goes to the name first in order, never the order).
        shares = {s.member: s.share for s in preview.shares}
        assert {s["member"]: s["share"] for s in entry["shares"]} == shares
        assert entry["top_share"] == max(shares.values())
        first = min(m for m in entry["members"] if shares[m] == max(shares.values()))
        assert entry["top_member"] == first
        assert entry["recombined_score"] == preview.overall.score
        assert rows[-1][0] == "attainable maximum"
        assert entry["attainable_maximum"] == preview.maximum.score == rows[-1][3]
        assert entry["attainable_maximum"] >= entry["recombined_score"]
        assert sum(s["share"] for s in entry["shares"]) == pytest.approx(1.0, abs=1e-3)


def _check_probes(competition, section):
    page = probes_page(competition)
    assert section["available"] is True
    assert section["probe_types"] == page.probe_types
    rows = [
        [
            m["model"],
            "yes" if m["system"] else "no",
            m["automatic_score"],
            kind,
            cell["n"],
            cell["correct"],
            cell["accuracy"],
        ]
        for m in section["models"]
        for kind, cell in m["accuracy"].items()
    ]
    assert rows == page.export_rows()
    for got, c in zip(section["correlations"], page.correlations, strict=True):
        for name in ("probe_type", "n", "pearson", "pearson_p", "spearman", "spearman_p", "note"):
            assert got[name] == getattr(c, name), name


CHECKS = {
    "runs": _check_runs,
    "tiers": _check_tiers,
    "formats": _check_formats,
    "oracle": _check_oracle,
    "probes": _check_probes,
}


def test_the_registry_lists_every_analysis_once_in_order():
    assert [name for name, _ in SECTIONS][: len(NAMES)] == NAMES
    assert len({name for name, _ in SECTIONS}) == len(SECTIONS)


def test_each_section_equals_its_page_on_a_small_competition():
    competition = _built()
    data = _json(competition)
    assert list(data)[: len(NAMES)] == NAMES
    for name, check in CHECKS.items():
        check(competition, data[name])


def test_golden_figures_of_the_small_competition():
    data = _json(_built())
    runs = data["runs"]
    assert (runs["runs"], runs["failed"]) == (7, 2)
    assert {f["family"]: f["runs"] for f in runs["failures_by_family"]} == {
        "runtime": 1,
        "limit": 1,
    }
    selection = {c["team"]: c for c in runs["selection"]}
    assert selection["Beta"]["best_public_run"] == 2 and selection["Beta"]["selected_run"] == 1
    assert selection["Alpha"]["private_gain_missed"] == 0.0
    assert runs["rank_correlation"]["n"] == 5
    tiers = {t["tier"]: t for t in data["tiers"]["tiers"]}
    assert list(tiers) == ["baseline", "challenge"]
    assert tiers["challenge"]["n"] == 2 and tiers["baseline"]["n"] == 1
    assert data["tiers"]["oracles_left_out"] == ["Oracle AB"]
    assert all(0.0 <= t[k] <= 1.0 for t in tiers.values() for k in ("median", "min", "max"))
    formats = {s["system"]: s for s in data["formats"]["systems"]}
    assert formats["Gamma"]["before"]["empty"] == 1.0  # one empty output, one missing task
    assert formats["Beta"]["before"]["labels"] == 0.5
    (oracle,) = data["oracle"]["oracles"]
    assert oracle["members"] == ["Alpha", "Beta"]
    assert [t["member"] for t in oracle["tasks"]] == ["Alpha", "Beta"]
    assert oracle["score"] == oracle["recombined_score"]
    probes = {m["model"]: m for m in data["probes"]["models"]}
    assert probes["Alpha"]["accuracy"]["lexicon"] == {"n": 4, "correct": 3, "accuracy": 0.75}
    assert probes["Probe-only"]["system"] is False
    assert probes["Probe-only"]["automatic_score"] is None


def test_an_oracle_whose_member_is_gone_says_so():
    competition = _built()
    intact = _json(competition)["oracle"]["oracles"][0]
    assert "note" not in intact and "missing_members" not in intact
    System.objects.filter(competition=competition, name="Beta").update(name="Beta v2")
    cache.clear()
    (oracle,) = _json(competition)["oracle"]["oracles"]
    assert oracle["members"] == ["Alpha", "Beta"]
    assert oracle["missing_members"] == ["Beta"]
    assert "no longer in the competition (deleted or renamed): Beta." in oracle["note"]
    # Beta supplies nothing: the recombination is Alpha's alone, below the board score.
    assert [t["member"] for t in oracle["tasks"]] == ["Alpha", "Alpha"]
    assert oracle["recombined_score"] < oracle["score"]
    System.objects.filter(competition=competition, name="Alpha").delete()
    cache.clear()
    (oracle,) = _json(competition)["oracle"]["oracles"]
    assert oracle["missing_members"] == ["Alpha", "Beta"]
    assert oracle["note"].startswith("Members no longer") and "They supply" in oracle["note"]


def test_each_section_equals_its_page_on_the_demo(demo_competition):
    oracle_create(
        competition=demo_competition, members=["Frontier-A", "Team Lexicon"], name="Demo oracle"
    )
    data = _json(demo_competition)
    for name, check in CHECKS.items():
        check(demo_competition, data[name])
    assert PROBE_ONLY_MODEL in {m["model"] for m in data["probes"]["models"]}


def test_an_empty_competition_says_so_in_every_section():
    competition = Competition.objects.create(slug="void", name="Nothing yet")
    data = _json(competition)
    assert list(data) == [name for name, _ in SECTIONS]
    for name in NAMES:
        assert data[name]["available"] is False, name
        assert data[name]["note"], name


def test_json_safe_nulls_what_json_cannot_hold():
    from datetime import date
    from decimal import Decimal

    value = {
        "nan": math.nan,
        "inf": [math.inf, -math.inf, 0.25],
        "pair": (1, Decimal("0.5")),
        "day": date(2026, 3, 1),
        3: None,
    }
    assert json_safe(value) == {
        "nan": None,
        "inf": [None, None, 0.25],
        "pair": [1, 0.5],
        "day": "2026-03-01",
        "3": None,
    }


def test_the_report_command_prints_the_review_and_the_analytics(demo_competition):
    cache.clear()
    out = io.StringIO()
    call_command("report", "demo", "--format", "json", "--resamples", "100", stdout=out)
    data = json.loads(out.getvalue())
    assert "systems" in data and "correlation" in data  # the review, as before
    assert list(data["analytics"])[: len(NAMES)] == NAMES
    assert data["analytics"] == _json(demo_competition)
    assert data["analytics"]["runs"]["available"] is True
    assert data["analytics"]["oracle"]["available"] is True  # the demo's oracle
    cache.clear()
