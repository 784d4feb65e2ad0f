"""import_contestants and the review-inputs page: totals, criterion points, replacement, roles."""

from __future__ import annotations

import io
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from grading.errors import GradingError
from grading.models import Contestant, ContestantPoints
from grading.selectors import (
    contestant_criterion_shares,
    contestant_totals,
    contestants_summary,
)
from grading.services import competition_set_scale, contestants_import
from puzzles.models import ExternalScore, System
from puzzles.services import system_scores_import
from tests.grading.factories import ChairFactory, JurorFactory, UserFactory, rubric_with
from tests.puzzles.factories import CompetitionFactory, ProblemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def competition():
    """Two problems with rubrics of 10 points each (1a 4 + 1b 6; 2a 10)."""
    competition = CompetitionFactory(slug="iol")
    rubric_with(ProblemFactory(competition=competition, number=1), ("1a", 4, 1), ("1b", 6, 1))
    rubric_with(ProblemFactory(competition=competition, number=2), ("2a", 10, 0.5))
    return competition


def _import(competition, text: str, file: str = "people.csv"):
    return contestants_import(competition=competition, stream=io.StringIO(text), file=file)


def _state():
    return (
        sorted(Contestant.objects.values_list("competition_id", "code", "total")),
        sorted(
            ContestantPoints.objects.values_list(
                "contestant__code", "problem__number", "criterion_code", "points"
            )
        ),
    )


def test_totals_form(competition):
    result = _import(competition, "contestant,total\nA1,17.5\nA2,3\nA3,0\n")
    assert result.form == "totals" and result.contestants == 3 and result.points == 0
    assert contestant_totals(competition) == [Decimal("17.5"), Decimal("3"), Decimal("0")]
    assert (
        result.lines()[0] == "people.csv: replaced the competition's 0 contestants with 3 (totals)"
    )
    assert result.lines()[1] == (
        "totals checked against 0..20 (the jury's scale, the sum of the rubrics' maxima)"
    )


def test_points_form_sums_the_totals(competition):
    result = _import(
        competition,
        "contestant,problem,criterion,points\n"
        "A1,1,1a,4\nA1,1,1b,2.5\nA1,2,2a,9.5\n"
        "A2,1,1a,1\n",  # A2 has no rows for 1b and 2a: they count 0
    )
    assert result.form == "points" and result.contestants == 2 and result.points == 4
    assert dict(Contestant.objects.values_list("code", "total")) == {
        "A1": Decimal("16"),
        "A2": Decimal("1"),
    }
    shares = {(s.problem, s.code): s for s in contestant_criterion_shares(competition)}
    # exact: (4 + 1) / 2 / 4, 2.5 / 2 / 6, 9.5 / 2 / 10 as fractions (equal shares are ties)
    assert shares[(1, "1a")].mean_fraction == Fraction(5, 8)
    assert shares[(1, "1b")].mean_fraction == Fraction(5, 24)
    assert shares[(2, "2a")].mean_fraction == Fraction(19, 40)
    assert shares[(1, "1a")].n == 2
    summary = contestants_summary(competition)
    assert (summary.count, summary.with_points) == (2, 2)
    assert (summary.lowest, summary.highest) == (Decimal("1"), Decimal("16"))


def test_points_form_with_a_matching_total_column(competition):
    _import(
        competition,
        "contestant,problem,criterion,points,total\nA1,1,1a,4,5\nA1,1,1b,1,\n",
    )
    assert Contestant.objects.get().total == Decimal("5")


def test_reimport_replaces_every_contestant_atomically(competition):
    _import(competition, "contestant,problem,criterion,points\nA1,1,1a,4\nA2,1,1a,3\n")
    other = CompetitionFactory(slug="other", jury_scale=Decimal("100"))
    _import(other, "contestant,total\nZ,10\n")
    result = _import(competition, "contestant,total\nB1,12\n")
    assert result.replaced == 2
    assert "replaced the competition's 2 contestants with 1" in result.lines()[0]
    assert list(Contestant.objects.filter(competition=competition).values_list("code")) == [("B1",)]
    assert not ContestantPoints.objects.exists()
    assert contestant_criterion_shares(competition) == []
    assert Contestant.objects.filter(competition=other).count() == 1


