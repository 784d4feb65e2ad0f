"""Jury pages: object-level permissions, blindness before submission, autosave, consensus."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from grading.models import Assignment, Mark, Paper, ProblemJury, Resolution
from grading.services import rubric_current, rubric_replace
from grading.services.rubrics import CriterionSpec
from puzzles.models import Output, System

pytestmark = pytest.mark.django_db

SECRET_WORDS = ("Frontier", "Lexicon", "OpenModel", "frontier", "challenge", "open model")


@pytest.fixture
def jury(demo):
    return get_user_model().objects


def _login(client, username):
    client.force_login(get_user_model().objects.get(username=username))
    return client


def _open_assignment(username, problem=1):
    return (
        Assignment.objects.filter(
            juror__username=username, paper__problem__number=problem, submitted_at__isnull=True
        )
        .select_related("paper__problem")
        .order_by("paper__code")
        .first()
    )


def _criteria(paper):
    return list(rubric_current(paper.problem).criteria.order_by("order"))


def test_juror_home_lists_own_papers_without_identity(client, jury):
    body = _login(client, "juror1").get(reverse("grading:home")).content.decode()
    codes = set(
        Assignment.objects.filter(juror__username="juror1").values_list("paper__code", flat=True)
    )
    assert codes and all(code in body for code in codes)
    others = set(Paper.objects.values_list("code", flat=True)) - codes
    assert not any(code in body for code in others)
    assert not any(word in body for word in SECRET_WORDS)


def test_grading_page_shows_paper_without_system_identity(client, jury):
    assignment = _open_assignment("juror1")
    body = (
        _login(client, "juror1")
        .get(reverse("grading:grade", args=[assignment.paper.code]))
        .content.decode()
    )
    assert assignment.paper.code in body
    assert "Rubric" in body and "Problem data" in body
    assert not any(word in body for word in SECRET_WORDS)


def test_juror_cannot_open_a_paper_not_assigned_to_them(client, jury):
    mine = set(
        Assignment.objects.filter(juror__username="juror4").values_list("paper_id", flat=True)
    )
    other = Paper.objects.exclude(pk__in=mine).first()
    client = _login(client, "juror4")
    assert client.get(reverse("grading:grade", args=[other.code])).status_code == 404
    criterion = _criteria(other)[0]
    response = client.post(
        reverse("grading:mark", args=[other.code, criterion.pk]), {"points": "1"}
    )
    assert response.status_code == 404
    assert client.post(reverse("grading:submit", args=[other.code])).status_code == 404


def test_autosave_saves_and_refuses_bad_points(client, jury):
    assignment = _open_assignment("juror2")
    criterion = _criteria(assignment.paper)[0]
    url = reverse("grading:mark", args=[assignment.paper.code, criterion.pk])
    client = _login(client, "juror2")
    response = client.post(url, {"points": "1.5", "comment": "ok"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "saved" in response.content.decode()
    assert Mark.objects.get(assignment=assignment, criterion=criterion).points == Decimal("1.5")
    for bad in ("0.3", "99", "-1", "abc"):
        response = client.post(url, {"points": bad}, HTTP_HX_REQUEST="true")
        assert response.status_code == 422
        assert criterion.code in response.content.decode() or "number" in response.content.decode()
    assert Mark.objects.get(assignment=assignment, criterion=criterion).points == Decimal("1.5")
    assert client.get(url).status_code == 405


def test_submit_requires_every_criterion_then_locks(client, jury):
    assignment = _open_assignment("juror2")
    criteria = _criteria(assignment.paper)
    client = _login(client, "juror2")
    submit = reverse("grading:submit", args=[assignment.paper.code])
    client.post(submit)
    assignment.refresh_from_db()
    assert not assignment.is_submitted
    for criterion in criteria:
        client.post(
            reverse("grading:mark", args=[assignment.paper.code, criterion.pk]), {"points": "1"}
        )
    client.post(submit)
    assignment.refresh_from_db()
    assert assignment.is_submitted
    url = reverse("grading:mark", args=[assignment.paper.code, criteria[0].pk])
    assert client.post(url, {"points": "0"}, HTTP_HX_REQUEST="true").status_code == 422
    assert Mark.objects.get(assignment=assignment, criterion=criteria[0]).points == 1


def _discrepant_paper():
    return Paper.objects.get(
        problem__number=1, comments__isnull=False, problem__competition__slug="demo"
    )


def test_before_submitting_a_juror_sees_no_other_marks_anywhere(client, jury):
    # A third juror joins the discrepant paper and has not submitted yet.
    paper = _discrepant_paper()
    newcomer = get_user_model().objects.get(username="juror4")
    Assignment.objects.create(paper=paper, juror=newcomer)
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    other_comment = (
        Mark.objects.filter(assignment__paper=paper, criterion=criterion)
        .exclude(comment="")
        .first()
        .comment
    )
    client = _login(client, "juror4")
    page = client.get(reverse("grading:grade", args=[paper.code])).content.decode()
    assert other_comment not in page
    assert "discussion" not in page
    assert client.get(reverse("grading:thread", args=[paper.code, criterion.pk])).status_code == 403
    post = reverse("grading:thread_post", args=[paper.code, criterion.pk, "comment"])
    assert client.post(post, {"text": "peek"}).status_code == 403
    slug = paper.problem.competition.slug
    for url in (
        reverse("grading:sheet", args=[slug, 1]),
        reverse("grading:marks_export", args=[slug, "csv"]),
        reverse("grading:totals", args=[slug]),
        reverse("grading:jury", args=[slug]),
        reverse("grading:rubrics_json", args=[slug]),
        reverse("puzzles:leaderboard", args=[slug]),
    ):
        assert client.get(url).status_code == 403, url


def test_after_submitting_a_juror_sees_the_thread(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    body = (
        _login(client, "juror1")
        .get(reverse("grading:thread", args=[paper.code, criterion.pk]))
        .content.decode()
    )
    assert "juror2" in body and "Names the prefixes" in body
    assert "Chair&#x27;s decision" not in body and "History of marks" not in body


def test_chair_still_grading_a_problem_cannot_see_its_sheet(client, jury):
    # The demo's chair has submitted its papers of problem 2; it gets one open again.
    submitted = Assignment.objects.filter(juror__username="chair", paper__problem__number=2)
    paper = submitted.order_by("paper__code").first().paper
    submitted.filter(paper=paper).delete()
    Assignment.objects.create(paper=paper, juror=jury.get(username="chair"))
    client = _login(client, "chair")
    own = _open_assignment("chair", problem=2)
    assert own is not None
    assert client.get(reverse("grading:sheet", args=["demo", 2])).status_code == 403
    criterion = _criteria(own.paper)[0]
    assert (
        client.get(reverse("grading:thread", args=[own.paper.code, criterion.pk])).status_code
        == 403
    )
    # Problem 1 is not the chair's to grade: its sheet shows the discrepancy.
    sheet = client.get(reverse("grading:sheet", args=["demo", 1]))
    assert sheet.status_code == 200
    assert 'class="cell discrepant"' in sheet.content.decode()
    # Each juror's total is labelled with the juror's name.
    assert re.search(r'<span class="muted">juror1</span> \d', sheet.content.decode())


def test_revise_decide_and_finalize(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    juror1 = _login(client, "juror1")
    revise = reverse("grading:thread_post", args=[paper.code, criterion.pk, "revise"])
    mark = Mark.objects.get(
        assignment__paper=paper, assignment__juror__username="juror1", criterion=criterion
    )
    assert mark.points == Decimal("2")
    juror1.post(revise, {"points": "1", "reason": ""})  # a reason is required
    mark.refresh_from_db()
    assert mark.points == Decimal("2")
    juror1.post(revise, {"points": "1", "reason": "ta- was never named"})
    mark.refresh_from_db()
    assert mark.points == Decimal("1")
    assert mark.history.first().history_change_reason == "ta- was never named"
    decide = reverse("grading:thread_post", args=[paper.code, criterion.pk, "decide"])
    juror1.post(decide, {"points": "1", "reason": "x"})
    assert not Resolution.objects.filter(paper=paper).exists()  # jurors do not decide
    organizer = _login(client, "organizer")
    assert organizer.post(decide, {"points": "1", "reason": "x"}).status_code == 403
    chair = _login(client, "chair")
    # The demo's chair has no open paper: it may decide.
    assert not _open_assignment("chair", problem=2)
    chair.post(decide, {"points": "1", "reason": "as revised"})
    resolution = Resolution.objects.get(paper=paper, criterion=criterion)
    assert resolution.points == Decimal("1") and resolution.decided_by.username == "chair"
    thread = chair.get(reverse("grading:thread", args=[paper.code, criterion.pk])).content.decode()
    assert "History of marks" in thread and "ta- was never named" in thread
    chair.post(reverse("grading:finalize", args=["demo", 1]))
    # Other papers of problem 1 are not graded yet: nothing is finalized.
    assert not ProblemJury.objects.filter(
        problem=paper.problem, finalized_at__isnull=False
    ).exists()


def test_model_text_is_sanitized_on_the_grading_page(client, jury):
    assignment = _open_assignment("juror1")
    output = Output.objects.filter(
        system=assignment.paper.system, task__problem=assignment.paper.problem
    ).first()
    output.explanation = (
        '<script>alert("x")</script><img src=x onerror=alert(1)> **bold** [l](javascript:alert(1))'
    )
    output.parsed_items = ["<b>raw</b>"] + output.parsed_items[1:]
    output.save()
    body = (
        _login(client, "juror1")
        .get(reverse("grading:grade", args=[assignment.paper.code]))
        .content.decode()
    )
    assert "<script>alert" not in body
    assert "onerror" not in body
    assert "javascript:" not in body
    assert "<strong>bold</strong>" in body
    assert "&lt;b&gt;raw&lt;/b&gt;" in body


def test_organizer_pages_render(client, jury):
    client = _login(client, "organizer")
    for url in (
        reverse("grading:jury", args=["demo"]),
        reverse("grading:rubric", args=["demo", 1]),
        reverse("grading:totals", args=["demo"]) + "?provisional=1",
        reverse("grading:sheet", args=["demo", 1]),
        reverse("grading:rubrics_json", args=["demo"]),
        reverse("grading:marks_export", args=["demo", "xlsx"]),
    ):
        assert client.get(url).status_code == 200, url


def test_organizer_selects_and_assigns(client, jury):
    client = _login(client, "organizer")
    system = System.objects.get(name="Ensemble-3")
    # The demo's problem 3 is finalized: a new paper would change its totals.
    client.post(reverse("grading:select", args=["demo"]), {"systems": ["Ensemble-3"]})
    assert not Paper.objects.filter(system=system).exists()
    ProblemJury.objects.filter(problem__number=3).update(finalized_at=None)
    client.post(reverse("grading:select", args=["demo"]), {"systems": ["Ensemble-3"]})
    assert Paper.objects.filter(system=system).count() == 3
    client.post(reverse("grading:assign", args=["demo"]), {"per_paper": 2})
    assert all(p.assignments.count() >= 2 for p in Paper.objects.filter(system=system))


def test_organizer_reads_threads_but_does_not_decide(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    client = _login(client, "organizer")
    body = client.get(reverse("grading:thread", args=[paper.code, criterion.pk])).content.decode()
    assert "juror2" in body and "Chair&#x27;s decision" not in body


def test_the_chairs_thread_shows_the_paper_and_each_decision_with_its_old_value(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    Assignment.objects.filter(juror__username="chair").delete()
    chair = _login(client, "chair")
    decide = reverse("grading:thread_post", args=[paper.code, criterion.pk, "decide"])
    chair.post(decide, {"points": "1", "reason": "first"})
    chair.post(decide, {"points": "1.5", "reason": "second thoughts"})
    response = chair.get(reverse("grading:thread", args=[paper.code, criterion.pk]))
    decisions = response.context["page"].decision_history
    assert [(d.old, d.new, d.reason) for d in decisions] == [
        (None, Decimal("1"), "first"),
        (Decimal("1"), Decimal("1.5"), "second thoughts"),
    ]
    body = response.content.decode()
    answer = next(
        item["answer"] for row in response.context["page"].answers for item in row["items"]
    )
    assert "The paper's answers" in body and answer in body
    assert paper.system.name not in body
    grade = reverse("grading:grade", args=[paper.code])
    assert f'href="{grade}"' not in body  # no "back to the paper": not the chair's
    full_text = reverse("grading:paper_text", args=[paper.code])
    assert f'href="{full_text}"' in body
    assert chair.get(full_text).status_code == 200
    assert "still grading this paper" not in body
    Assignment.objects.create(paper=paper, juror=get_user_model().objects.get(username="juror4"))
    body = chair.get(reverse("grading:thread", args=[paper.code, criterion.pk])).content.decode()
    assert "1 juror still grading this paper" in body


def test_after_submitting_the_grading_page_shows_the_other_marks_per_criterion(client, jury):
    paper = _discrepant_paper()
    response = _login(client, "juror1").get(reverse("grading:grade", args=[paper.code]))
    cells = {c.code: cell for c, _, cell in response.context["rows"]}
    assert cells["1c"].state.status == "discrepant"
    assert set(cells["1c"].marks) == {"juror1", "juror2"}
    assert 'class="cell discrepant"' in response.content.decode()


def test_a_plain_form_save_returns_to_its_criterion(client, jury):
    assignment = _open_assignment("juror1")
    criterion = _criteria(assignment.paper)[0]
    response = _login(client, "juror1").post(
        reverse("grading:mark", args=[assignment.paper.code, criterion.pk]), {"points": "0"}
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"/{assignment.paper.code}/#criterion-{criterion.pk}")


def test_a_finalized_problems_thread_offers_no_form(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    ProblemJury.objects.update_or_create(
        problem=paper.problem, defaults={"finalized_at": timezone.now()}
    )
    Assignment.objects.filter(juror__username="chair").delete()
    for user in ("juror1", "chair"):
        body = (
            _login(client, user)
            .get(reverse("grading:thread", args=[paper.code, criterion.pk]))
            .content.decode()
        )
        assert "is finalized" in body
        assert "<form" not in body.split("</header>", 1)[1]  # the header holds the logout


def test_organizer_cannot_post_to_threads(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    client = _login(client, "organizer")
    body = client.get(reverse("grading:thread", args=[paper.code, criterion.pk])).content.decode()
    assert 'name="text"' not in body
    post = reverse("grading:thread_post", args=[paper.code, criterion.pk, "comment"])
    assert client.post(post, {"text": "that one is Team Lexicon"}).status_code == 403
    assert not paper.comments.filter(text__contains="Lexicon").exists()


def test_a_juror_without_the_paper_gets_404_on_its_thread(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    assert not paper.assignments.filter(juror__username="juror3").exists()
    client = _login(client, "juror3")
    assert client.get(reverse("grading:thread", args=[paper.code, criterion.pk])).status_code == 404
    post = reverse("grading:thread_post", args=[paper.code, criterion.pk, "comment"])
    assert client.post(post, {"text": "x"}).status_code == 404


def test_chair_grading_a_problem_cannot_open_other_threads_of_it(client, jury):
    other = _discrepant_paper()  # the chair's sheet shows it while they grade none of problem 1
    criterion = _criteria(other)[0]
    client = _login(client, "chair")
    assert client.get(reverse("grading:thread", args=[other.code, criterion.pk])).status_code == 200
    chair = get_user_model().objects.get(username="chair")
    sibling = Paper.objects.filter(problem=other.problem).exclude(pk=other.pk).first()
    Assignment.objects.create(paper=sibling, juror=chair)
    assert client.get(reverse("grading:thread", args=[other.code, criterion.pk])).status_code == 403
    post = reverse("grading:thread_post", args=[other.code, criterion.pk, "decide"])
    assert client.post(post, {"points": "0", "reason": "x"}).status_code == 403
    assert not Resolution.objects.filter(paper=other).exists()


def test_chairs_history_leaves_out_drafts_and_follows_new_rubric_versions(client, jury):
    paper = _discrepant_paper()
    criterion = next(c for c in _criteria(paper) if c.code == "1c")
    # A third juror drafts a value nobody else has.
    drafting = Assignment.objects.create(
        paper=paper, juror=get_user_model().objects.get(username="juror4")
    )
    _login(client, "juror4").post(
        reverse("grading:mark", args=[paper.code, criterion.pk]),
        {"points": "0.5", "comment": "draft thought"},
        HTTP_HX_REQUEST="true",
    )
    assert Mark.objects.get(assignment=drafting, criterion=criterion).points == Decimal("0.5")
    juror1 = _login(client, "juror1")
    juror1.post(
        reverse("grading:thread_post", args=[paper.code, criterion.pk, "revise"]),
        {"points": "1", "reason": "ta- was never named"},
    )
    Assignment.objects.filter(juror__username="chair").delete()
    chair = _login(client, "chair")
    url = reverse("grading:thread", args=[paper.code, criterion.pk])
    history = chair.get(url).context["page"].history
    assert {h.juror.username for h in history} == {"juror1", "juror2"}
    assert "ta- was never named" in [h.reason for h in history]
    # A new rubric version moves the marks to new criteria; the history comes along.
    current = rubric_current(paper.problem)
    specs = [
        CriterionSpec(code=c.code, title=c.title, maximum=c.maximum, step=c.step, kind=c.kind)
        for c in current.criteria.order_by("order")
    ]
    rubric_replace(problem=paper.problem, specs=specs, new_version=True)
    moved = rubric_current(paper.problem).criteria.get(code="1c")
    page = chair.get(reverse("grading:thread", args=[paper.code, moved.pk])).context["page"]
    assert "ta- was never named" in [h.reason for h in page.history]


def _rubric_post(rubric_rows, **extra):
    data = {
        "criteria-TOTAL_FORMS": str(len(rubric_rows)),
        "criteria-INITIAL_FORMS": "0",
        "criteria-MIN_NUM_FORMS": "0",
        "criteria-MAX_NUM_FORMS": "1000",
    }
    for index, row in enumerate(rubric_rows):
        for key, value in row.items():
            data[f"criteria-{index}-{key}"] = value
    data.update(extra)
    return data


def test_rubric_editor_previews_and_needs_a_new_version_once_marked(client, jury):
    client = _login(client, "organizer")
    url = reverse("grading:rubric", args=["demo", 1])
    page = client.get(url).content.decode()
    assert 'value="1a"' in page and 'value="1d"' in page
    rows = [
        {
            "code": "1a",
            "title": "Translations into English",
            "kind": "assignment",
            "maximum": "2",
            "step": "0.5",
            "task": "12026010100",
            "items": "1,2,3",
        },
        {
            "code": "1b",
            "title": "Translations into Velmari",
            "kind": "assignment",
            "maximum": "3",
            "step": "0.5",
        },
        {"code": "", "title": "", "kind": "theory", "maximum": "", "step": "0.5"},
    ]
    preview = client.post(url, _rubric_post(rows, preview="1")).content.decode()
    assert "criterion 1a: maximum 3.00 -&gt; 2" in preview
    assert "criterion 1c removed" in preview
    refused = client.post(url, _rubric_post(rows, apply="1")).content.decode()
    assert "frozen" in refused
    assert rubric_current(Paper.objects.filter(problem__number=1).first().problem).version == 1
    # Marks exist: Save shows the effect with a signed token, and applies with it.
    shown = client.post(url, _rubric_post(rows, apply="1", new_version="on")).content.decode()
    assert rubric_current(Paper.objects.filter(problem__number=1).first().problem).version == 1
    token = re.search(r'<input type="hidden" name="token" value="([^"]*)"', shown)[1]
    client.post(url, _rubric_post(rows, apply="1", new_version="on", token=token))
    rubric = rubric_current(Paper.objects.filter(problem__number=1).first().problem)
    assert rubric.version == 2
    assert list(rubric.criteria.order_by("order").values_list("code", "maximum")) == [
        ("1a", Decimal("2")),
        ("1b", Decimal("3")),
    ]
    bad = client.post(
        url,
        _rubric_post(
            [
                {
                    "code": "x",
                    "title": "t",
                    "kind": "theory",
                    "maximum": "1",
                    "step": "0.5",
                    "items": "a,b",
                }
            ],
            preview="1",
        ),
    )
    assert "item numbers separated by commas" in bad.content.decode()


def test_rubric_editor_errors_name_the_row_and_field(client, jury):
    """The editor checks its rows with the same rules as a rubric file, without a JSON trip."""
    client = _login(client, "organizer")
    url = reverse("grading:rubric", args=["demo", 2])
    rows = [
        {"code": "2a", "title": "Fine", "kind": "theory", "maximum": "2", "step": "0.5"},
        {"code": "2b", "title": "Bad step", "kind": "theory", "maximum": "1", "step": "0.3"},
    ]
    page = client.post(url, _rubric_post(rows, preview="1")).content.decode()
    assert "rubric.criteria[2], field &#x27;step&#x27;" in page


def test_tolerance_on_a_finalized_problem_is_refused_on_the_sheet(client, jury):
    """It answered 500: the service's refusal reached the user as an exception. Now the
    sheet comes back (422) with what was typed and the refusal beside the field."""
    from grading.models import ProblemJury

    jury3 = ProblemJury.objects.get(problem__competition__slug="demo", problem__number=3)
    assert jury3.finalized_at is not None
    before = jury3.tolerance
    chair = _login(client, "chair")
    url = reverse("grading:tolerance", args=["demo", 3])
    response = chair.post(url, {"tolerance": "1.75"})
    assert response.status_code == 422
    assert response.templates[0].name == "grading/sheet.html"
    html = response.content.decode()
    assert 'value="1.75"' in html and "finalized" in html and 'id="id_tolerance_error"' in html
    jury3.refresh_from_db()
    assert jury3.tolerance == before


def test_tolerance_typed_wrong_comes_back_on_the_sheet_with_the_error(client, jury):
    from grading.models import ProblemJury

    jury1 = ProblemJury.objects.get(problem__competition__slug="demo", problem__number=1)
    before = jury1.tolerance
    chair = _login(client, "chair")
    bad = chair.post(reverse("grading:tolerance", args=["demo", 1]), {"tolerance": "-2.5"})
    assert bad.status_code == 422
    html = bad.content.decode()
    assert 'value="-2.5"' in html
    assert "greater than or equal to 0" in html and 'aria-invalid="true"' in html
    jury1.refresh_from_db()
    assert jury1.tolerance == before
    good = chair.post(reverse("grading:tolerance", args=["demo", 1]), {"tolerance": "0.5"})
    assert good.status_code == 302
    assert good["Location"] == reverse("grading:sheet", args=["demo", 1])


def test_sheet_filters_read_the_query_and_keep_their_rows():
    from types import SimpleNamespace

    from django.http import QueryDict

    from grading.selectors import SheetFilters

    filters = SheetFilters.from_query(QueryDict("only=discrepancies&juror=ann&status=bogus"))
    assert filters == SheetFilters(only=True, juror="ann", status="")

    def row(discrepancies, jurors, submitted):
        people = [SimpleNamespace(username=u, pk=i) for i, u in enumerate(jurors)]
        return SimpleNamespace(
            discrepancies=discrepancies, jurors=people, submitted=set(range(submitted))
        )

    rows = [row(1, ["ann", "bob"], 2), row(0, ["ann"], 1), row(2, ["bob", "cy"], 1)]
    assert filters.apply(rows) == [rows[0]]
    assert SheetFilters(status="incomplete").apply(rows) == [rows[2]]
    assert SheetFilters(status="complete", juror="ann").apply(rows) == rows[:2]
    assert SheetFilters().apply(rows) == rows
