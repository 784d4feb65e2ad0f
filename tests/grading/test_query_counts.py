"""The grading page and the comparison sheet use a constant number of queries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from grading.models import Assignment, Criterion, Mark, Paper, Rubric
from ioleval.roles import CHAIR, JUROR
from puzzles.models import Competition, Output, Problem, System, Task

pytestmark = pytest.mark.django_db
MAX_QUERIES = 15


def _build(n_papers: int, n_jurors: int = 3, n_criteria: int = 10, first_code: int = 0):
    """Build one problem with n papers, each graded and submitted by n jurors."""
    competition = Competition.objects.create(slug=f"scale{n_papers}", name="Scale")
    problem = Problem.objects.create(competition=competition, number=1, context="data ɮ ʁ")
    task = Task.objects.create(
        problem=problem,
        external_id="T1",
        number=1,
        task_type="translation",
        answer_key=[["a"], ["b"], ["c"]],
    )
    rubric = Rubric.objects.create(problem=problem, version=1)
    criteria = Criterion.objects.bulk_create(
        Criterion(
            rubric=rubric,
            order=i,
            code=f"c{i}",
            title=f"criterion {i}",
            maximum=Decimal(2),
            step=Decimal("0.5"),
            task=task,
        )
        for i in range(1, n_criteria + 1)
    )
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"sys{i}") for i in range(n_papers)
    )
    Output.objects.bulk_create(
        Output(
            system=s,
            task=task,
            raw_text='["a","x","c"]',
            parsed_items=["a", "x", "c"],
            extracted_items=["a", "x", "c"],
            explanation="**why**",
            scores={"iol2026": {"parsed": {"em": 0.67, "chrf": 0.7, "item_em": [1, 0, 1]}}},
        )
        for s in systems
    )
    papers = Paper.objects.bulk_create(
        Paper(system=s, problem=problem, code=f"P1-{first_code + i:04d}")
        for i, s in enumerate(systems)
    )
    User = get_user_model()
    jurors = [User.objects.create_user(f"j{n_papers}_{i}") for i in range(n_jurors)]
    for user in jurors:
        user.groups.add(Group.objects.get_or_create(name=JUROR)[0])
    now = timezone.now()
    assignments = Assignment.objects.bulk_create(
        Assignment(paper=p, juror=j, submitted_at=now) for p in papers for j in jurors
    )
    Mark.objects.bulk_create(
        Mark(assignment=a, criterion=c, points=Decimal(index % 3) / 2)
        for index, a in enumerate(assignments)
        for c in criteria
    )
    return competition, jurors, papers


@pytest.mark.parametrize("n_papers", [3, 120])
def test_comparison_sheet_queries_are_constant(client, django_assert_max_num_queries, n_papers):
    competition, _, papers = _build(n_papers)
    chair = get_user_model().objects.create_user("chairman")
    chair.groups.add(Group.objects.get_or_create(name=CHAIR)[0])
    client.force_login(chair)
    url = reverse("grading:sheet", args=[competition.slug, 1])
    with django_assert_max_num_queries(MAX_QUERIES):
        response = client.get(url)
    assert response.status_code == 200
    assert len(response.context["page"].rows) == n_papers


@pytest.mark.parametrize("n_papers", [3, 120])
def test_grading_page_queries_are_constant(client, django_assert_max_num_queries, n_papers):
    _, jurors, papers = _build(n_papers)
    client.force_login(jurors[0])
    # One more than the other pages: the next unfinished paper of the problem.
    with django_assert_max_num_queries(MAX_QUERIES + 1):
        response = client.get(reverse("grading:grade", args=[papers[-1].code]))
    assert response.status_code == 200
    assert len(response.context["rows"]) == 10


@pytest.mark.parametrize("n_papers", [3, 120])
def test_juror_home_queries_are_constant(client, django_assert_max_num_queries, n_papers):
    _, jurors, _ = _build(n_papers)
    client.force_login(jurors[0])
    with django_assert_max_num_queries(MAX_QUERIES):
        response = client.get(reverse("grading:home"))
    assert response.status_code == 200


def test_juror_home_with_what_awaits_takes_as_many_queries_at_both_sizes(client):
    """The juror's home with a discrepancy and an unread post on every paper ("needs you"):
    the number of queries does not grow with papers."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from grading.models import DiscussionComment

    counts = []
    for n_papers, first_code in ((3, 0), (40, 100)):
        competition, jurors, papers = _build(
            n_papers, n_jurors=2, n_criteria=3, first_code=first_code
        )
        _discrepant(papers)
        criterion = Criterion.objects.get(rubric__problem__competition=competition, order=2)
        DiscussionComment.objects.bulk_create(
            DiscussionComment(paper=p, criterion=criterion, author=jurors[1], text="why?")
            for p in papers
        )
        client.force_login(jurors[0])
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("grading:home"))
        assert response.status_code == 200
        awaiting = response.context["awaiting"]
        assert sum(a.discrepant for a in awaiting) == 3 * n_papers  # every criterion
        assert sum(a.unread for a in awaiting) == n_papers
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    assert counts[0] <= MAX_QUERIES, counts


def _organizer():
    from ioleval.roles import ORGANIZER

    user = get_user_model().objects.create_user("org-queries")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    return user


