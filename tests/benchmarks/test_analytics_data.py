"""The builder of benchmarks/analytics_scale.py (benchmarks/scale/analytics.py) on a tiny
competition: the rows it promises, and the same rows for the same seed."""

from __future__ import annotations

import random

import pytest

from benchmarks.scale.analytics import build_analytics
from puzzles.analytics.stats.formats import FLAGS_KEY
from puzzles.models import Output, ProbeResult, Run, RunOutput

pytestmark = pytest.mark.django_db

SIZES = dict(n_problems=2, n_tasks=3, n_systems=4, n_runs=30, probe_items=4)


def _rows(competition) -> list[tuple]:
    runs = Run.objects.filter(system__competition=competition).order_by("system__name", "run_index")
    return [
        (r.system.name.split("-")[-1], r.run_index, r.status, r.public_score, r.condition, r.seed)
        for r in runs.select_related("system")
    ]


def test_the_builder_makes_what_it_promises():
    built = build_analytics(slug="a", rng=random.Random(3), **SIZES)
    competition = built.competition
    runs = Run.objects.filter(system__competition=competition)
    assert runs.count() == 30
    assert built.counts["runs"] == 30 and built.counts["tasks"] == 3
    # one selected ordinary run per team, none of them an ablation
    selected = runs.filter(selected_for_private=True)
    assert selected.count() == 4 and not selected.exclude(condition="").exists()
    assert runs.exclude(condition="").count() == 4 * 6  # every team is an ablation team here
    assert RunOutput.objects.filter(run__in=runs).count() == 30 * 3
    outputs = Output.objects.filter(system__competition=competition)
    assert outputs.count() == 4 * 3
    assert all(FLAGS_KEY in o.format_flags and o.scores for o in outputs)
    assert ProbeResult.objects.filter(competition=competition).count() == 5 * 2 * 2 * 1


def test_the_same_seed_gives_the_same_rows():
    first = build_analytics(slug="s1", rng=random.Random(5), **SIZES).competition
    second = build_analytics(slug="s2", rng=random.Random(5), **SIZES).competition
    assert _rows(first) == _rows(second)
