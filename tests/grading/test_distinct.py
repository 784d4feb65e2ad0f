"""The distinct answers of an item across a juror's own papers, and proposed alternatives."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.urls import reverse

from grading.models import AnswerProposal
from grading.selectors import group_answers
from puzzles.models import AnswerAmendment, Output, Task
from puzzles.services import competition_rescore
from tests.grading.factories import AssignmentFactory, JurorFactory, OrganizerFactory, PaperFactory
from tests.puzzles.factories import OutputFactory, ProblemFactory, TaskFactory

pytestmark = pytest.mark.django_db

# One item-1 answer per system; the juror grades the first four papers only.
ANSWERS = ["Tasorelun.", "tasorelun", "ONE", "  one "]
STRANGER_ANSWER = "secret-answer"


@dataclass
class Scene:
    problem: object
    task: Task
    juror: object
    other: object
    codes: list[str]  # the juror's papers, in ANSWERS order
    stranger_code: str  # a paper of the other juror only
    systems: list[str]


@pytest.fixture
def scene(db) -> Scene:
    problem = ProblemFactory(number=1)
    task = TaskFactory(problem=problem, number=1, answer_key=[["one"], ["two"]])
    juror, other = JurorFactory(), JurorFactory()
    codes, systems = [], []
    for answer in [*ANSWERS, STRANGER_ANSWER]:
        paper = PaperFactory(problem=problem)
        OutputFactory(system=paper.system, task=task, raw_text=f'["{answer}", "two"]')
        systems.append(paper.system.name)
        codes.append(paper.code)
        AssignmentFactory(paper=paper, juror=other)
        if answer != STRANGER_ANSWER:
            AssignmentFactory(paper=paper, juror=juror)
    competition_rescore(competition=problem.competition, tasks=[task])
    return Scene(problem, task, juror, other, codes[:-1], codes[-1], systems)


def _url(scene: Scene, task: int = 1, item: int = 1) -> str:
    return reverse("grading:distinct", args=[scene.problem.pk, task, item])


def _propose_url(scene: Scene, item: int = 1) -> str:
    return reverse("grading:propose", args=[scene.problem.pk, 1, item])


def _answers(response) -> dict[str, tuple[int, str, bool]]:
    return {a.text: (a.count, a.em, a.pending) for a in response.context["page"].answers}


def test_group_answers_groups_by_the_metrics_normal_form():
    groups = group_answers(
        [
            ("A", "Tasorelun.", False),
            ("B", " tasorelun ", False),
            ("C", "‘one’", True),
            ("D", "", False),
        ]
    )
    assert [(g.text, g.codes, g.em) for g in groups] == [
        ("tasorelun", ["A", "B"], "no"),
        ("one", ["C"], "yes"),
        ("", ["D"], "no"),
    ]
    assert group_answers([("A", "x", True), ("B", "X", False)])[0].em == "mixed"


def test_the_page_counts_own_papers_by_normalized_answer_with_em_flags(client, scene):
    client.force_login(scene.juror)
    response = client.get(_url(scene))
    assert response.status_code == 200
    assert _answers(response) == {"tasorelun": (2, "no", False), "one": (2, "yes", False)}
    html = response.content.decode()
    for code in scene.codes:
        assert reverse("grading:grade", args=[code]) in html
    assert scene.stranger_code not in html
    assert STRANGER_ANSWER not in html
    assert not any(name in html for name in scene.systems)
    # Item 2: every paper answered the key.
    assert _answers(client.get(_url(scene, item=2))) == {"two": (4, "yes", False)}


def test_the_home_page_links_to_the_first_item(client, scene):
    client.force_login(scene.juror)
    home = client.get(reverse("grading:home")).content.decode()
    first = reverse("grading:distinct_first", args=[scene.problem.pk])
    assert first in home
    response = client.get(first)
    assert response.status_code == 200
    assert response.context["page"].item_number == 1
    assert _url(scene, item=2) in response.content.decode()  # the item navigation


def test_items_outside_the_jurors_problems_are_404(client, scene):
    client.force_login(scene.juror)
    elsewhere = ProblemFactory(competition=scene.problem.competition, number=2)
    TaskFactory(problem=elsewhere, number=1)
    assert client.get(reverse("grading:distinct", args=[elsewhere.pk, 1, 1])).status_code == 404
    assert client.get(reverse("grading:distinct_first", args=[elsewhere.pk])).status_code == 404
    assert client.get(_url(scene, task=2)).status_code == 404
    assert client.get(_url(scene, item=3)).status_code == 404
    assert client.get(_url(scene, item=0)).status_code == 404
    response = client.post(
        reverse("grading:propose", args=[elsewhere.pk, 1, 1]), {"answer": "x", "reason": "y"}
    )
    assert response.status_code == 404
    assert (
        client.post(_propose_url(scene, item=3), {"answer": "x", "reason": "y"}).status_code == 404
    )
    assert not AnswerProposal.objects.exists()


@pytest.mark.parametrize(
    ("answer", "field", "message"),
    [
        ("   ", "answer", "the answer is empty"),
        ("One.", "answer", "the key already accepts"),
        ("tasorelun", "reason", "give a reason"),
    ],
)
def test_refused_proposals_write_nothing_and_say_why_at_the_field(
    client, scene, answer, field, message
):
    client.force_login(scene.juror)
    reason = "" if field == "reason" else "a known variant"
    response = client.post(_propose_url(scene), {"answer": answer, "reason": reason})
    assert response.status_code == 422  # the page again, as typed: no redirect
    assert not AnswerProposal.objects.exists()
    html = response.content.decode()
    assert message in html
    assert f'aria-describedby="{field}-error"' in html
    assert f'id="{field}-error"' in html
    assert html.count("autofocus") == 1  # focus lands on the refused field
    # The typed text is kept; a reload no longer shows the refusal.
    assert client.get(_url(scene)).content.decode().count("aria-invalid") == 0


def test_a_duplicate_pending_proposal_of_the_same_answer_is_refused(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "Tasorelun", "reason": "a variant"})
    assert AnswerProposal.objects.count() == 1
    response = client.post(
        _propose_url(scene), {"answer": " TASORELUN. ", "reason": "again"}, follow=True
    )
    assert "pending already" in response.content.decode()
    assert AnswerProposal.objects.count() == 1
    # Another juror may propose it too; the juror sees it pending, not who proposed it.
    client.force_login(scene.other)
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "me too"})
    assert AnswerProposal.objects.count() == 2
    client.force_login(scene.juror)
    response = client.get(_url(scene))
    assert _answers(response)["tasorelun"] == (2, "no", True)
    html = response.content.decode()
    assert scene.other.username not in html and "me too" not in html
    assert [p.reason for p in response.context["page"].proposals] == ["a variant"]


def test_accepting_amends_the_key_rescores_and_the_page_follows(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "Tasorelun", "reason": "a variant"})
    client.force_login(scene.other)
    client.post(_propose_url(scene), {"answer": "tasorelun.", "reason": "me too"})
    proposal = AnswerProposal.objects.get(proposed_by=scene.juror)
    organizer = OrganizerFactory()
    client.force_login(organizer)
    page = client.get(reverse("puzzles:answer_key", args=[scene.problem.competition.slug]))
    html = page.content.decode()
    assert scene.juror.username in html and "a variant" in html  # organizers see who
    response = client.post(
        reverse("puzzles:proposal_accept", args=[scene.problem.competition.slug, proposal.pk]),
        follow=True,
    )
    assert response.status_code == 200
    scene.task.refresh_from_db()
    assert scene.task.answer_key[0] == ["one", "Tasorelun"]
    amendment = AnswerAmendment.objects.get()
    assert (amendment.item_number, amendment.text, amendment.created_by) == (
        1,
        "Tasorelun",
        organizer,
    )
    flags = [
        o.scores["iol2026"]["parsed"]["item_em"][0]
        for o in Output.objects.filter(task=scene.task).order_by("system__papers__code")
    ]
    assert flags == [1.0, 1.0, 1.0, 1.0, 0.0]
    # Both pending proposals of that answer are settled.
    assert set(AnswerProposal.objects.values_list("status", flat=True)) == {"accepted"}
    client.force_login(scene.juror)
    response = client.get(_url(scene))
    assert _answers(response)["tasorelun"] == (2, "yes", False)
    assert response.context["page"].proposals[0].status == "accepted"
    # Accepting it again is refused with a message, nothing changes.
    client.force_login(organizer)
    response = client.post(
        reverse("puzzles:proposal_accept", args=[scene.problem.competition.slug, proposal.pk]),
        follow=True,
    )
    assert "accepted already" in response.content.decode()
    assert AnswerAmendment.objects.count() == 1


def test_rejecting_needs_a_reason_and_the_juror_reads_it(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "a variant"})
    proposal = AnswerProposal.objects.get()
    client.force_login(OrganizerFactory())
    url = reverse("puzzles:proposal_reject", args=[scene.problem.competition.slug, proposal.pk])
    response = client.post(url, {"reason": "  "})
    assert response.status_code == 422  # the key again, the error in the proposal's row
    assert "give the juror a reason" in response.content.decode()
    assert f'id="reject-{proposal.pk}-reason_error"' in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    client.post(url, {"reason": "a different word"})
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decision_reason) == ("rejected", "a different word")
    scene.task.refresh_from_db()
    assert scene.task.answer_key[0] == ["one"]
    client.force_login(scene.juror)
    response = client.get(_url(scene))
    assert "a different word" in response.content.decode()
    assert _answers(response)["tasorelun"] == (2, "no", False)
    # Rejected, it may be proposed again.
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "read again"})
    assert AnswerProposal.objects.filter(status="pending").count() == 1


def test_a_rejection_typed_wrong_comes_back_with_the_reason_as_typed(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "a variant"})
    proposal = AnswerProposal.objects.get()
    client.force_login(OrganizerFactory())
    url = reverse("puzzles:proposal_reject", args=[scene.problem.competition.slug, proposal.pk])
    typed = "too long a reason " * 120  # over the 2000 characters of the form
    response = client.post(url, {"reason": typed})
    assert response.status_code == 422
    page = response.content.decode()
    assert f'value="{typed}"' in page and f'id="reject-{proposal.pk}-reason_error"' in page
    assert "at most 2000 characters" in page
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decision_reason) == ("pending", "")


def test_a_proposal_of_another_competition_is_refused(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "a variant"})
    proposal = AnswerProposal.objects.get()
    other = ProblemFactory().competition
    client.force_login(OrganizerFactory())
    response = client.post(
        reverse("puzzles:proposal_accept", args=[other.slug, proposal.pk]), follow=True
    )
    assert "no proposal" in response.content.decode()
    assert AnswerProposal.objects.get().status == "pending"


def test_jurors_are_refused_the_organizer_routes(client, scene):
    client.force_login(scene.juror)
    client.post(_propose_url(scene), {"answer": "tasorelun", "reason": "a variant"})
    proposal = AnswerProposal.objects.get()
    slug = scene.problem.competition.slug
    for name in ("puzzles:proposal_accept", "puzzles:proposal_reject"):
        response = client.post(reverse(name, args=[slug, proposal.pk]), {"reason": "x"})
        assert response.status_code == 403
    assert client.get(reverse("puzzles:answer_key", args=[slug])).status_code == 403
    assert AnswerProposal.objects.get().status == "pending"
    client.force_login(OrganizerFactory())
    assert client.get(_url(scene)).status_code == 403


def test_the_service_refuses_a_stranger_and_answers_empty_once_normalized(scene):
    from grading.errors import GradingError
    from grading.services import proposal_create

    stranger = JurorFactory()
    with pytest.raises(GradingError, match="no paper of this problem"):
        proposal_create(juror=stranger, task=scene.task, item_number=1, answer="x", reason="y")
    with pytest.raises(GradingError, match="empty once normalized"):
        proposal_create(juror=scene.juror, task=scene.task, item_number=1, answer="'.'", reason="y")
    with pytest.raises(GradingError, match="items 1 to 2"):
        proposal_create(juror=scene.juror, task=scene.task, item_number=3, answer="x", reason="y")
    assert not AnswerProposal.objects.exists()


def test_accepting_an_answer_the_key_took_meanwhile_is_refused(scene):
    from grading.errors import GradingError
    from grading.services import proposal_accept, proposal_create
    from puzzles.services import answer_key_amend

    proposal = proposal_create(
        juror=scene.juror, task=scene.task, item_number=1, answer="Tasorelun", reason="variant"
    )
    answer_key_amend(task=scene.task, item_number=1, add="tasorelun.")
    with pytest.raises(GradingError, match="accepts 'Tasorelun' for item 1 already"):
        proposal_accept(
            competition=scene.problem.competition, proposal_id=proposal.pk, user=OrganizerFactory()
        )
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert AnswerAmendment.objects.count() == 1