@pytest.mark.parametrize(
    "route",
    ["grading:totals", "grading:jury", "accounts:list"],
)
def test_organizer_lists_take_as_many_queries_at_both_sizes(client, route):
    """Totals and the jury page list the systems, the accounts page every juror with
    their load: the number of queries does not grow with papers or jurors."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(_organizer())
    counts = []
    for n_papers, n_jurors, first_code in ((3, 2, 0), (40, 9, 100)):
        competition, _, _ = _build(n_papers, n_jurors=n_jurors, n_criteria=3, first_code=first_code)
        args = [] if route == "accounts:list" else [competition.slug]
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse(route, args=args))
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_grade_by_criterion_takes_as_many_queries_at_both_sizes(client):
    """One criterion across a juror's papers: the same queries for 4 papers or 150, on a draft
    paper and on a submitted one (which adds the other jurors' marks)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.grading.criterion_data import build

    counts = []
    for n_papers, slug in ((4, "few"), (150, "many")):
        data = build(n_papers, slug=slug, prefix=slug)
        Mark.objects.bulk_create(
            Mark(assignment=a, criterion=data.criteria["1a"], points=Decimal(1))
            for a in Assignment.objects.filter(paper__in=data.papers[1:], juror=data.juror)
        )
        Assignment.objects.filter(paper=data.papers[-1]).update(submitted_at=timezone.now())
        client.force_login(data.juror)
        url = reverse("grading:by_criterion", args=[data.problem.pk, data.criteria["1a"].pk])
        per_size = []
        for query in ("", f"?paper={data.papers[-1].code}"):
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url + query)
            assert response.status_code == 200
            per_size.append(len(queries))
        assert response.context["page"].marked == n_papers - 1
        counts.append(per_size)
    assert counts[0] == counts[1], counts
    assert max(counts[0]) <= MAX_QUERIES, counts


@pytest.mark.parametrize("n_papers", [3, 120])
def test_distinct_answers_queries_are_constant(client, django_assert_max_num_queries, n_papers):
    """One item's distinct answers over all the juror's papers, with proposals pending."""
    from grading.services import proposal_create

    competition, jurors, papers = _build(n_papers)
    task = Task.objects.get(problem__competition=competition)
    for juror in jurors:
        proposal_create(juror=juror, task=task, item_number=2, answer="x", reason="a variant")
    client.force_login(jurors[0])
    url = reverse("grading:distinct", args=[task.problem_id, 1, 2])
    with django_assert_max_num_queries(MAX_QUERIES):
        response = client.get(url)
    assert response.status_code == 200
    [answer] = response.context["page"].answers
    assert (answer.text, answer.count, answer.em, answer.pending) == ("x", n_papers, "no", True)


def test_distinct_answers_and_answer_key_take_as_many_queries_at_both_sizes(client):
    """The distinct answers (as a juror) and the answer-key page with its pending
    proposals (as an organizer): the number of queries does not grow with papers."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from grading.services import proposal_create

    organizer = _organizer()
    counts = {"distinct": [], "key": []}
    for n_papers, n_jurors, first_code in ((3, 2, 0), (40, 9, 100)):
        competition, jurors, _ = _build(
            n_papers, n_jurors=n_jurors, n_criteria=3, first_code=first_code
        )
        task = Task.objects.get(problem__competition=competition)
        for juror in jurors:
            proposal_create(juror=juror, task=task, item_number=2, answer="x", reason="why")
        client.force_login(jurors[0])
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("grading:distinct", args=[task.problem_id, 1, 2]))
        assert response.status_code == 200
        counts["distinct"].append(len(queries))
        client.force_login(organizer)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("puzzles:answer_key", args=[competition.slug]))
        assert response.status_code == 200
        assert len(response.context["proposals"]) == n_jurors
        counts["key"].append(len(queries))
    assert counts["distinct"][0] == counts["distinct"][1], counts
    assert counts["key"][0] == counts["key"][1], counts


def _chair():
    user = get_user_model().objects.create_user("chair-queries")
    user.groups.add(Group.objects.get_or_create(name=CHAIR)[0])
    return user


def _discrepant(papers):
    """Make the first criterion of every paper discrepant: its first juror gives 2."""
    Mark.objects.filter(
        assignment__paper__in=papers, criterion__order=1, assignment__juror__username__endswith="_0"
    ).update(points=Decimal(2))


@pytest.mark.parametrize("view", ["overview", "sort", "decide", "decide_post", "next"])
def test_chair_pages_take_as_many_queries_at_both_sizes(client, view):
    """The chair's overview, the sorted sheet, a cell opened and decided from the sheet and
    the next discrepancy: the number of queries does not grow with papers or jurors."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(_chair())
    counts = []
    for n_papers, n_jurors, first_code in ((3, 2, 0), (40, 4, 100)):
        competition, _, papers = _build(
            n_papers, n_jurors=n_jurors, n_criteria=3, first_code=first_code
        )
        _discrepant(papers)
        args = [competition.slug, 1]
        criterion = Criterion.objects.get(rubric__problem__competition=competition, order=1)
        decide = reverse("grading:sheet_decide", args=[*args, papers[-1].code, criterion.pk])
        with CaptureQueriesContext(connection) as queries:
            if view == "overview":
                response = client.get(reverse("grading:chair_overview", args=args))
            elif view == "sort":
                response = client.get(reverse("grading:sheet", args=args), {"sort": "differences"})
            elif view == "decide":
                response = client.get(decide, HTTP_HX_REQUEST="true")
            elif view == "decide_post":
                response = client.post(
                    decide, {"points": "1", "reason": "r"}, HTTP_HX_REQUEST="true"
                )
            else:
                after = f"{papers[0].code}:{criterion.pk}"
                response = client.get(
                    reverse("grading:sheet_next", args=args),
                    {"after": after},
                    HTTP_HX_REQUEST="true",
                )
        assert response.status_code == 200, response.content[:300]
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    # A decision from the sheet reads the panel twice and, in between, the decision checks
    # the chair's rule again under the jury row's lock (one query more since the services
    # hold it for every caller).
    assert counts[0] <= MAX_QUERIES * 3 + (view == "decide_post"), counts
