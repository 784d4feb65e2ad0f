"""The context lab's results pages (Table 1, paired tests, chart) and judges page (Table 2,
Tables 7 and 8), their CSV and XLSX exports, and the demo results.

The hand-computed figures are those of test_results_flow (two invented puzzles, one model
m1, one judge j1); they are imported from there so the two tests read the same data.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from puzzles.context.lab.services import puzzles_import
from puzzles.context.lab.variants import CONDITIONS
from puzzles.context.results.demo import JUDGES, MODELS, context_demo_results_load
from puzzles.context.results.imports import judge_verdicts_import, solver_answers_import
from puzzles.context.results.selectors import context_results
from puzzles.context.results.tables import TABLES, result_table
from puzzles.models import ContextPuzzle, JudgeVerdict, SolverAnswer

from .test_outcomes import paper_table_2_corpus
from .test_results_flow import ANSWERS, PUZZLES, VERDICTS

pytestmark = pytest.mark.django_db

PAGES = ("puzzles:context_results", "puzzles:context_judges")


def _jsonl(rows: list[dict]) -> io.StringIO:
    return io.StringIO("".join(json.dumps(r) + "\n" for r in rows))


def _puzzles(puzzles: list[dict]) -> None:
    puzzles_import(stream=io.StringIO(json.dumps(puzzles)), file="test.json")


@pytest.fixture
def flow():
    """The two puzzles, twelve answers and five verdicts of test_results_flow."""
    _puzzles(PUZZLES)
    solver_answers_import(stream=_jsonl(ANSWERS), file="answers.jsonl")
    verdicts = [{"puzzle": p, "condition": c, "judge": "j1", "verdict": v} for p, c, v in VERDICTS]
    judge_verdicts_import(stream=_jsonl(verdicts), file="verdicts.jsonl")


def _generated(n: int, questions: int = 3) -> list[dict]:
    """n invented puzzles of four examples and `questions` questions each."""
    out = []
    for i in range(n):
        words = [f"w{i}x{k}" for k in range(6)]
        examples = [
            {"foreign": f"{words[k]} {words[(k + 1) % 6]}", "english": f"sense {k}"}
            for k in range(4)
        ]
        asked = [
            {
                "id": f"{i}.{q}",
                "direction": "to_english" if q % 2 else "to_foreign",
                "prompt": f"{words[q]} {words[q + 1]}" if q % 2 else f"sense {q}",
                "answer": f"sense {q}" if q % 2 else f"{words[q]} {words[q + 1]}",
            }
            for q in range(questions)
        ]
        out.append(
            {
                "slug": f"gen-{i:03d}",
                "title": f"Generated {i}",
                "language": "Invented",
                "examples": examples,
                "questions": asked,
            }
        )
    return out


def _row(html: str, table_id: str, first: str) -> list[str]:
    """Return the cells (tags stripped) of the row of table `table_id` whose first cell is
    `first`, or whose second is (Table 1's rows start with the model)."""
    table = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', html, re.S)[1]
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
        cells = [
            " ".join(re.sub(r"<[^>]+>", "", cell).split())
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        if first in cells[:2]:
            return cells
    raise AssertionError(f"no row {first!r} in {table_id}")


# --- pages -----------------------------------------------------------------------------


def test_results_page_shows_table_1_the_tests_and_the_chart(organizer_client, flow):
    response = organizer_client.get(reverse("puzzles:context_results"))
    assert response.status_code == 200
    page = response.context["page"]
    rows = {s.condition: s for s in page.results.summaries}
    assert (rows["targeted"].mean_em, rows["targeted"].puzzles_caused_abstention) == (0.75, 1)
    html = response.content.decode()
    assert '<table id="conditions">' in html and '<table id="paired-tests">' in html
    # Table 1's targeted row: mean EM 0.750; caused abstentions in one of the two puzzles
    # with an answered question (the paper's count), one of four answered questions (ours).
    targeted = _row(html, "conditions", "targeted")
    assert targeted[3] == "0.750"
    assert targeted[6:8] == ["1 of 2", "1 of 4"]
    assert "Puzzles with an abstention caused by the deletion" in html
    assert "as the paper counts them (in puzzles)" in html
    # no_context: every puzzle abstained, so no mean over attempted ones.
    assert "Every puzzle was abstained on" in html
    # McNemar p of no_context: all four questions lost, 2 * (1/2)^4.
    assert "0.125" in html  # the McNemar p, three significant figures (ioleval.wording)
    assert '<svg xmlns:xlink="http://www.w3.org/1999/xlink"' in html
    assert 'aria-label="Mean EM per model and condition"' in html
    assert "seed 2026 and the normalized tokenizer" in html
    assert 'id="id_seed_helptext"' in html  # what the input's aria-describedby names


def test_judges_page_shows_table_2_and_the_contradictions(organizer_client, flow):
    response = organizer_client.get(reverse("puzzles:context_judges"))
    assert response.status_code == 200
    html = response.content.decode()
    for table in ("judges-targeted", "judges-pooled", "unsolvable-but-held", "valid-but-fell"):
        assert f'<table id="{table}">' in html
    assert "<h2>Table 2: judges on the targeted deletion, against fragility</h2>" in html
    assert "<h2>Every judged variant, pooled (not the paper's Table 2)</h2>" in html
    # Table 2, the targeted variants alone: vela TP, sorn FP: precision 1/2, recall 1, F1 2/3.
    assert _row(html, "judges-targeted", "j1")[1:] == [
        "targeted",
        "2",
        "1",
        "1",
        "0",
        "0",
        "0.500",
        "1.000",
        "0.667",
        "",
    ]
    # Pooled over the five verdicts: precision = recall = F1 = 2/3.
    assert _row(html, "judges-pooled", "j1")[1:] == [
        "original, targeted, no_context",
        "5",
        "2",
        "1",
        "1",
        "1",
        "0.667",
        "0.667",
        "0.667",
        "",
    ]
    held = html.split('<table id="unsolvable-but-held">')[1].split("</table>")[0]
    fell = html.split('<table id="valid-but-fell">')[1].split("</table>")[0]
    assert "sorn" in held and "targeted" in held and "vela" not in held
    assert "sorn" in fell and "no_context" in fell and "vela" not in fell


def test_the_judges_page_and_exports_give_the_papers_table_2_and_the_pooled_one(
    organizer_client,
):
    # The verdicts of test_outcomes.paper_table_2_corpus on real puzzles: fNN is fragile
    # (its question needs "a", held by example 1 alone), rNN robust ("a" in both examples);
    # no_context is unsolvable for both (the question needs "a", a token of the context).
    verdicts, labels = paper_table_2_corpus()
    slugs = sorted({v.puzzle for v in verdicts})
    _puzzles(
        [
            {
                "slug": slug,
                "examples": [
                    {"foreign": "a b"},
                    {"foreign": "b c" if slug.startswith("f") else "a c"},
                ],
                "questions": [{"id": "q", "direction": "to_english", "prompt": "a", "answer": "x"}],
            }
            for slug in slugs
        ]
    )
    found = context_results()
    assert {
        (x.puzzle, x.condition): x.unsolvable for x in found.labels if x.condition != "random"
    } == labels
    rows = [
        {"puzzle": v.puzzle, "condition": v.condition, "judge": v.judge, "verdict": v.verdict}
        for v in verdicts
    ]
    judge_verdicts_import(stream=_jsonl(rows), file="verdicts.jsonl")
    html = organizer_client.get(reverse("puzzles:context_judges")).content.decode()
    # Table 2: 32/34 = 0.941, 32/45 = 0.711, 64/79 = 0.810 (the paper's 94.1 / 71.1 / 81.0).
    assert _row(html, "judges-targeted", "J")[1:] == [
        "targeted",
        "55",
        "32",
        "2",
        "13",
        "8",
        "0.941",
        "0.711",
        "0.810",
        "",
    ]
    # Pooled: 82/87 = 0.943, 82/100 = 0.820, 164/187 = 0.877.
    assert _row(html, "judges-pooled", "J")[1:] == [
        "original, targeted, no_context",
        "165",
        "82",
        "5",
        "18",
        "60",
        "0.943",
        "0.820",
        "0.877",
        "",
    ]
    for table, figures in (
        ("judges-targeted", (32 / 34, 32 / 45, 64 / 79)),
        ("judges-pooled", (82 / 87, 82 / 100, 164 / 187)),
    ):
        url = reverse("puzzles:context_results_export", args=[table, "csv"])
        (row,) = csv.DictReader(io.StringIO(organizer_client.get(url).content.decode()))
        assert [float(row[k]) for k in ("precision", "recall", "f1")] == pytest.approx(figures)


def test_judges_of_other_variants_only_leave_table_2_empty_and_say_so(organizer_client):
    _puzzles(PUZZLES)
    rows = [{"puzzle": "vela", "condition": "no_context", "judge": "j1", "verdict": "valid"}]
    judge_verdicts_import(stream=_jsonl(rows), file="verdicts.jsonl")
    html = organizer_client.get(reverse("puzzles:context_judges")).content.decode()
    assert '<table id="judges-targeted">' not in html
    assert "No verdict on a targeted variant yet." in html
    # vela without context is unsolvable (v.1 and v.2 need tokens of it): one FN.
    assert _row(html, "judges-pooled", "j1")[1:7] == ["no_context", "1", "0", "0", "1", "0"]


def test_pages_without_results_say_what_to_import(organizer_client):
    results = organizer_client.get(reverse("puzzles:context_results")).content.decode()
    assert "import_solver_answers" in results and "No solver answers yet" in results
    judges = organizer_client.get(reverse("puzzles:context_judges")).content.decode()
    assert "import_judge_verdicts" in judges


def test_the_options_change_the_labels_and_a_bad_seed_falls_back(organizer_client, flow):
    url = reverse("puzzles:context_judges")
    response = organizer_client.get(url, {"seed": "7", "tokenizer": "whitespace"})
    page = response.context["page"]
    assert (page.results.seed, page.results.tokenizer) == (7, "whitespace")
    # Under the whitespace tokenizer the labels differ from the default's only in what they
    # read; the export links carry the options so the files match the page.
    export = reverse("puzzles:context_results_export", args=["judges-targeted", "csv"])
    assert f'href="{export}?seed=7&amp;tokenizer=whitespace"' in response.content.decode()
    response = organizer_client.get(url, {"seed": "many", "tokenizer": "nope"})
    assert response.status_code == 200
    assert (response.context["results"].seed, response.context["results"].tokenizer) == (
        2026,
        "normalized",
    )
    assert response.context["form"].errors.keys() == {"seed", "tokenizer"}


EXPORTS = [(table, fmt) for table in TABLES for fmt in ("csv", "xlsx")]


def _urls() -> list[str]:
    return [reverse(name) for name in PAGES] + [
        reverse("puzzles:context_results_export", args=[t, f]) for t, f in EXPORTS
    ]


def test_jurors_are_refused_and_anonymous_users_sent_to_log_in(client, juror, flow):
    for url in _urls():
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    client.force_login(juror)
    for url in _urls():
        assert client.get(url).status_code == 403, url


def test_pages_refuse_post(organizer_client):
    assert organizer_client.post(reverse("puzzles:context_results")).status_code == 405


# --- exports ---------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "fmt"), EXPORTS)
def test_each_table_exports_with_its_header(organizer_client, flow, table, fmt):
    url = reverse("puzzles:context_results_export", args=[table, fmt])
    response = organizer_client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="context-{table}-seed2026-normalized.{fmt}"'
    )
    header, rows = result_table(context_results(), table)
    assert rows  # every table of the flow has at least one row
    if fmt == "csv":
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        read = list(csv.reader(io.StringIO(response.content.decode())))
        assert read[0] == header
        assert len(read) == 1 + len(rows)
    else:
        assert response["Content-Type"].startswith(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        )
        sheet = load_workbook(io.BytesIO(response.content)).active
        values = list(sheet.iter_rows(values_only=True))
        assert list(values[0]) == header
        assert len(values) == 1 + len(rows)


def test_the_conditions_export_holds_table_1(organizer_client, flow):
    url = reverse("puzzles:context_results_export", args=["conditions", "csv"])
    read = list(csv.DictReader(io.StringIO(organizer_client.get(url).content.decode())))
    targeted = next(r for r in read if r["condition"] == "targeted")
    assert (targeted["model"], float(targeted["mean_em"])) == ("m1", 0.75)
    assert (targeted["puzzles_caused_abstention"], targeted["puzzles_answered_in_original"]) == (
        "1",
        "2",
    )
    assert (
        targeted["questions_caused_abstention"],
        targeted["questions_answered_in_original"],
    ) == ("1", "4")


def test_exports_follow_the_options_and_refuse_unknown_tables(organizer_client, flow):
    url = reverse("puzzles:context_results_export", args=["judges-pooled", "csv"])
    response = organizer_client.get(url, {"seed": "7", "tokenizer": "whitespace"})
    assert (
        'filename="context-judges-pooled-seed7-whitespace.csv"' in response["Content-Disposition"]
    )
    for table, fmt in (("nope", "csv"), ("judges-targeted", "pdf"), ("judges", "csv")):
        url = reverse("puzzles:context_results_export", args=[table, fmt])
        assert organizer_client.get(url).status_code == 404


def test_a_formula_in_a_model_name_stays_text(organizer_client):
    _puzzles(PUZZLES[:1])
    rows = [
        {
            "puzzle": "vela",
            "condition": "original",
            "model": "=HYPERLINK(1)",
            "question": q,
            "answer": a,
        }
        for q, a in (("v.1", "You run."), ("v.2", "ta mo"))
    ]
    solver_answers_import(stream=_jsonl(rows), file="a.jsonl")
    url = reverse("puzzles:context_results_export", args=["conditions", "csv"])
    assert '"\'=HYPERLINK(1)"' in organizer_client.get(url).content.decode()


# --- the demo results ------------------------------------------------------------------


def test_demo_results_cover_every_model_condition_and_judge_and_load_once():
    _puzzles(PUZZLES)
    puzzles = list(ContextPuzzle.objects.order_by("slug"))
    questions = 4  # two per puzzle
    first = context_demo_results_load(puzzles)
    answers = len(MODELS) * len(CONDITIONS) * questions
    verdicts = len(JUDGES) * len(CONDITIONS) * len(puzzles)
    assert (first.answers.created, first.verdicts.created) == (answers, verdicts)
    assert SolverAnswer.objects.filter(abstained=True).exists()
    assert SolverAnswer.objects.filter(abstained=False).exists()
    assert set(JudgeVerdict.objects.values_list("verdict", flat=True)) == {"valid", "unsolvable"}
    results = context_results()
    assert {(s.model, s.condition) for s in results.summaries} == {
        (m.name, c) for m in MODELS for c in CONDITIONS
    }
    assert results.judges == tuple(sorted(j.name for j in JUDGES))
    em = {s.condition: s.mean_em for s in results.summaries}
    assert 0 < em["original"] <= 1

    before = list(SolverAnswer.objects.order_by("pk").values_list("answer", "abstained"))
    again = context_demo_results_load()  # every puzzle: the same two
    assert (again.answers.created, again.answers.updated) == (0, 0)
    assert (again.verdicts.created, again.verdicts.updated) == (0, 0)
    assert again.answers.unchanged == answers and again.verdicts.unchanged == verdicts
    assert list(SolverAnswer.objects.order_by("pk").values_list("answer", "abstained")) == before
    assert JudgeVerdict.objects.count() == verdicts


def test_demo_results_without_puzzles_load_nothing():
    assert context_demo_results_load() is None
    assert not SolverAnswer.objects.exists()


def test_demo_results_fill_the_pages(organizer_client):
    _puzzles(_generated(3))
    context_demo_results_load()
    html = organizer_client.get(reverse("puzzles:context_results")).content.decode()
    for model in MODELS:
        assert model.name in html
    judges = organizer_client.get(reverse("puzzles:context_judges")).content.decode()
    for judge in JUDGES:
        assert judge.name in judges


# --- speed -----------------------------------------------------------------------------


def _page_queries(client, n: int) -> int:
    SolverAnswer.objects.all().delete()
    JudgeVerdict.objects.all().delete()
    ContextPuzzle.objects.all().delete()
    _puzzles(_generated(n))
    context_demo_results_load()
    with CaptureQueriesContext(connection) as queries:
        for name in PAGES:
            assert client.get(reverse(name)).status_code == 200
    return len(queries)


def test_the_pages_take_the_same_number_of_queries_at_two_sizes(organizer_client):
    assert _page_queries(organizer_client, 2) == _page_queries(organizer_client, 6)


def test_demo_results_on_the_demo_puzzles(organizer_client):
    from puzzles.context.lab.demo import context_demo_load
    from puzzles.models import JudgeVerdict, SolverAnswer

    puzzles = context_demo_load()  # the puzzles with their invented results
    assert SolverAnswer.objects.exists() and JudgeVerdict.objects.exists()
    assert context_demo_load() == puzzles  # the demo puzzles still load: results do not block them
    again = context_demo_results_load(puzzles)
    assert (again.answers.created + again.answers.updated, again.verdicts.updated) == (0, 0)
    results = organizer_client.get(reverse("puzzles:context_results"))
    assert results.status_code == 200
    assert set(results.context["results"].puzzles) == {p.slug for p in puzzles}
    assert organizer_client.get(reverse("puzzles:context_judges")).status_code == 200