def test_totals_are_checked_against_the_jurys_scale(competition):
    ProblemFactory(competition=competition, number=3)  # no rubric: it adds nothing
    _import(competition, "contestant,total\nA,20\n")
    with pytest.raises(GradingError, match=r"line 2, field 'total': total points 20.5 are"):
        _import(competition, "contestant,total\nA,20.5\n")
    competition_set_scale(competition=competition, points=Decimal("40"))
    result = _import(competition, "contestant,total\nA,40\n")
    assert result.lines()[1] == (
        "totals checked against 0..40 (the jury's scale, set by an organizer)"
    )
    with pytest.raises(GradingError, match=r"line 2, field 'total': total points 40.5 are"):
        _import(competition, "contestant,total\nA,40.5\n")


def test_totals_without_a_scale_are_refused_with_the_fix(db):
    competition = CompetitionFactory(slug="bare")
    ProblemFactory(competition=competition, number=1)
    with pytest.raises(GradingError) as caught:
        _import(competition, "contestant,total\nA,10\n")
    assert str(caught.value) == (
        "people.csv, field 'total': contestants' totals are out of the jury's scale: The jury "
        "has no scale yet: import the rubrics (its scale is then their maxima summed) or set "
        "the scale (competition page or set_scale)."
    )
    assert not Contestant.objects.exists()


def test_summed_points_over_the_competition_total_are_refused():
    competition = CompetitionFactory(slug="small", jury_scale=Decimal("5"))
    rubric_with(ProblemFactory(competition=competition, number=1), ("1a", 4, 1))
    ProblemFactory(competition=competition, number=2)  # no rubric; the organizer's scale is 5
    rubric_with(ProblemFactory(competition=competition, number=3), ("3a", 4, 1))
    with pytest.raises(GradingError) as caught:
        _import(competition, "contestant,problem,criterion,points\nA,1,1a,4\nB,1,1a,0\nA,3,3a,4\n")
    assert str(caught.value) == (
        "people.csv, line 2, field 'points': contestant 'A''s points sum to 8, more than 5"
    )
    assert not Contestant.objects.exists()


TOTALS = "contestant,total\n"
POINTS = "contestant,problem,criterion,points\n"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("", "line 1", "the file is empty"),
        (TOTALS, "line 2", "no rows after the header"),
        ("code,total\nA,1\n", "line 1, field 'contestant'", "missing column(s) contestant"),
        ("contestant,score\nA,1\n", "line 1, field 'total'", "missing column total"),
        (
            "contestant,problem,points\nA,1,1\n",
            "line 1, field 'criterion'",
            "missing column(s) criterion of the criterion-points form",
        ),
        (TOTALS + "A,10\nB,5\nA,3\n", "line 4, field 'contestant'", "'A' is already on line 2"),
        (TOTALS + "A,21\n", "line 2, field 'total'", "total points 21 are outside 0..20"),
        (TOTALS + "A,-1\n", "line 2, field 'total'", "total points -1 are outside 0..20"),
        (TOTALS + "A,ten\n", "line 2, field 'total'", "'ten' is not a number"),
        (TOTALS + "A,NaN\n", "line 2, field 'total'", "'NaN' is not a number"),
        (TOTALS + "A,1e1\n", "line 2, field 'total'", "'1e1' is not a number"),
        (TOTALS + "A,\n", "line 2, field 'total'", "total points are required"),
        (TOTALS + "A,1.255\n", "line 2, field 'total'", "more than 2 decimals"),
        (TOTALS + "A\n", "line 2, field 'total'", "the row is too short"),
        (TOTALS + " ,1\n", "line 2, field 'contestant'", "a contestant code is required"),
        (TOTALS + "A\x00,1\n", "line 2, field 'contestant'", "NUL"),
        (TOTALS + "x" * 65 + ",1\n", "line 2, field 'contestant'", "at most 64"),
        (TOTALS + 'A,"1\n', "line 2", "malformed CSV"),
        (POINTS + "A,9,1a,1\n", "line 2, field 'problem'", "no problem 9 in the competition"),
        (POINTS + "A,one,1a,1\n", "line 2, field 'problem'", "'one' is not a problem number"),
        (
            POINTS + "A,1,2a,1\n",
            "line 2, field 'criterion'",
            "problem 1 has no criterion '2a' (its rubric has 1a, 1b)",
        ),
        (POINTS + "A,1,1a,4.5\n", "line 2, field 'points'", "1a points 4.5 are outside 0..4"),
        (POINTS + "A,1,1a,-0.5\n", "line 2, field 'points'", "are outside 0..4"),
        (POINTS + "A,1,1a,x\n", "line 2, field 'points'", "'x' is not a number"),
        (POINTS + "A,1,1a,\n", "line 2, field 'points'", "1a points are required"),
        (
            POINTS + "A,1,1a,1\nB,1,1a,1\n\nA,1,1a,2\n",
            "line 5, field 'criterion'",
            "'A' has points for problem 1, 1a already on line 2",
        ),
        (
            "contestant,problem,criterion,points,total\nA,1,1a,1,2\nA,1,1b,1,3\n",
            "line 3, field 'total'",
            "total 3 differs from the total 2 on line 2",
        ),
        (
            "contestant,problem,criterion,points,total\nA,1,1a,1,5\n",
            "line 2, field 'total'",
            "contestant 'A''s total 5 is not the sum of its points (1)",
        ),
    ],
)
def test_bad_input_names_file_line_and_field_and_writes_nothing(competition, text, where, message):
    _import(competition, "contestant,problem,criterion,points\nKept,1,1a,2\n")
    before = _state()
    with pytest.raises(GradingError) as caught:
        _import(competition, text, file="humans.csv")
    assert str(caught.value).startswith(f"humans.csv, {where}: "), str(caught.value)
    assert message in str(caught.value)
    assert _state() == before


