"""The jury's scale on a 75-point jury (docs/run-a-real-jury.md's rubrics): thresholds set within it from the
service, the commands and the competition page, the scale set and given back to the rubrics,
rubric changes that move it, and every page and output that says what totals are out of.

Before: every competition was out of its total points, 100 unless changed in the admin;
thresholds were checked against 100 and applied to totals out of 75."""

from __future__ import annotations

import json
from decimal import Decimal as D
from html import unescape
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from lxml import html

from grading.errors import GradingError
from grading.selectors import jury_scale, totals_page
from grading.services import competition_set_scale, competition_set_thresholds, rubrics_import
from puzzles.models import Competition
from tests.grading.factories import OrganizerFactory
from tests.puzzles.factories import CompetitionFactory, ProblemFactory

pytestmark = pytest.mark.django_db

SLUG = "jury75"


def readme_rubrics(*, answers: int = 10, explanation: int = 5, problems=range(1, 6)) -> str:
    """docs/run-a-real-jury.md's rubrics: per problem, answers /10 and an explanation /5 (75 in all)."""
    return json.dumps(
        {
            "problems": [
                {
                    "problem": n,
                    "criteria": [
                        {"code": f"{n}a", "title": "Answers", "maximum": answers, "step": 0.5},
                        {"code": f"{n}b", "title": "Why", "maximum": explanation, "step": 0.5},
                    ],
                }
                for n in problems
            ]
        }
    )


@pytest.fixture
def jury75() -> Competition:
    competition = CompetitionFactory(slug=SLUG)
    for n in range(1, 6):
        ProblemFactory(competition=competition, number=n)
    rubrics_import(readme_rubrics(), competition=competition)
    return competition


def _thresholds(slug: str = SLUG) -> tuple:
    c = Competition.objects.get(slug=slug)
    return (
        c.gold_threshold,
        c.silver_threshold,
        c.bronze_threshold,
        c.honourable_mention_threshold,
    )


