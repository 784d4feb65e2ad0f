"""Grading by criterion: the page, its order, progress and neighbours, its 404s and blindness;
suggested marks on it and on the paper page, and the accepted flag in Mark's history."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.errors import GradingError
from grading.models import Assignment, Mark
from grading.services import mark_save_by_code
from tests.grading.criterion_data import build

pytestmark = pytest.mark.django_db
D = Decimal


@pytest.fixture
def data(db):
    return build(6)


def url(data, code="1a", paper=None):
    base = reverse("grading:by_criterion", args=[data.problem.pk, data.criteria[code].pk])
    return base + (f"?paper={paper}" if paper else "")


def save(data, code, paper, points, **extra):
    return mark_save_by_code(
        juror=data.juror,
        code=paper.code,
        criterion_id=data.criteria[code].pk,
        points=points,
        **extra,
    )


def test_papers_in_code_order_opening_on_the_first_not_marked(client, data):
    save(data, "1a", data.papers[0], "1")
    save(data, "1a", data.papers[1], "0.5")
    save(data, "1b", data.papers[2], "1")  # another criterion: 1a of paper 2 is not marked
    client.force_login(data.juror)
    page = client.get(url(data)).context["page"]
    assert [p.code for p in page.papers] == [p.code for p in data.papers]
    assert page.paper == data.papers[2]
    assert (page.marked, page.total, page.position) == (2, 6, 2)
    assert (page.previous, page.next) == (data.papers[1].code, data.papers[3].code)
    body = client.get(url(data)).content.decode()
    assert "2 of 6 marked" in body
    assert f'href="?paper={data.papers[3].code}"' in body


def test_position_by_code_and_the_ends_have_one_neighbour(client, data):
    client.force_login(data.juror)
    first = client.get(url(data, paper=data.papers[0].code)).context["page"]
    assert (first.previous, first.next) == (None, data.papers[1].code)
    last = client.get(url(data, paper=data.papers[-1].code)).context["page"]
    assert (last.previous, last.next) == (data.papers[-2].code, None)
    assert last.next_unmarked == data.papers[0].code  # wraps round


def test_the_last_paper_says_how_many_remain_unmarked_and_links_the_next_criterion(client, data):
    """At the last paper nothing said whether the criterion was done or led on."""
    for paper in data.papers[:3]:
        save(data, "1a", paper, "1")
    client.force_login(data.juror)
    last = url(data, paper=data.papers[-1].code)
    body = client.get(last).content.decode()
    assert "This is the last paper: <strong>3 of 6 papers still unmarked</strong> for 1a." in body
    assert f'<a href="?paper={data.papers[3].code}">Next unmarked paper</a>' in body
    following = url(data, "1b")
    assert f'<a id="next-criterion" href="{following}">Next criterion: 1b' in body
    # It asks for itself again after each stored save (the progress line with it).
    assert 'hx-trigger="markSaved from:body"' in body
    assert f'hx-get="{last}"' in body
    assert (
        "criterion-state" not in client.get(url(data, paper=data.papers[0].code)).content.decode()
    )


def test_the_last_paper_of_a_marked_criterion_says_it_is_done(client, data):
    codes = list(data.criteria)
    for paper in data.papers:
        save(data, codes[-1], paper, "0")
    client.force_login(data.juror)
    body = client.get(url(data, codes[-1], paper=data.papers[-1].code)).content.decode()
    assert f"<strong>Criterion {codes[-1]} is done:</strong> all 6 papers marked." in body
    assert 'id="next-criterion"' not in body
    assert f"{codes[-1]} is the last criterion of problem {data.problem.number}:" in body


def test_only_the_criterions_items_are_shown_with_answer_key_and_em(client, data):
    client.force_login(data.juror)
    response = client.get(url(data, "1c", paper=data.papers[1].code))
    (row,) = response.context["page"].answers
    assert [(i["number"], i["exact"]) for i in row["items"]] == [(4, False)]
    body = response.content.decode()
    assert "wrong1" in body and "two" in body and "<strong>rules</strong>" in body
    assert 'class="suggestion"' not in body  # rule none


def test_the_theory_criterion_shows_every_answer_and_no_suggestion(client, data):
    client.force_login(data.juror)
    page = client.get(url(data, "1d")).context["page"]
    assert len(page.answers[0]["items"]) == 4
    assert page.suggestion is None


@pytest.mark.parametrize(
    ("code", "index", "expected"),
    [("1a", 0, "2"), ("1a", 1, "0.5"), ("1a", 2, "1"), ("1b", 0, "3"), ("1b", 1, "1")],
)
def test_the_suggestion_follows_the_items_exact_matches(client, data, code, index, expected):
    client.force_login(data.juror)
    page = client.get(url(data, code, paper=data.papers[index].code)).context["page"]
    assert page.suggestion == D(expected)
    grading = client.get(reverse("grading:grade", args=[data.papers[index].code]))
    assert grading.context["page"].suggestions[data.criteria[code].pk] == D(expected)
    assert f'data-points="{expected}"' in grading.content.decode()


def test_an_accepted_suggestion_is_recorded_in_the_history(data):
    paper = data.papers[1]  # 1a suggests 0.5
    mark = save(data, "1a", paper, "0.5", from_suggestion=True)
    assert Mark.objects.get(pk=mark.pk).from_suggestion is True
    save(data, "1a", paper, "1")  # then typed over
    records = list(
        Mark.history.filter(id=mark.pk)
        .order_by("history_date")
        .values_list("points", "from_suggestion")
    )
    assert records == [(D("0.5"), True), (D("1"), False)]


@pytest.mark.parametrize(("code", "points"), [("1a", "1"), ("1a", ""), ("1c", "0.5")])
def test_a_flag_that_is_not_the_suggestion_is_refused_and_nothing_saved(data, code, points):
    with pytest.raises(GradingError) as error:
        save(data, code, data.papers[1], points, from_suggestion=True)
    assert error.value.field == "from_suggestion"
    assert not Mark.objects.exists()


def test_the_flag_through_the_mark_url_saves_or_refuses(client, data):
    client.force_login(data.juror)
    mark_url = reverse("grading:mark", args=[data.papers[1].code, data.criteria["1a"].pk])
    refused = client.post(
        mark_url, {"points": "1", "from_suggestion": "1", "comment": ""}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 422
    assert "not the suggested mark 0.5" in refused.content.decode()
    assert not Mark.objects.exists()
    saved = client.post(
        mark_url, {"points": "0.5", "from_suggestion": "1", "comment": ""}, HTTP_HX_REQUEST="true"
    )
    assert saved.status_code == 200
    assert Mark.objects.get().from_suggestion is True


def test_a_plain_post_returns_to_the_page_it_came_from(client, data):
    client.force_login(data.juror)
    back = url(data, paper=data.papers[2].code)
    response = client.post(
        reverse("grading:mark", args=[data.papers[2].code, data.criteria["1a"].pk]),
        {"points": "1", "comment": "", "back": back},
    )
    assert response.status_code == 302 and response.url == back
    response = client.post(
        reverse("grading:mark", args=[data.papers[2].code, data.criteria["1a"].pk]),
        {"points": "1", "comment": "", "back": "https://elsewhere.example/jury/problems/"},
    )
    assert response.url.startswith(reverse("grading:grade", args=[data.papers[2].code]))


def test_a_submitted_papers_field_is_disabled_and_shows_the_other_marks(client, data):
    paper = data.papers[0]
    for juror in (data.juror, data.other):
        for code in ("1a", "1b", "1c", "1d"):
            mark_save_by_code(
                juror=juror,
                code=paper.code,
                criterion_id=data.criteria[code].pk,
                points="1" if juror == data.juror else "0",
                comment=f"note of {juror.username}",
            )
    Assignment.objects.filter(paper=paper, juror=data.other).update(submitted_at=timezone.now())
    client.force_login(data.juror)
    body = client.get(url(data, paper=paper.code)).content.decode()
    assert 'name="points"' in body and "disabled" not in body
    assert (
        "note of bycrit-other" not in body and "bycrit-other 0" not in body
    )  # blind before submitting
    Assignment.objects.filter(paper=paper, juror=data.juror).update(submitted_at=timezone.now())
    response = client.get(url(data, paper=paper.code))
    body = response.content.decode()
    assert response.context["page"].assignment.is_submitted
    assert body.count("disabled") == 2  # points and comment
    assert 'class="from-suggestion"' not in body
    assert "bycrit-other 0" in body  # the sheet's cell, now that the juror submitted
    for i in range(len(data.papers)):
        assert f"secret-system-{i}<" not in body and f'secret-system-{i}"' not in body


def test_no_system_name_anywhere_on_the_page(client, data):
    client.force_login(data.juror)
    for code in ("1a", "1b", "1c", "1d"):
        body = client.get(url(data, code)).content.decode()
        assert "secret-system" not in body


@pytest.mark.parametrize("who", ["stranger", "unknown problem", "other problem", "their paper"])
def test_strangers_and_other_problems_are_404(client, data, who):
    other = build(2, slug="elsewhere", prefix="E")
    client.force_login(data.stranger if who == "stranger" else data.juror)
    target = {
        "stranger": url(data),
        "unknown problem": reverse("grading:by_criterion", args=[999999, data.criteria["1a"].pk]),
        # A criterion of a problem the juror has no paper of, and one of another problem.
        "other problem": reverse(
            "grading:by_criterion", args=[data.problem.pk, other.criteria["1a"].pk]
        ),
        "their paper": url(data, paper=other.papers[0].code),
    }[who]
    assert client.get(target).status_code == 404
    client.force_login(data.juror)
    assert (
        client.get(
            reverse("grading:by_criterion", args=[other.problem.pk, other.criteria["1a"].pk])
        ).status_code
        == 404
    )


def test_the_home_page_links_every_criterion(client, data):
    client.force_login(data.juror)
    body = client.get(reverse("grading:home")).content.decode()
    assert "Grade by criterion" in body
    for code in data.criteria:
        assert f'href="{url(data, code)}"' in body


def test_a_revision_after_discussion_is_no_accepted_suggestion(data):
    from grading.services import mark_revise

    paper = data.papers[1]
    mark = save(data, "1a", paper, "0.5", from_suggestion=True)
    assignment = Assignment.objects.get(paper=paper, juror=data.juror)
    Assignment.objects.filter(pk=assignment.pk).update(submitted_at=timezone.now())
    assignment.refresh_from_db()
    mark_revise(assignment=assignment, criterion=data.criteria["1a"], points="0.5", reason="r")
    mark.refresh_from_db()
    assert mark.from_suggestion is False
    assert mark.history.latest().from_suggestion is False


def test_the_chairs_mark_history_shows_an_accepted_suggestion(client, data):
    """The flag was recorded in the history but shown nowhere: the chair's history of a
    mark on the thread page now says which value was an accepted suggestion."""
    from grading.services import mark_revise
    from tests.grading.factories import ChairFactory

    paper = data.papers[1]  # 1a suggests 0.5
    save(data, "1a", paper, "1")
    save(data, "1a", paper, "0.5", from_suggestion=True)
    assignment = Assignment.objects.get(paper=paper, juror=data.juror)
    Assignment.objects.filter(pk=assignment.pk).update(submitted_at=timezone.now())
    assignment.refresh_from_db()
    mark_revise(assignment=assignment, criterion=data.criteria["1a"], points="1", reason="r")
    client.force_login(ChairFactory())
    response = client.get(reverse("grading:thread", args=[paper.code, data.criteria["1a"].pk]))
    history = response.context["page"].history
    assert [(h.old, h.new, h.from_suggestion) for h in history] == [
        (None, D("1"), False),
        (D("1"), D("0.5"), True),
        (D("0.5"), D("1"), False),
    ]
    body = response.content.decode()
    assert body.count("accepted the suggested mark") == 1
