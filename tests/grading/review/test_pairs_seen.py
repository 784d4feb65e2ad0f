"""Blindness by sequence: whoever is shown which system wrote which paper of a competition is
not blind for it; the jury page says so, and neither the grading groups nor the assignment of
jurors give them papers of it without the organizer's recorded confirmation. The review opens
to a chair only once their own papers are in, and says so."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from grading.errors import GradingError
from grading.models import Assignment, PairsSeen, Paper, ProblemJuror
from grading.selectors import not_blind
from grading.services import jurors_assign, problem_jurors_set
from tests.grading.factories import AssignmentFactory, PaperFactory
from tests.puzzles.factories import SystemFactory

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(m) for m in response.wsgi_request._messages]


def _codes_in(text: str) -> set[str]:
    return {code for code in Paper.objects.values_list("code", flat=True) if code in text}


def _seen(built, user=None) -> PairsSeen | None:
    user = user or built.chair
    return PairsSeen.objects.filter(user=user, competition=built.competition).first()


# --- recording -------------------------------------------------------------------------------


def test_reading_the_review_records_the_chair_once(client, built):
    """The page shows papers beside their systems: the first view writes the record, later
    views write nothing (the record's history keeps one row)."""
    client.force_login(built.chair)
    assert _seen(built) is None
    page = client.get(reverse("grading:review", args=["rv"])).content.decode()
    assert _codes_in(page)  # the most divergent papers, by code, beside their system
    record = _seen(built)
    assert record is not None and record.source == "the result review page"
    for _ in range(3):
        assert client.get(reverse("grading:review", args=["rv"])).status_code == 200
    assert PairsSeen.history.filter(user_id=built.chair.pk).count() == 1
    assert PairsSeen.objects.count() == 1


@pytest.mark.parametrize(
    ("url", "source"),
    [
        ("/c/rv/review.json", "the result review JSON"),
        ("/c/rv/review/?format=json", "the result review JSON"),
        ("/c/rv/review/divergent-papers.csv", "the result review's table divergent-papers"),
        ("/c/rv/review/divergent-papers.xlsx", "the result review's table divergent-papers"),
    ],
)
def test_every_review_file_with_papers_records_the_reader(client, built, url, source):
    client.force_login(built.chair)
    response = client.get(url)
    assert response.status_code == 200
    if url.endswith(".csv") or "json" in url:
        assert _codes_in(response.content.decode())  # it does name papers
    assert _seen(built).source == source


def test_the_review_pdf_records_the_reader(client, built):
    client.force_login(built.chair)
    response = client.get(reverse("grading:review_pdf", args=["rv"]))
    assert response.status_code == 200
    assert _seen(built).source == "the result review PDF"


@pytest.mark.parametrize(
    "url",
    [
        "/c/rv/review/systems.csv",
        "/c/rv/review/criterion-difficulty.csv",
        "/c/rv/review/agreement.csv",
        "/c/rv/review/charts/scatter.svg",
        "/c/rv/review/charts/placement.svg",
        "/c/rv/review/charts/difficulty.svg",
        "/c/rv/review/charts/agreement.svg",
    ],
)
def test_what_names_no_paper_records_nothing(client, built, url):
    client.force_login(built.chair)
    response = client.get(url)
    assert response.status_code == 200
    assert not _codes_in(response.content.decode("utf-8", "replace"))
    assert _seen(built) is None


def test_the_divergence_chart_records_the_reader(client, built):
    """It draws each system's automatic score minus its jury points per problem: with the
    automatic scores (public), a system's points on a problem, which a chair matches to a
    paper's total on the sheet (before: it recorded no one)."""
    client.force_login(built.chair)
    response = client.get("/c/rv/review/charts/divergence.svg")
    assert response.status_code == 200
    assert _seen(built).source == "the result review's chart divergence"


def test_the_rule_agrees_with_the_page(client, built):
    """One rule for every response: it shows pairs when it shows a paper code beside its
    system, or a system's jury points on one problem (the page's systems table has them per
    problem, so it records even without the most divergent papers); for a chart or a table,
    what that chart or table shows."""
    from dataclasses import replace

    from grading.review.cache import review_cached
    from grading.review.views import review_shows_pairs

    client.force_login(built.chair)
    page = client.get(reverse("grading:review", args=["rv"])).content.decode()
    assert bool(_codes_in(page)) == (_seen(built) is not None) is True
    review = review_cached(competition=built.competition, with_charts=False).review
    assert review_shows_pairs(review, "page")
    no_codes = replace(review, divergent_papers=(), divergences=(), observations=None)
    assert review_shows_pairs(no_codes, "page")  # the systems table's points per problem
    assert review_shows_pairs(review, "chart:divergence")
    assert not review_shows_pairs(no_codes, "chart:divergence")
    assert review_shows_pairs(review, "table:divergent-papers")
    assert not review_shows_pairs(review, "table:agreement")
    no_points = replace(
        no_codes,
        systems=tuple(replace(s, jury_by_problem={}, jury_total=None) for s in review.systems),
    )
    assert not review_shows_pairs(no_points, "page")
    # Totals of systems graded on both problems match no paper; a total that is one
    # problem's points does (the scatter, the placement and the systems table show totals).
    assert not review_shows_pairs(review, "chart:scatter")
    assert not review_shows_pairs(review, "table:systems")
    one = review.systems[0]
    number, points = next((n, p) for n, p in one.jury_by_problem.items() if p is not None)
    only_one = replace(
        no_codes,
        systems=(replace(one, jury_by_problem={number: points}, jury_total=points),),
    )
    for part in ("chart:scatter", "chart:placement", "table:systems"):
        assert review_shows_pairs(only_one, part), part
    assert not review_shows_pairs(only_one, "chart:difficulty")


def test_the_marks_export_records_the_organizer(organizer_client, organizer, built):
    response = organizer_client.get(reverse("grading:marks_export", args=["rv", "csv"]))
    assert response.status_code == 200 and _codes_in(response.content.decode())
    assert _seen(built, organizer).source == "the marks export (csv)"


# --- the jury page, the grading groups, the assignment ---------------------------------------


@pytest.fixture
def seen(built):
    """The chair has read the review; problem 1 gets a new paper that needs a juror."""
    client = Client()  # its own: the tests' client is the organizer's
    client.force_login(built.chair)
    assert client.get(reverse("grading:review", args=["rv"])).status_code == 200
    assert _seen(built) is not None
    paper = PaperFactory(
        problem=built.problems[1], system=SystemFactory(competition=built.competition)
    )
    return paper


def test_the_jury_page_says_who_is_not_blind_and_why(organizer_client, built, seen):
    ProblemJuror.objects.create(problem=built.problems[1], juror=built.jurors[1][0])
    page = organizer_client.get(reverse("grading:jury", args=["rv"])).content.decode()
    assert "Not blind for this competition" in page
    item = re.search(rf"<strong>{built.chair.username}</strong>:([^<]*)", page)
    assert item and "shown which system wrote which paper by the result review page" in item[1]
    assert f"<strong>{built.jurors[1][0].username}</strong>" not in page  # blind: not listed


def test_the_group_form_refuses_a_juror_not_blind_unless_confirmed(
    organizer_client, organizer, built, seen
):
    url = reverse("grading:group", args=["rv"])
    data = {"problem": 1, "jurors": [built.chair.username]}
    response = organizer_client.post(url, data)
    assert response.status_code == 422  # the jury page again, the form as it was filled
    refusal = response.context["group_form"].errors.as_text()
    assert f"not blind for rv: {built.chair.username} (shown which system" in refusal
    assert "--allow-seen" in refusal
    assert not ProblemJuror.objects.filter(juror=built.chair).exists()
    assert _seen(built).confirmed_at is None
    response = organizer_client.post(url, {**data, "allow_seen": "on"})
    assert ProblemJuror.objects.filter(juror=built.chair, problem=built.problems[1]).exists()
    record = _seen(built)
    assert record.confirmed_by == organizer and record.confirmed_at is not None
    page = organizer_client.get(reverse("grading:jury", args=["rv"])).content.decode()
    assert f"assigning confirmed by {organizer.username}" in page


def test_assigning_refuses_a_juror_not_blind_unless_confirmed(
    organizer_client, organizer, built, seen
):
    problem_jurors_set(problem=built.problems[1], usernames=[built.chair.username], allow_seen=True)
    PairsSeen.objects.update(confirmed_at=None, confirmed_by=None)
    url = reverse("grading:assign", args=["rv"])
    response = organizer_client.post(url, {"per_paper": 1})
    assert response.status_code == 422  # the jury page again, the form as it was filled
    refusal = response.context["assign_form"].errors.as_text()
    assert f"not blind for rv: {built.chair.username}" in refusal
    assert not Assignment.objects.filter(paper=seen).exists()  # nothing assigned at all
    response = organizer_client.post(url, {"per_paper": 1, "allow_seen": "on"})
    assert Assignment.objects.filter(paper=seen, juror=built.chair).exists()
    assert "assigned on the organizer's confirmation" in " ".join(_messages(response))
    assert _seen(built).confirmed_by == organizer


def test_the_commands_refuse_unless_allow_seen(built, seen):
    chair = built.chair.username
    with pytest.raises(CommandError, match=f"not blind for rv: {chair}"):
        call_command("set_jury_group", "rv", "1", "--jurors", chair, stdout=io.StringIO())
    call_command(
        "set_jury_group", "rv", "1", "--jurors", chair, "--allow-seen", stdout=io.StringIO()
    )
    PairsSeen.objects.update(confirmed_at=None)
    with pytest.raises(CommandError, match=f"not blind for rv: {chair}"):
        call_command("assign_jurors", "rv", "--per-paper", "1", stdout=io.StringIO())
    assert not Assignment.objects.filter(paper=seen).exists()
    out = io.StringIO()
    call_command("assign_jurors", "rv", "--per-paper", "1", "--allow-seen", stdout=out)
    assert f"{chair} is not blind" in out.getvalue()
    assert Assignment.objects.filter(paper=seen, juror=built.chair).exists()
    record = _seen(built)
    assert record.confirmed_at is not None and record.confirmed_by is None  # the command line
    assert "confirmed by the command line" in not_blind(built.competition)[0].confirmed


def test_blind_jurors_are_assigned_as_before(built, seen):
    """The rule only touches the not blind: a group of blind jurors is assigned unasked."""
    ProblemJuror.objects.create(problem=built.problems[1], juror=built.jurors[1][0])
    report = jurors_assign(competition=built.competition, per_paper=1)
    assert report.created == 1 and not report.confirmed


def test_a_group_member_made_organizer_is_refused_papers_unless_confirmed(built, seen):
    from django.contrib.auth.models import Group

    juror = built.jurors[1][0]
    ProblemJuror.objects.create(problem=built.problems[1], juror=juror)
    juror.groups.add(Group.objects.get_or_create(name="organizer")[0])
    with pytest.raises(GradingError, match=f"{juror.username} \\(an organizer"):
        jurors_assign(competition=built.competition, per_paper=1)
    jurors_assign(competition=built.competition, per_paper=1, allow_seen=True)
    assert PairsSeen.objects.get(user=juror).source == "the organizer role"


# --- the review waits for the chair's own papers, and says so -------------------------------


def test_the_refusal_and_the_chairs_home_say_why_and_when_the_review_opens(client, built):
    paper = PaperFactory(
        problem=built.problems[2], system=SystemFactory(competition=built.competition)
    )
    own = AssignmentFactory(paper=paper, juror=built.chair)
    client.force_login(built.chair)
    response = client.get(reverse("grading:review", args=["rv"]))
    assert response.status_code == 403
    body = response.content.decode()
    assert "names the system behind papers" in body
    assert f"opens once you submit your 1 paper still in progress ({paper.code})" in body
    home = client.get(reverse("grading:home")).content.decode()
    link = home.split(reverse("grading:review", args=["rv"]))[1].split("</li>")[0]
    assert "closed while you grade" in link and "1 paper still in progress" in link
    assert _seen(built) is None
    own.submitted_at = own.created_at
    own.save()
    assert client.get(reverse("grading:review", args=["rv"])).status_code == 200
    home = client.get(reverse("grading:home")).content.decode()
    link = home.split(reverse("grading:review", args=["rv"]))[1].split("</li>")[0]
    assert "no longer blind" in link and "closed while you grade" not in link


# --- the admin ----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["user", "group"])
@pytest.mark.parametrize(
    ("model", "codename"), [("paper", "view_paper"), ("output", "view_output")]
)
def test_a_staff_account_that_can_view_papers_or_outputs_in_the_admin_is_not_blind(
    client, built, how, model, codename
):
    """The admin lists papers beside their systems, and outputs (the papers' text) beside
    theirs: a staff account allowed to view either is not blind, whether or not it looked
    (before: a juror given that permission graded blind as far as the app knew)."""
    from django.contrib.auth.models import Group, Permission

    from tests.grading.factories import JurorFactory

    juror = JurorFactory()
    permission = Permission.objects.get(codename=codename)
    assert permission.content_type.model == model
    juror.is_staff = True
    juror.save()
    assert not not_blind(built.competition, [juror.pk])  # staff alone sees no pair
    if how == "user":
        juror.user_permissions.add(permission)
    else:
        group = Group.objects.create(name="admin readers")
        group.permissions.add(permission)
        juror.groups.add(group)
    client.force_login(juror)
    if model == "paper":  # what the permission shows: codes beside systems
        page = client.get(reverse("admin:grading_paper_changelist")).content.decode()
        assert _codes_in(page) and built.systems[0].name in page
    [found] = not_blind(built.competition, [juror.pk])
    assert found.username == juror.username
    assert found.reason == (
        "a staff account that may view papers or system outputs in the admin, beside their systems"
    )
    with pytest.raises(GradingError, match="not blind for rv"):
        problem_jurors_set(problem=built.problems[1], usernames=[juror.username])
    juror.is_staff = False  # no admin without staff: blind again
    juror.save()
    assert not not_blind(built.competition, [juror.pk])
