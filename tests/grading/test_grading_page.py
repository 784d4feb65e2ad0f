"""The juror's grading page: questions beside answers, submit and next, announced refusals."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from grading.models import Assignment, Mark
from grading.selectors import next_unfinished_code
from grading.services import assignment_submit, mark_save
from puzzles.models import Output, Task
from tests.puzzles.factories import ProblemFactory, SystemFactory, TaskFactory

from .factories import (
    AssignmentFactory,
    ChairFactory,
    CriterionFactory,
    JurorFactory,
    PaperFactory,
    RubricFactory,
)

pytestmark = pytest.mark.django_db

SHARED = "The suffix -ek marks the plural."
SYSTEM_NAMES = ("Hidden-Model-A", "Hidden-Model-B", "Hidden-Model-C")


@pytest.fixture
def desk():
    """A juror with three papers of one problem: a translation and a fill-the-blank task."""
    problem = ProblemFactory(context="kaimek: dogs")
    translation = TaskFactory(
        problem=problem,
        number=1,
        query="Translate into English:\n1. kaimek\n2. tasorel",
        answer_key=[["dogs"], ["your house"]],
    )
    blanks = TaskFactory(
        problem=problem,
        number=2,
        task_type=Task.TaskType.FILL_BLANKS,
        query="Fill in the blanks:\n3. ma___ek 'my rivers'\n4. ta___un 'in your houses'",
        answer_key=[["vitu"], ["sorelek"]],
    )
    rubric = RubricFactory(problem=problem)
    criteria = [
        CriterionFactory(rubric=rubric, code="1a", order=1),
        CriterionFactory(rubric=rubric, code="1b", order=2),
    ]
    juror = JurorFactory()
    assignments = []
    for index, name in enumerate(SYSTEM_NAMES):
        system = SystemFactory(competition=problem.competition, name=name, team=name)
        for task, items in ((translation, ["dogs", "my house"]), (blanks, ["vitu", "sorel"])):
            Output.objects.create(
                system=system,
                task=task,
                raw_text=str(items),
                parsed_items=items,
                extracted_items=items,
                explanation=SHARED,
                scores={"iol2026": {"parsed": {"item_em": [1, 0]}}},
            )
        paper = PaperFactory(problem=problem, system=system, code=f"P{problem.number}-AAA{index}")
        assignments.append(AssignmentFactory(paper=paper, juror=juror))
    return juror, assignments, criteria


def _grade_url(assignment):
    return reverse("grading:grade", args=[assignment.paper.code])


def _mark_all(assignment, criteria, skip=()):
    for criterion in criteria:
        if criterion.code not in skip:
            mark_save(assignment=assignment, criterion=criterion, points="1")


def _rows(body: str) -> list[str]:
    return re.findall(r"<tr class=\"(?:exact|miss)\">(.*?)</tr>", body, re.S)


def test_each_answer_is_shown_beside_its_question(client, desk):
    juror, assignments, _ = desk
    client.force_login(juror)
    body = client.get(_grade_url(assignments[0])).content.decode()
    rows = _rows(body)
    assert len(rows) == 4
    # A translation: the stimulus beside the answer given to it.
    assert "kaimek" in rows[0] and "dogs" in rows[0]
    assert "tasorel" in rows[1] and "my house" in rows[1]
    # A fill-the-blank task: the blank to fill, with the label the assignment gives it.
    assert "ma___ek" in rows[2] and "vitu" in rows[2] and ">3.<" in rows[2]
    assert "ta___un" in rows[3] and "sorel" in rows[3] and ">4.<" in rows[3]
    assert not any(name in body for name in SYSTEM_NAMES)


def test_an_explanation_shared_by_several_assignments_is_shown_once(client, desk):
    juror, assignments, _ = desk
    client.force_login(juror)
    body = client.get(_grade_url(assignments[0])).content.decode()
    assert body.count(SHARED) == 1
    assert "the same as the explanation to assignment 1" in body


def test_the_next_unfinished_paper_follows_the_home_order_and_wraps(client, desk):
    juror, (first, second, third), criteria = desk
    assert next_unfinished_code(first) == second.paper.code
    assert next_unfinished_code(third) == first.paper.code  # wraps around
    _mark_all(second, criteria)
    assignment_submit(assignment=second)
    assert next_unfinished_code(first) == third.paper.code  # a submitted paper is skipped
    client.force_login(juror)
    body = client.get(_grade_url(first)).content.decode()
    link = reverse("grading:grade", args=[third.paper.code])
    assert f'href="{link}" class="next-paper"' in body


def test_submit_and_next_opens_the_next_unfinished_paper_then_home(client, desk):
    juror, (first, second, third), criteria = desk
    client.force_login(juror)
    for done, following in ((first, second), (second, third)):
        _mark_all(done, criteria)
        submit = reverse("grading:submit", args=[done.paper.code])
        response = client.post(submit, {"then": "next"})
        assert response.status_code == 302
        assert response["Location"] == _grade_url(following)
    _mark_all(third, criteria)
    response = client.post(reverse("grading:submit", args=[third.paper.code]), {"then": "next"})
    assert response["Location"] == reverse("grading:home")
    body = client.get(response["Location"]).content.decode()
    assert re.search(r'<span role="status">[^<]*Every paper of problem \d+ of yours', body)
    assert not Assignment.objects.filter(juror=juror, submitted_at__isnull=True).exists()


def test_a_refused_submit_is_announced_and_focuses_the_first_unmarked_criterion(client, desk):
    juror, (first, *_), criteria = desk
    _mark_all(first, criteria, skip=("1b",))
    client.force_login(juror)
    response = client.post(reverse("grading:submit", args=[first.paper.code]), {"then": "next"})
    assert response.status_code == 422
    body = response.content.decode()
    alert = r'id="submit-error" role="alert"><strong>Error:</strong> not marked yet: 1b'
    assert re.search(alert, body)
    found = re.findall(r'<input class="points"(.*?)data-criterion="(\w+)"', body, re.S)
    fields = {code: attrs for attrs, code in found}
    assert "data-focus" in fields["1b"] and 'aria-describedby="submit-error"' in fields["1b"]
    assert "data-focus" not in fields["1a"]
    first.refresh_from_db()
    assert not first.is_submitted


def test_each_criterion_has_one_live_region_whose_content_the_save_replaces(client, desk):
    juror, (first, *_), criteria = desk
    client.force_login(juror)
    body = client.get(_grade_url(first)).content.decode()
    for criterion in criteria:
        live = f'id="criterion-{criterion.pk}-status" role="status" aria-live="polite"'
        assert body.count(live) == 1
    swaps = re.findall(r'hx-target="find \.mark-live"\s+hx-swap="innerHTML"', body)
    assert len(swaps) == len(criteria)
    url = reverse("grading:mark", args=[first.paper.code, criteria[0].pk])
    saved = client.post(url, {"points": "1"}, HTTP_HX_REQUEST="true")
    assert saved.status_code == 200
    assert "Error" not in saved.content.decode() and "role=" not in saved.content.decode()
    refused = client.post(url, {"points": "7"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 422
    fragment = refused.content.decode()
    # The fragment goes inside the region (not replacing it); its error is in words.
    assert "role=" not in fragment and "mark-live" not in fragment
    error = r'<strong class="error-label">Error:</strong>\s*<span class="status error">1a'
    assert re.search(error, fragment)
    assert Mark.objects.get(assignment=first, criterion=criteria[0]).points == Decimal(1)


def test_points_save_as_they_are_typed_and_the_keys_say_so(client, desk):
    """Only comments saved while typing: a points value never left was lost on reload. And
    Ctrl+Enter opened a confirmation the page did not mention."""
    juror, (first, *_), criteria = desk
    client.force_login(juror)
    body = client.get(_grade_url(first)).content.decode()
    typing = "input changed delay:800ms from:find input.points"
    assert body.count(typing) == len(criteria)
    assert body.count("data-autosave") == len(criteria)
    assert "js/autosave.js" in body
    keys = body[body.index('id="shortcuts-heading"') : body.index("</section>")]
    assert "Points and comments save as you type" in keys
    assert "A dialog asks you to confirm first" in keys


def test_flash_messages_have_a_live_role(client, desk):
    juror, (first, *_), criteria = desk
    client.force_login(juror)
    url = reverse("grading:mark", args=[first.paper.code, criteria[0].pk])
    client.post(url, {"points": "7"})  # a plain form post: back with a message
    body = client.get(_grade_url(first)).content.decode()
    assert re.search(r'<li class="error"><span role="alert">1a', body)
    client.post(url, {"points": "1"})
    body = client.get(_grade_url(first)).content.decode()
    assert '<li class="success"><span role="status">Saved.</span></li>' in body


@pytest.fixture
def thread(desk):
    juror, (first, *_), criteria = desk
    _mark_all(first, criteria)
    assignment_submit(assignment=first)
    chair = ChairFactory()
    url = reverse("grading:thread_post", args=[first.paper.code, criteria[0].pk, "revise"])
    return juror, chair, first, criteria[0], url


def test_a_refused_revision_keeps_the_typed_points_and_reason(client, thread):
    juror, _, first, criterion, url = thread
    client.force_login(juror)
    response = client.post(url, {"points": "7", "reason": "I misread item 2"})
    assert response.status_code == 422
    body = response.content.decode()
    assert 'value="7"' in body and 'value="I misread item 2"' in body
    points = re.search(r'<input[^>]*name="points"[^>]*id="revise_points"[^>]*>', body)[0]
    assert 'aria-invalid="true"' in points and 'aria-describedby="revise_points_error"' in points
    assert re.search(r'id="revise_points_error" role="alert"><strong>Error:</strong> 1a', body)
    assert Mark.objects.get(assignment=first, criterion=criterion).points == Decimal(1)
    # Accepted, it redirects as before.
    response = client.post(url, {"points": "1.5", "reason": "I misread item 2"})
    assert response.status_code == 302
    assert Mark.objects.get(assignment=first, criterion=criterion).points == Decimal("1.5")


def test_a_refused_decision_keeps_the_typed_points_and_reason(client, thread):
    _, chair, first, criterion, _ = thread
    client.force_login(chair)
    url = reverse("grading:thread_post", args=[first.paper.code, criterion.pk, "decide"])
    response = client.post(url, {"points": "0.3", "reason": "off-step"})
    assert response.status_code == 422
    body = response.content.decode()
    assert 'value="0.3"' in body and 'value="off-step"' in body
    assert 'id="decide_points_error" role="alert"' in body
