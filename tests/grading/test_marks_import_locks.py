"""A marks import holds up only the problems its file marks, and only once the file is
checked; an autosave that waits for a jury row gives up after a bound, saying why
(PostgreSQL)."""

from __future__ import annotations

import io
import threading
import time

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from grading.errors import GradingError, JuryBusy
from grading.models import Mark, ProblemJury
from grading.services import rubric_replace
from grading.services.marks_io import imports as marks_io
from grading.services.rubrics import CriterionSpec
from tests.concurrency import run_concurrently
from tests.grading.factories import (
    AssignmentFactory,
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

HEADER = "system,problem,criterion,juror,points\n"
HOLD = 3.0  # seconds a jury row is held in these tests


class Jury:
    """Problems 1 and 2 with one criterion each, a paper of each, a juror grading both."""

    def __init__(self):
        self.competition = CompetitionFactory(slug="locks")
        self.problems, self.criteria, self.assignments = {}, {}, {}
        self.juror = JurorFactory(username="grader")
        SystemFactory(competition=self.competition, name="Alpha")
        for number in (1, 2):
            problem = ProblemFactory(competition=self.competition, number=number)
            ProblemJuryFactory(problem=problem)
            rubric = rubric_with(problem, (f"{number}a", 2, "0.5"), (f"{number}b", 2, "0.5"))
            self.problems[number] = problem
            self.criteria[number] = {c.code: c for c in rubric.criteria.all()}
            paper = PaperFactory(problem=problem)
            self.assignments[number] = AssignmentFactory(paper=paper, juror=self.juror)

    def autosave(self, number: int, points: str = "1"):
        client = Client()
        client.force_login(self.juror)
        assignment = self.assignments[number]
        criterion = self.criteria[number][f"{number}a"]
        return client.post(
            reverse("grading:mark", args=[assignment.paper.code, criterion.pk]),
            {"points": points},
            HTTP_HX_REQUEST="true",
        )


@pytest.fixture
def jury():
    jury = Jury()
    # The first request loads the views (seconds on a loaded machine): not in the timings.
    assert jury.autosave(2, "0").status_code == 200
    return jury


def hold_jury_row(problem, held: threading.Event, seconds: float = HOLD):
    """A job that holds the problem's jury row as an import or a new rubric version does."""

    def job():
        with transaction.atomic():
            ProblemJury.objects.select_for_update().get(problem=problem)
            held.set()
            time.sleep(seconds)

    return job


def test_an_autosave_waiting_past_its_bound_is_refused_as_busy(jury, settings):
    """Before: it waited as long as the import wrote (on a real import, until gunicorn's
    timeout killed the worker), then saved or answered 500."""
    settings.IOLEVAL_SAVE_LOCK_TIMEOUT = 0.5
    held = threading.Event()
    answers: list[tuple[int, str, float]] = []

    def save():
        held.wait(10)
        started = time.monotonic()
        response = jury.autosave(1)
        answers.append(
            (response.status_code, response.content.decode(), time.monotonic() - started)
        )

    run_concurrently([hold_jury_row(jury.problems[1], held), save])
    [(status, body, seconds)] = answers
    assert (status, body) == (409, JuryBusy.MESSAGE)
    assert seconds < HOLD - 1
    assert not Mark.objects.filter(assignment__paper__problem=jury.problems[1]).exists()
    # Once the row is free, the same save is stored.
    assert jury.autosave(1).status_code == 200


def test_a_marks_import_holds_up_only_the_problems_its_file_marks(jury, monkeypatch):
    """Before: the import locked the jury row of every problem of the competition before
    reading the file, so grading of problem 2 waited for an import of problem 1's marks."""
    writing, saved = threading.Event(), threading.Event()
    write = marks_io._import_submitted

    def slow_write(*args, **kwargs):
        write(*args, **kwargs)
        writing.set()
        saved.wait(HOLD)  # the import is still writing when the autosave comes

    monkeypatch.setattr(marks_io, "_import_submitted", slow_write)
    order: list[str] = []
    text = HEADER + "Alpha,1,1a,alice,2\nAlpha,1,1b,alice,1\n"

    def import_marks():
        marks_io.marks_import(competition=jury.competition, stream=io.StringIO(text))
        order.append("import")

    def save():
        writing.wait(10)
        status = jury.autosave(2).status_code
        order.append(f"save {status}")
        saved.set()

    run_concurrently([import_marks, save])
    assert order == ["save 200", "import"]


def test_a_bad_file_is_refused_without_waiting_for_the_jury(jury):
    """Before: the import waited for every jury row of the competition, then read the file."""
    held = threading.Event()
    outcome: list[tuple[str, float]] = []
    text = HEADER + "Alpha,1,1a,alice,2\nAlpha,1,1b,alice,7\n"

    def import_marks():
        held.wait(10)
        started = time.monotonic()
        try:
            marks_io.marks_import(competition=jury.competition, stream=io.StringIO(text))
        except GradingError as exc:
            outcome.append((str(exc), time.monotonic() - started))

    run_concurrently([hold_jury_row(jury.problems[1], held), import_marks])
    [(error, seconds)] = outcome
    assert error == "marks.csv, line 3, field 'points': 1b: 7 is outside 0..2"
    assert seconds < HOLD - 1


def test_an_import_checks_its_rows_again_against_a_rubric_version_made_meanwhile(jury):
    """A new version that drops criterion 1b commits while the import waits for the jury
    row: the import checks the file again and refuses the row that marks 1b."""
    from decimal import Decimal

    held, waiting = threading.Event(), threading.Event()
    outcome: list[str] = []
    text = HEADER + "Alpha,1,1a,alice,2\nAlpha,1,1b,alice,1\n"

    def new_version():
        with transaction.atomic():
            rubric_replace(
                problem=jury.problems[1],
                specs=[
                    CriterionSpec(code="1a", title="A", maximum=Decimal("2"), step=Decimal("0.5"))
                ],
                new_version=True,
            )
            held.set()
            waiting.wait(10)
            time.sleep(0.5)  # the import reaches the jury row and waits there

    def import_marks():
        held.wait(10)
        waiting.set()
        try:
            marks_io.marks_import(competition=jury.competition, stream=io.StringIO(text))
            outcome.append("imported")
        except GradingError as exc:
            outcome.append(str(exc))

    run_concurrently([new_version, import_marks])
    assert outcome == ["marks.csv, line 3, field 'criterion': problem 1 has no criterion '1b'"]
    assert not Mark.objects.filter(assignment__paper__problem=jury.problems[1]).exists()