def _call(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- the service --------------------------------------------------------------------------


def test_the_scale_of_a_new_competition_is_its_rubrics_sum(jury75):
    scale = jury_scale(jury75)
    assert (scale.points, scale.explicit, scale.text) == (
        D(75),
        False,
        "75 (the sum of the rubrics' maxima)",
    )


def test_80_is_refused_for_a_75_point_jury_naming_the_scale(jury75):
    with pytest.raises(GradingError) as caught:
        competition_set_thresholds(competition=jury75, gold=D(80), silver=D(60))
    assert caught.value.message == (
        "gold threshold 80 is outside 0..75, the jury's scale (the sum of the rubrics' maxima)"
    )
    assert caught.value.field == "gold"
    assert _thresholds() == (None, None, None, None)
    scale = competition_set_thresholds(competition=jury75, gold=D(75), silver=D(60))
    assert _thresholds() == (D(75), D(60), None, None)
    assert scale.thresholds_text == "gold 75, silver 60, bronze —, honourable mention —"


def test_an_organizers_scale_bounds_the_thresholds_instead(jury75):
    competition_set_scale(competition=jury75, points=D(100))
    competition_set_thresholds(competition=jury75, gold=D(80), silver=D(60))
    with pytest.raises(GradingError, match=r"outside 0\.\.100, the jury's scale \(set by an"):
        competition_set_thresholds(competition=jury75, gold=D("100.5"), silver=D(60))
    assert _thresholds()[:2] == (D(80), D(60))


def test_thresholds_without_any_scale_say_how_to_get_one(db):
    competition = CompetitionFactory(slug="bare")
    ProblemFactory(competition=competition, number=1)
    with pytest.raises(GradingError, match="no scale to fit: The jury has no scale yet: import"):
        competition_set_thresholds(competition=competition, gold=D(20), silver=D(10))
    assert _thresholds("bare") == (None, None, None, None)


def test_a_scale_below_the_thresholds_is_refused_until_they_are_lowered(jury75):
    competition_set_thresholds(competition=jury75, gold=D(60), silver=D(45))
    with pytest.raises(GradingError) as caught:
        competition_set_scale(competition=jury75, points=D(50))
    assert caught.value.message == (
        "the gold threshold 60 would be above the new scale, 50 (set by an organizer): lower "
        "the thresholds first (competition page or set_thresholds), or choose another scale; "
        "the scale stays 75 (the sum of the rubrics' maxima)"
    )
    assert Competition.objects.get(slug=SLUG).jury_scale is None


def test_setting_and_giving_back_the_scale_says_what_it_does(jury75):
    competition_set_thresholds(competition=jury75, gold=D(60), silver=D(45))
    assert competition_set_scale(competition=jury75, points=D(100)) == [
        "the jury's scale moves from 75 to 100 (set by an organizer)",
        "the thresholds gold 60, silver 45 stay as they were set: check them against the new scale",
    ]
    assert Competition.objects.get(slug=SLUG).jury_scale == D(100)
    assert competition_set_scale(competition=jury75, points=None)[0] == (
        "the jury's scale moves from 100 to 75 (the sum of the rubrics' maxima)"
    )
    assert Competition.objects.get(slug=SLUG).jury_scale is None
    assert competition_set_scale(competition=jury75, points=D(75)) == [
        "the jury's scale stays 75 (set by an organizer)"
    ]


# --- the commands ---------------------------------------------------------------------------


def test_set_thresholds_refuses_80_of_75_and_prints_the_scale(jury75):
    with pytest.raises(CommandError, match=r"gold threshold 80 is outside 0\.\.75, the jury's"):
        _call("set_thresholds", SLUG, "--gold", "80", "--silver", "60")
    out = _call("set_thresholds", SLUG, "--gold", "60", "--silver", "45", "--bronze", "30")
    assert out.strip() == (
        f"{SLUG}: gold 60, silver 45, bronze 30, honourable mention —; the jury's scale is 75 "
        "(the sum of the rubrics' maxima)"
    )


def test_set_scale_points_and_from_rubrics(jury75):
    out = _call("set_scale", SLUG, "--points", "100")
    assert out.strip() == f"{SLUG}: the jury's scale moves from 75 to 100 (set by an organizer)"
    _call("set_thresholds", SLUG, "--gold", "80", "--silver", "60")
    with pytest.raises(CommandError, match="the gold threshold 80 would be above the new scale"):
        _call("set_scale", SLUG, "--from-rubrics")
    assert Competition.objects.get(slug=SLUG).jury_scale == D(100)
    _call("set_thresholds", SLUG, "--gold", "70", "--silver", "60")
    out = _call("set_scale", SLUG, "--from-rubrics")
    assert out.splitlines()[0] == (
        f"{SLUG}: the jury's scale moves from 100 to 75 (the sum of the rubrics' maxima)"
    )
    assert Competition.objects.get(slug=SLUG).jury_scale is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "one of the arguments --points --from-rubrics is required"),
        (["--points", "10", "--from-rubrics"], "not allowed with argument"),
        (["--points", "0"], "the scale must be a number of points above 0"),
        (["--points", "lots"], "'lots' is not a number of points"),
        (["--points", "12.345"], "has more than 2 decimals"),
    ],
)
def test_set_scale_refuses_bad_input_and_changes_nothing(jury75, args, words):
    with pytest.raises(CommandError, match=words):
        _call("set_scale", SLUG, *args)
    assert Competition.objects.get(slug=SLUG).jury_scale is None


# --- the competition page -------------------------------------------------------------------


@pytest.fixture
def organizer(client):
    client.force_login(OrganizerFactory())
    return client


def test_the_competition_page_shows_the_scale_its_thresholds_use(organizer, jury75):
    html = unescape(organizer.get(reverse("puzzles:competition", args=[SLUG])).content.decode())
    assert "<strong>75 (the sum of the rubrics' maxima)</strong>" in html
    assert "Medal thresholds (points out of 75)" in html
    assert "out of 100" not in html
    assert "Use the sum of the rubrics" not in html  # it already is


