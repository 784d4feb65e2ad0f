"""Each item's question on the distinct answers and the answer key (the one reading of the
item's line of the assignment), and what accepting a proposal does on a finalized problem:
said on the answer-key page before and after."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from grading import pdf, text
from grading.models import AnswerProposal, Mark, ProblemJury, Resolution
from grading.selectors import answers as selectors_answers
from grading.selectors import distinct as selectors_distinct
from puzzles import questions
from puzzles import selectors as puzzles_selectors
from puzzles.models import Output, Task
from puzzles.services import competition_rescore
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    OrganizerFactory,
    PaperFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import OutputFactory, ProblemFactory, TaskFactory

pytestmark = pytest.mark.django_db

QUERY = "Translate into English:\na. tasorelun\nb. kaimek mavi\nc. nipen"
FINALIZED = "is finalized: changing its key rescores the automatic scores only"


@dataclass
class Scene:
    problem: object
    task: Task  # its query names its three items
    plain: Task  # a task whose query does not
    juror: object
    other: object
    papers: list


@pytest.fixture
def scene(db) -> Scene:
    problem = ProblemFactory(number=2)
    task = TaskFactory(
        problem=problem, number=1, query=QUERY, answer_key=[["one"], ["two"], ["three"]]
    )
    plain = TaskFactory(
        problem=problem, number=2, query="Write the numbers.", answer_key=[["4"], ["5"]]
    )
    rubric_with(problem, ("a", 2, "0.5"))
    juror, other = JurorFactory(), JurorFactory()
    papers = []
    for answers in (["uno", "two", "three"], ["one", "two", "tres"]):
        paper = PaperFactory(problem=problem)
        OutputFactory(system=paper.system, task=task, raw_text=str(answers).replace("'", '"'))
        paper_graded(paper, {juror: {"a": 1}, other: {"a": 1}})
        papers.append(paper)
    competition_rescore(competition=problem.competition)
    return Scene(problem, task, plain, juror, other, papers)


def test_one_reading_of_an_items_line_serves_every_page():
    """The grading page, the PDF, the distinct answers and the answer key read an item's
    question with the same function, puzzles.questions.item_prompts: imported from there,
    never re-exported by grading's modules."""
    assert selectors_answers.item_prompts is questions.item_prompts
    assert selectors_distinct.item_prompts is questions.item_prompts
    assert puzzles_selectors.item_prompts is questions.item_prompts
    assert not hasattr(text, "item_prompts")
    assert not hasattr(pdf, "item_prompts")
    assert questions.item_prompts(QUERY, 3) == [
        ("a", "tasorelun"),
        ("b", "kaimek mavi"),
        ("c", "nipen"),
    ]


def test_the_distinct_answers_show_the_items_question(client, scene):
    client.force_login(scene.juror)
    url = reverse("grading:distinct", args=[scene.problem.pk, 1, 2])
    response = client.get(url)
    assert response.context["page"].question == ("b", "kaimek mavi")
    body = response.content.decode()
    assert re.search(r'<p class="question">\s*Question:\s*<span class="muted">b\.</span>', body)
    assert "kaimek mavi" in body
    # A task whose lines do not name its items shows no question, and its text whole.
    response = client.get(reverse("grading:distinct", args=[scene.problem.pk, 2, 1]))
    assert response.context["page"].question is None
    body = response.content.decode()
    assert '<p class="question">' not in body
    assert "<summary>The assignment</summary>" in body and "Write the numbers." in body


def test_the_answer_key_shows_each_items_question(client, scene):
    client.force_login(OrganizerFactory())
    response = client.get(reverse("puzzles:answer_key", args=[scene.problem.competition.slug]))
    tasks = {t.task.number: t for t in response.context["tasks"]}
    assert [(i.number, i.label, i.question) for i in tasks[1].items] == [
        (1, "a", "tasorelun"),
        (2, "b", "kaimek mavi"),
        (3, "c", "nipen"),
    ]
    assert tasks[1].has_questions and not tasks[2].has_questions
    body = response.content.decode()
    assert '<td class="question"><span class="muted">b.</span> kaimek mavi</td>' in body
    assert body.count('<th class="question">Question</th>') == 1


