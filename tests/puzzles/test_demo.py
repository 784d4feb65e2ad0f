"""The `demo` command: idempotent, users in their groups, enough data, and all of it our own."""

from __future__ import annotations

import csv
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError

from ioleval.roles import CHAIR, JUROR, ORGANIZER
from puzzles.demo import DEMO_SLUG, EXTERNAL_SYSTEM
from puzzles.models import (
    AnswerAmendment,
    Competition,
    ExternalScore,
    Output,
    Problem,
    System,
    Task,
)
from tests.conftest import IOLAI_DIR

USERS = {
    "organizer": {ORGANIZER},
    "chair": {CHAIR, JUROR},
    "juror1": {JUROR},
    "juror2": {JUROR},
    "juror3": {JUROR},
    "juror4": {JUROR},
}


def _demo(*args: str) -> str:
    out = StringIO()
    call_command("demo", *args, stdout=out)
    return out.getvalue()


def _counts() -> dict[str, int]:
    User = get_user_model()
    return {
        "users": User.objects.count(),
        "groups": Group.objects.count(),
        "competitions": Competition.objects.count(),
        "problems": Problem.objects.count(),
        "tasks": Task.objects.count(),
        "systems": System.objects.count(),
        "outputs": Output.objects.count(),
        "amendments": AnswerAmendment.objects.count(),
        "external_scores": ExternalScore.objects.count(),
    }


def _board() -> str:
    out = StringIO()
    call_command("score", DEMO_SLUG, "--all-columns", stdout=out)
    return out.getvalue()


def test_demo_twice_is_idempotent(db):
    first = _demo()
    counts, board = _counts(), _board()
    outputs = list(Output.objects.order_by("pk").values_list("pk", "raw_text", "explanation"))
    second = _demo()
    assert _counts() == counts
    assert _board() == board
    assert list(Output.objects.order_by("pk").values_list("pk", "raw_text", "explanation")) == (
        outputs
    )
    assert first == second
    assert f"demo competition '{DEMO_SLUG}'" in first


def test_demo_users_and_groups(db):
    _demo()
    User = get_user_model()
    for username, roles in USERS.items():
        user = User.objects.get(username=username)
        assert set(user.groups.values_list("name", flat=True)) == roles, username
        assert user.check_password("ioleval-demo"), username
        assert user.is_active
    assert User.objects.get(username="organizer").is_staff
    assert not User.objects.get(username="juror1").is_staff


def test_demo_password_option_changes_every_password(db):
    _demo()
    out = _demo("--password", "another-secret")
    assert "'another-secret'" in out
    for user in get_user_model().objects.filter(username__in=USERS):
        assert user.check_password("another-secret"), user.username
        assert not user.check_password("ioleval-demo"), user.username


def test_demo_refuses_its_default_password_in_production(db, settings):
    settings.PRODUCTION = True
    with pytest.raises(CommandError, match="--password"):
        _demo()
    assert not get_user_model().objects.filter(username__in=USERS).exists()
    assert not Competition.objects.filter(slug=DEMO_SLUG).exists()
    _demo("--password", "a-real-one")
    assert get_user_model().objects.get(username="chair").check_password("a-real-one")


def test_demo_competition_has_problems_systems_outputs_and_explanations(db):
    _demo()
    competition = Competition.objects.get(slug=DEMO_SLUG)
    n_tasks = Task.objects.filter(problem__competition=competition).count()
    assert competition.problems.count() >= 3
    assert n_tasks >= competition.problems.count()
    assert all(t.answer_key for t in Task.objects.filter(problem__competition=competition))

    complete = [
        s
        for s in competition.systems.all()
        if s.outputs.count() == n_tasks and s.outputs.exclude(explanation="").exists()
    ]
    assert len(complete) >= 5
    assert competition.systems.count() >= 5
    # Thresholds are set within the jury's scale, and descend.
    thresholds = [
        competition.gold_threshold,
        competition.silver_threshold,
        competition.bronze_threshold,
        competition.honourable_mention_threshold,
    ]
    assert None not in thresholds
    assert thresholds == sorted(thresholds, reverse=True)
    assert thresholds[0] <= 30  # the jury's scale: three rubrics of 10 (grading/demo.py)
    assert competition.jury_scale is None  # an import never sets the scale


def test_demo_has_one_external_system_with_imported_scores(db):
    _demo()
    competition = Competition.objects.get(slug=DEMO_SLUG)
    external = competition.systems.filter(external=True)
    assert [s.name for s in external] == [EXTERNAL_SYSTEM]
    assert not Output.objects.filter(system__in=external).exists()
    figures = ExternalScore.objects.filter(system__in=external)
    assert figures.filter(problem__isnull=True).count() == 1
    assert all(0 <= f.score <= 1 for f in figures)


# --- the demo's text is its own ---------------------------------------------------------


def _iol_texts() -> dict[str, list[str]]:
    with (IOLAI_DIR / "task" / "test.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 14
    return {
        "queries": [r["query"].strip() for r in rows],
        "contexts": [r["context"].strip() for r in rows],
    }


def _demo_texts(competition: Competition) -> list[str]:
    texts: list[str] = []
    for problem in competition.problems.all():
        texts += [problem.title, problem.context, problem.language]
    for task in Task.objects.filter(problem__competition=competition):
        texts += [task.query, *[a for item in task.answer_key for a in item]]
    for output in Output.objects.filter(system__competition=competition):
        texts += [output.raw_text, output.explanation]
    return [t for t in texts if t.strip()]


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def test_no_demo_query_comes_from_the_iol_data(db):
    _demo()
    iol = _iol_texts()
    competition = Competition.objects.get(slug=DEMO_SLUG)
    for task in Task.objects.filter(problem__competition=competition):
        query = _fold(task.query)
        for iol_query in map(_fold, iol["queries"]):
            assert query != iol_query
            assert iol_query not in query
            assert query not in iol_query


def test_no_demo_text_contains_iol_problem_text(db):
    _demo()
    iol = _iol_texts()
    demo = _fold("\n".join(_demo_texts(Competition.objects.get(slug=DEMO_SLUG))))
    # Whole contexts, and every substantial line of the IOL queries and contexts.
    for context in iol["contexts"]:
        assert _fold(context) not in demo
    lines = {
        _fold(line)
        for text in iol["queries"] + iol["contexts"]
        for line in text.splitlines()
        if len(line.strip()) >= 30
    }
    assert lines  # the data set does have long lines to look for
    copied = sorted(line for line in lines if line in demo)
    assert copied == []