def test_the_thresholds_form_refuses_80_of_75_on_its_field_keeping_the_input(organizer, jury75):
    url = reverse("puzzles:thresholds", args=[SLUG])
    response = organizer.post(url, {"gold": "80", "silver": "60"})
    assert response.status_code == 422
    form = response.context["thresholds_form"]
    assert form.errors["gold"] == [
        "gold threshold 80 is outside 0..75, the jury's scale (the sum of the rubrics' maxima)"
    ]
    assert 'value="80"' in response.content.decode()
    assert _thresholds() == (None, None, None, None)
    response = organizer.post(url, {"gold": "75", "silver": "60", "bronze": "45"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "Medal thresholds saved: gold 75, silver 60, bronze 45, honourable mention — (out of 75 "
        "(the sum of the rubrics' maxima))."
    ]
    assert _thresholds() == (D(75), D(60), D(45), None)


def test_the_scale_form_sets_the_scale_and_gives_it_back(organizer, jury75):
    url = reverse("puzzles:scale", args=[SLUG])
    response = organizer.post(url, {"points": "100"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "The jury's scale moves from 75 to 100 (set by an organizer)."
    ]
    html = unescape(response.content.decode())
    assert "<strong>100 (set by an organizer)</strong>" in html
    assert "The rubrics add up to 75 points but the scale, set by an organizer, is 100" in html
    assert "Use the sum of the rubrics" in html
    response = organizer.post(url, {"points": "", "from_rubrics": "1"}, follow=True)
    assert Competition.objects.get(slug=SLUG).jury_scale is None
    assert "<strong>75 (the sum of the rubrics' maxima)</strong>" in unescape(
        response.content.decode()
    )


def test_the_scale_form_refuses_on_its_field(organizer, jury75):
    competition_set_thresholds(competition=jury75, gold=D(60), silver=D(45))
    url = reverse("puzzles:scale", args=[SLUG])
    response = organizer.post(url, {"points": "50"})
    assert response.status_code == 422
    assert (
        response.context["scale_form"]
        .errors["points"][0]
        .startswith("the gold threshold 60 would be above the new scale, 50 (set by an organizer)")
    )
    response = organizer.post(url, {"points": ""})
    assert response.status_code == 422
    assert response.context["scale_form"].errors["points"] == [
        "give the scale in points, or use the sum of the rubrics"
    ]
    assert Competition.objects.get(slug=SLUG).jury_scale is None


# --- rubrics that move the scale ------------------------------------------------------------


def test_the_rubric_import_says_what_it_does_to_the_scale_and_thresholds(jury75, tmp_path):
    competition_set_thresholds(competition=jury75, gold=D(70), silver=D(50))
    smaller = tmp_path / "smaller.json"
    smaller.write_text(readme_rubrics(answers=8, problems=[1, 2, 3]))  # 75 - 3 x 2 = 69
    dry = _call("import_rubric", SLUG, str(smaller), "--dry-run")
    expected = [
        "the jury's scale moves from 75 to 69 (the sum of the rubrics' maxima)",
        "the gold threshold 70 is then above the scale: no gold is given until you set the "
        "thresholds again (competition page or set_thresholds) or set the scale (competition "
        "page or set_scale)",
        "the thresholds silver 50 stay as they were set: check them against the new scale",
    ]
    assert dry.splitlines()[-3:] == expected
    assert jury_scale(jury75).points == D(75)  # a dry run
    out = _call("import_rubric", SLUG, str(smaller))
    assert out.splitlines()[-3:] == expected
    assert jury_scale(jury75).points == D(69)


def test_the_rubric_editor_previews_the_scale_it_moves_to(organizer, jury75):
    competition_set_thresholds(competition=jury75, gold=D(74), silver=D(50))
    rows = {
        "criteria-TOTAL_FORMS": "1",
        "criteria-INITIAL_FORMS": "2",
        "criteria-0-code": "1a",
        "criteria-0-title": "Answers",
        "criteria-0-kind": "assignment",
        "criteria-0-maximum": "10",
        "criteria-0-step": "0.5",
        "preview": "1",
    }
    url = reverse("grading:rubric", args=[SLUG, 1])
    html = unescape(organizer.post(url, rows).content.decode())
    assert "the jury's scale moves from 75 to 70 (the sum of the rubrics' maxima)" in html
    assert "the gold threshold 74 is then above the scale" in html
    del rows["preview"]
    response = organizer.post(url, rows | {"apply": "1"}, follow=True)
    assert [str(m) for m in response.context["messages"]][-1].startswith(
        "Rubric v1 saved; the jury's scale moves from 75 to 70 (the sum of the rubrics' maxima); "
        "the gold threshold 74 is then above the scale"
    )


def test_the_rubric_upload_preview_shows_the_scale_it_moves_to(organizer, jury75):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from grading.models import Assignment, Paper
    from tests.grading.factories import JurorFactory, paper_graded
    from tests.puzzles.factories import SystemFactory

    problem = jury75.problems.get(number=1)
    paper = Paper.objects.create(problem=problem, system=SystemFactory(competition=jury75))
    paper_graded(paper, {JurorFactory(): {"1a": "5", "1b": "2"}})
    assert Assignment.objects.count() == 1
    upload = SimpleUploadedFile("more.json", readme_rubrics(answers=12, problems=[1]).encode())
    response = organizer.post(
        reverse("grading:rubrics_upload", args=[SLUG]), {"file": upload, "new_version": "on"}
    )
    html = unescape(response.content.decode())
    assert response.templates[0].name == "grading/rubric_upload.html"
    assert "the jury's scale moves from 75 to 77 (the sum of the rubrics' maxima)" in html


def test_a_rubric_upload_applied_at_once_says_how_it_moved_the_scale(organizer, jury75):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("less.json", readme_rubrics(answers=9, problems=[2]).encode())
    response = organizer.post(
        reverse("grading:rubrics_upload", args=[SLUG]), {"file": upload}, follow=True
    )
    assert [str(m) for m in response.context["messages"]][-1] == (
        "problem 2: rubric v1; the jury's scale moves from 75 to 74 (the sum of the rubrics' "
        "maxima)"
    )


# --- totals and review ----------------------------------------------------------------------


def test_a_threshold_left_above_the_scale_is_said_on_the_totals_page(organizer, jury75):
    competition_set_scale(competition=jury75, points=D(100))
    competition_set_thresholds(competition=jury75, gold=D(80), silver=D(60))
    # An organizer (or an old database) moves the scale under the thresholds' feet.
    Competition.objects.filter(slug=SLUG).update(jury_scale=None)
    html = unescape(organizer.get(reverse("grading:totals", args=[SLUG])).content.decode())
    assert "Total / 75" in html
    assert "Totals are out of the jury's scale: 75 (the sum of the rubrics' maxima)" in html
    assert (
        "The gold threshold 80 is above the jury's scale, 75 (the sum of the rubrics' "
        "maxima): no gold is given until you set the thresholds again" in html
    )
    # Beside the value, as the review (which gives it as "gold —") leaves it out.
    assert (
        "Medal thresholds: gold 80 (not applied), silver 60, bronze —, honourable mention —."
        in html
    )
    page = totals_page(Competition.objects.get(slug=SLUG), provisional=True)
    assert page.scale.applied()["gold"] is None and page.scale.applied()["silver"] == D(60)


def test_a_threshold_left_above_the_scale_is_not_applied_on_the_competition_page(organizer, jury75):
    competition_set_scale(competition=jury75, points=D(100))
    competition_set_thresholds(competition=jury75, gold=D(80), silver=D(60))
    Competition.objects.filter(slug=SLUG).update(jury_scale=None)
    response = organizer.get(reverse("puzzles:competition", args=[SLUG]))
    action = reverse("puzzles:thresholds", args=[SLUG])
    (form,) = html.fromstring(response.content).xpath(f"//form[@action='{action}']")
    labels = {
        label.xpath(".//input")[0].get("name"): " ".join(label.text_content().split())
        for label in form.xpath(".//label")
    }
    assert labels == {
        "gold": "Gold not applied",
        "silver": "Silver",
        "bronze": "Bronze",
        "honourable_mention": "Honourable mention",
    }
    assert form.xpath(".//input[@name='gold']")[0].get("value") == "80.00"


def test_the_totals_page_is_out_of_an_organizers_scale(organizer, jury75):
    competition_set_scale(competition=jury75, points=D(100))
    html = unescape(organizer.get(reverse("grading:totals", args=[SLUG])).content.decode())
    assert "Total / 100" in html
    assert "100 (set by an organizer)" in html


# --- imports never set it -------------------------------------------------------------------


def test_an_import_never_sets_the_scale_nor_undoes_an_organizers(organizer, tmp_path):
    import zipfile

    from puzzles.demo import _write_layout

    _write_layout(tmp_path / "layout")
    _call("import_iolai", str(tmp_path / "layout"), "--slug", "imported")
    competition = Competition.objects.get(slug="imported")
    assert competition.jury_scale is None
    problems = sorted(competition.problems.values_list("number", flat=True))
    rubrics_import(readme_rubrics(problems=problems), competition=competition)
    assert jury_scale(competition).points == 15 * len(problems)
    competition_set_scale(competition=competition, points=D(100))
    _call("import_iolai", str(tmp_path / "layout"), "--slug", "imported")  # again: idempotent
    archive = tmp_path / "layout.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in (tmp_path / "layout").rglob("*"):
            if path.is_file():
                zipped.write(path, "layout/" + str(path.relative_to(tmp_path / "layout")))
    with archive.open("rb") as upload:
        response = organizer.post(
            reverse("puzzles:import_iolai"), {"slug": "imported", "archive": upload}
        )
    assert response.status_code == 302
    assert Competition.objects.get(slug="imported").jury_scale == D(100)
