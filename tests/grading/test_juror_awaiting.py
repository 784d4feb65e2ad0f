"""A juror's home says what awaits them: the discrepant criteria of the papers they
submitted and the threads with posts they have not read; opening a thread marks it read."""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.urls import reverse

from grading import services
from grading.models import Assignment, ProblemJury, ThreadRead
from grading.selectors import juror_awaiting
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    OrganizerFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)

D = Decimal


@pytest.fixture
def jury(db):
    """anna and boris submitted P1 (a 2/0 discrepant, b 1/1) and P2 (all agreed); anna has
    not submitted P3, where boris and cy disagree on a."""
    problem = ProblemJuryFactory(tolerance=D(0)).problem
    rubric = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"))
    anna, boris, cy = (JurorFactory(username=n) for n in ("anna", "boris", "cy"))
    p1, p2, p3 = (PaperFactory(problem=problem, code=f"P5-000{i}") for i in (1, 2, 3))
    paper_graded(p1, {anna: {"a": 2, "b": 1}, boris: {"a": 0, "b": 1}})
    paper_graded(p2, {anna: {"a": 1, "b": 1}, boris: {"a": 1, "b": 1}})
    paper_graded(p3, {boris: {"a": 2, "b": 1}, cy: {"a": 0, "b": 1}})
    paper_graded(p3, {anna: {"a": 1}}, submit=False)
    criteria = {c.code: c for c in rubric.criteria.all()}
    return SimpleNamespace(
        problem=problem,
        papers=(p1, p2, p3),
        criteria=criteria,
        anna=anna,
        boris=boris,
        cy=cy,
    )


def _needs(user) -> list[tuple[str, str, bool, int]]:
    return [(a.paper_code, a.criterion.code, a.discrepant, a.unread) for a in juror_awaiting(user)]


def _post(jury, paper, code, author, text="I read it differently."):
    return services.comment_post(
        paper=paper, criterion=jury.criteria[code], author=author, text=text
    )


def test_discrepant_criteria_of_submitted_papers_only(jury):
    assert _needs(jury.anna) == [("P5-0001", "a", True, 0)]
    # boris submitted P3 too; cy only P3.
    assert _needs(jury.boris) == [("P5-0001", "a", True, 0), ("P5-0003", "a", True, 0)]
    assert _needs(jury.cy) == [("P5-0003", "a", True, 0)]
    # A decision settles it; so does a revision that brings the marks together.
    p1, _, p3 = jury.papers
    services.criterion_decide(
        paper=p1, criterion=jury.criteria["a"], points="1", reason="r", chair=ChairFactory()
    )
    assert _needs(jury.anna) == []
    services.mark_revise(
        assignment=Assignment.objects.get(paper=p3, juror=jury.cy),
        criterion=jury.criteria["a"],
        points="2",
        reason="convinced",
    )
    assert _needs(jury.boris) == []


def test_posts_by_others_are_unread_until_the_thread_is_opened(client, jury):
    p1, p2, p3 = jury.papers
    _post(jury, p2, "b", jury.boris)
    _post(jury, p2, "b", jury.boris, "And another thing.")
    _post(jury, p1, "a", jury.anna)  # her own post is never unread to her
    _post(jury, p3, "b", jury.boris)  # a paper anna has not submitted: not hers to read yet
    assert _needs(jury.anna) == [("P5-0001", "a", True, 0), ("P5-0002", "b", False, 2)]
    assert ("P5-0001", "a", True, 1) in _needs(jury.boris)

    client.force_login(jury.anna)
    thread = reverse("grading:thread", args=[p2.code, jury.criteria["b"].pk])
    assert client.get(thread).status_code == 200
    assert _needs(jury.anna) == [("P5-0001", "a", True, 0)]
    # A later post is unread again, and only it.
    _post(jury, p2, "b", jury.boris, "One more.")
    assert _needs(jury.anna) == [("P5-0001", "a", True, 0), ("P5-0002", "b", False, 1)]
    read = ThreadRead.objects.get(juror=jury.anna, paper=p2)
    assert read.criterion_code == "b"


def test_the_home_lists_them_by_paper_code_with_links_to_the_threads(client, jury):
    p1, p2, _ = jury.papers
    _post(jury, p2, "b", jury.boris)
    client.force_login(jury.anna)
    body = client.get(reverse("grading:home")).content.decode()
    section = re.search(r'<section class="awaiting".*?</section>', body, re.S).group()
    thread = reverse("grading:thread", args=[p1.code, jury.criteria["a"].pk])
    assert f'<a href="{thread}">P5-0001 · a Criterion a</a>' in section
    assert "≠ marks discrepant" in section and "1 unread post" in section
    assert "P5-0003" not in section  # not submitted
    for paper in jury.papers:  # never a system
        assert paper.system.name not in body
    client.force_login(JurorFactory())
    body = client.get(reverse("grading:home")).content.decode()
    assert "Nothing now: no discrepancy on the papers you submitted" in body


def test_a_finalized_problem_awaits_nothing(jury):
    p1, p2, _ = jury.papers
    _post(jury, p2, "b", jury.boris)
    assert _needs(jury.anna)
    ProblemJury.objects.filter(problem=jury.problem).update(finalized_at="2026-01-01T00:00Z")
    assert _needs(jury.anna) == []


def test_reading_never_goes_backwards_and_only_a_papers_juror_leaves_a_record(client, jury):
    p1, p2, _ = jury.papers
    first = _post(jury, p2, "b", jury.boris)
    second = _post(jury, p2, "b", jury.boris)
    criterion = jury.criteria["b"]
    services.thread_mark_read(juror=jury.anna, paper=p2, criterion=criterion, last_post=second.pk)
    services.thread_mark_read(juror=jury.anna, paper=p2, criterion=criterion, last_post=first.pk)
    assert ThreadRead.objects.get(juror=jury.anna).last_post == second.pk
    # A chair or organizer reading a thread is nobody's juror there: no record.
    for reader in (ChairFactory(), OrganizerFactory()):
        client.force_login(reader)
        assert (
            client.get(reverse("grading:thread", args=[p1.code, criterion.pk])).status_code == 200
        )
    assert ThreadRead.objects.count() == 1
    # A juror refused the thread (not submitted) leaves none either.
    client.force_login(jury.anna)
    p3 = jury.papers[2]
    assert client.get(reverse("grading:thread", args=[p3.code, criterion.pk])).status_code == 403
    assert ThreadRead.objects.count() == 1


def test_a_thread_read_stays_read_under_a_new_rubric_version(client, jury):
    """Threads follow the criterion's code into a new version; so does what was read."""
    _, p2, _ = jury.papers
    _post(jury, p2, "b", jury.boris)
    client.force_login(jury.anna)
    client.get(reverse("grading:thread", args=[p2.code, jury.criteria["b"].pk]))
    rows = [{"code": c, "title": f"Criterion {c}", "maximum": 2, "step": 0.5} for c in "ab"]
    specs = services.rubric_specs(problem=jury.problem, criteria=rows, where="test")
    services.rubric_replace(problem=jury.problem, specs=specs, new_version=True, note="v2")
    assert [(code, unread) for _, code, _, unread in _needs(jury.anna)] == [("a", 0)]