def test_a_problem_without_a_rubric_cannot_take_criterion_points(competition):
    ProblemFactory(competition=competition, number=3)
    with pytest.raises(GradingError, match="line 2, field 'problem': problem 3 has no rubric"):
        _import(competition, POINTS + "A,3,3a,1\n")


def test_the_database_keeps_codes_unique_and_points_nonnegative(competition):
    contestant = Contestant.objects.create(competition=competition, code="A", total=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Contestant.objects.create(competition=competition, code="A", total=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Contestant.objects.create(competition=competition, code="B", total=-1)
    problem = competition.problems.get(number=1)
    ContestantPoints.objects.create(
        contestant=contestant, problem=problem, criterion_code="1a", points=1
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        ContestantPoints.objects.create(
            contestant=contestant, problem=problem, criterion_code="1a", points=2
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        ContestantPoints.objects.create(
            contestant=contestant, problem=problem, criterion_code="1b", points=-1
        )


def test_the_command(competition, tmp_path: Path):
    path = tmp_path / "people.csv"
    path.write_text("\ufeffcontestant,total\nA,1\nB,2\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_contestants", "iol", str(path), stdout=out)
    assert "replaced the competition's 0 contestants with 2 (totals)" in out.getvalue()
    path.write_text("contestant,total\nA,1\nA,2\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"people.csv, line 3, field 'contestant'"):
        call_command("import_contestants", "iol", str(path))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_contestants", "iol", str(tmp_path / "none.csv"))
    path.write_bytes(b"contestant,total\n\xff,1\n")
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("import_contestants", "iol", str(path))
    assert Contestant.objects.count() == 2


# --- the page -------------------------------------------------------------------------------


def _upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/csv")


def test_the_page_shows_both_forms_and_the_inputs(client, organizer, competition):
    _import(competition, "contestant,total\nA,12\nB,3\n")
    client.force_login(organizer)
    response = client.get(reverse("grading:review_inputs", args=["iol"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert reverse("grading:system_scores_upload", args=["iol"]) in body
    assert reverse("grading:contestants_upload", args=["iol"]) in body
    assert "2 contestants, totals 3 to 12" in body
    jury = client.get(reverse("grading:jury", args=["iol"])).content.decode()
    assert reverse("grading:review_inputs", args=["iol"]) in jury


def test_the_page_takes_as_many_queries_for_many_systems_and_contestants(
    client, organizer, competition
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(organizer)
    counts = []
    for first, last in ((0, 3), (3, 12)):
        scores = "".join(f"S{i},0.{i + 10}\n" for i in range(first, last))
        system_scores_import(
            competition=competition, stream=io.StringIO("system,score\n" + scores), file="s.csv"
        )
        people = "".join(f"H{i},{i % 20}\n" for i in range(last * 10))
        _import(competition, "contestant,total\n" + people)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("grading:review_inputs", args=["iol"]))
        assert response.status_code == 200 and f"S{last - 1}" in response.content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_page_imports_both_files(client, organizer, competition):
    client.force_login(organizer)
    url = reverse("grading:system_scores_upload", args=["iol"])
    response = client.post(
        url, {"file": _upload("figs.csv", "system,score,exact_match,chrf\nOpus,0.6,0.4,0.9\n")}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("grading:review_inputs", args=["iol"])
    assert System.objects.get(name="Opus").external
    page = client.get(response["Location"]).content.decode()
    assert "figs.csv: 1 figures created" in page
    assert "external" in page and "0.6000" in page
    response = client.post(
        reverse("grading:contestants_upload", args=["iol"]),
        {"file": _upload("people.csv", POINTS + "A,1,1a,3\nA,2,2a,7.5\n")},
        follow=True,
    )
    assert "replaced the competition&#x27;s 0 contestants with 1 (2 criterion points)" in (
        response.content.decode()
    )
    assert Contestant.objects.get().total == Decimal("10.5")


def test_the_page_reports_bad_files_and_writes_nothing(client, organizer, competition):
    client.force_login(organizer)
    response = client.post(
        reverse("grading:contestants_upload", args=["iol"]),
        {"file": _upload("people.csv", TOTALS + "A,1\nA,2\n")},
        follow=True,
    )
    assert "people.csv, line 3, field &#x27;contestant&#x27;" in response.content.decode()
    response = client.post(
        reverse("grading:system_scores_upload", args=["iol"]),
        {"file": _upload("figs.csv", "system,score\nOpus,7\n")},
        follow=True,
    )
    assert "figs.csv, line 2, field &#x27;score&#x27;: 7 is outside 0..1" in (
        response.content.decode()
    )
    response = client.post(reverse("grading:contestants_upload", args=["iol"]), {}, follow=True)
    assert "This field is required" in response.content.decode()
    assert not Contestant.objects.exists() and not System.objects.exists()
    assert not ExternalScore.objects.exists()


@pytest.mark.parametrize("make_user", [JurorFactory, ChairFactory, lambda: UserFactory()])
def test_contestant_data_is_organizer_only(client, competition, make_user):
    _import(competition, "contestant,total\nSECRET-7,12\n")
    client.force_login(make_user())
    assert client.get(reverse("grading:review_inputs", args=["iol"])).status_code == 403
    for name in ("grading:system_scores_upload", "grading:contestants_upload"):
        response = client.post(
            reverse(name, args=["iol"]), {"file": _upload("x.csv", TOTALS + "B,1\n")}
        )
        assert response.status_code == 403
    assert list(Contestant.objects.values_list("code", flat=True)) == ["SECRET-7"]
    assert not System.objects.exists()


def test_anonymous_users_go_to_the_login_page(client, competition):
    response = client.get(reverse("grading:review_inputs", args=["iol"]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_uploads_take_post_only(client, organizer, competition):
    client.force_login(organizer)
    assert client.get(reverse("grading:contestants_upload", args=["iol"])).status_code == 405
    assert client.post(reverse("grading:review_inputs", args=["iol"])).status_code == 405
    assert client.get(reverse("grading:review_inputs", args=["nope"])).status_code == 404


def test_the_admin_shows_contestants_and_external_figures_read_only(client, competition):
    _import(competition, POINTS + "A,1,1a,3\n")
    system_scores_import(competition=competition, stream=io.StringIO("system,score\nOpus,0.5\n"))
    client.force_login(get_user_model().objects.create_superuser("root", password="x" * 20))
    contestant = Contestant.objects.get()
    score = ExternalScore.objects.get()
    page = client.get(reverse("admin:grading_contestant_change", args=[contestant.pk]))
    assert page.status_code == 200 and 'name="total"' not in page.content.decode()
    page = client.get(reverse("admin:puzzles_externalscore_change", args=[score.pk]))
    assert page.status_code == 200 and 'name="score"' not in page.content.decode()
    assert client.get(reverse("admin:grading_contestant_add")).status_code == 403
    assert client.get(reverse("admin:puzzles_externalscore_add")).status_code == 403
    delete = reverse("admin:grading_contestant_delete", args=[contestant.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert Contestant.objects.exists() and ExternalScore.objects.exists()