def _finalize(scene) -> None:
    """Finalize the problem (its jurors agree on every paper: nothing is left open)."""
    chair = ChairFactory()
    ProblemJury.objects.update_or_create(
        problem=scene.problem, defaults={"finalized_at": timezone.now(), "finalized_by": chair}
    )


def _propose(client, scene, answer="uno", item=1):
    client.force_login(scene.juror)
    url = reverse("grading:propose", args=[scene.problem.pk, 1, item])
    client.post(url, {"answer": answer, "reason": "a variant"})
    return AnswerProposal.objects.get(answer=answer)


def test_accepting_on_a_finalized_problem_says_before_and_after_that_the_finals_stand(
    client, scene
):
    proposal = _propose(client, scene)
    slug = scene.problem.competition.slug
    organizer = OrganizerFactory()
    client.force_login(organizer)
    page = client.get(reverse("puzzles:answer_key", args=[slug])).content.decode()
    assert FINALIZED not in page  # not finalized yet: nothing to say
    assert "no juror's mark and no chair's decision changes" in page

    _finalize(scene)
    page = client.get(reverse("puzzles:answer_key", args=[slug])).content.decode()
    row = re.search(rf'<tr id="proposal-{proposal.pk}">.*?</tr>', page, re.S).group()
    assert f"Problem 2 {FINALIZED}" in row  # before accepting, beside the proposal
    assert "marks and final marks stand" in row
    assert page.count(f"Problem 2 {FINALIZED}") == 3  # and under both of its tasks

    marks = sorted(Mark.objects.values_list("pk", "points"))
    before = {o.pk: o.scores["iol2026"]["parsed"]["item_em"] for o in Output.objects.all()}
    response = client.post(
        reverse("puzzles:proposal_accept", args=[slug, proposal.pk]), follow=True
    )
    said = [str(m) for m in response.context["messages"]]
    assert any(FINALIZED in m for m in said), said  # after accepting, said again
    # What it says is true: the automatic scores moved, the jury's results did not.
    after = {o.pk: o.scores["iol2026"]["parsed"]["item_em"] for o in Output.objects.all()}
    assert after != before
    assert sorted(Mark.objects.values_list("pk", "points")) == marks
    assert not Resolution.objects.exists()
    assert ProblemJury.objects.get(problem=scene.problem).finalized_at is not None


def test_accepting_on_an_open_problem_says_nothing_of_finals(client, scene):
    proposal = _propose(client, scene, answer="tres", item=3)
    client.force_login(OrganizerFactory())
    slug = scene.problem.competition.slug
    response = client.post(
        reverse("puzzles:proposal_accept", args=[slug, proposal.pk]), follow=True
    )
    said = [str(m) for m in response.context["messages"]]
    assert said and not any(FINALIZED in m for m in said), said


def test_amending_a_finalized_problems_key_by_command_or_form_says_so(client, scene):
    _finalize(scene)
    out = io.StringIO()
    slug = scene.problem.competition.slug
    call_command("amend_answer", slug, scene.task.external_id, "1", "--add", "uno", stdout=out)
    assert f"Problem 2 {FINALIZED}" in out.getvalue()
    client.force_login(OrganizerFactory())
    response = client.post(
        reverse("puzzles:answer_key", args=[slug]),
        {"task": scene.task.external_id, "item_number": 3, "action": "add", "text": "tres"},
    )
    section = re.search(
        r"<h2>Effect of the amendment</h2>.*?</section>", response.content.decode(), re.S
    )
    assert f"Problem 2 {FINALIZED}" in section.group()
    assert Mark.objects.filter(points=Decimal(1)).count() == 4
