"""External systems (figures imported, answers held elsewhere) on the jury: selection, papers
that say where the answers are, on the page, the sheet, the thread, the PDF and the full
text, without naming the system; and marks imported for their papers."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from pypdf import PdfReader

from grading.models import Assignment, Mark, Paper, ProblemJury, Resolution
from grading.pdf import paper_pdf, paper_sheets, paper_text
from grading.selectors import (
    HELD_ELSEWHERE_NOTE,
    comparison_sheet,
    grading_page,
    paper_held_elsewhere,
)
from puzzles.models import System
from tests.grading.factories import (
    AssignmentFactory,
    JurorFactory,
    ProblemJurorFactory,
    rubric_with,
)
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    TaskFactory,
)

pytestmark = pytest.mark.django_db

SLUG = "ext"
# Neither name nor team may reach a juror; "held elsewhere" is not in them, so the note
# never passes for the name.
EXTERNAL = "Frontier-Q SECRETNAME"
ANSWERED = "Lab SECRETLAB"
NOTE_START = "The answers of this paper are held elsewhere"


def _pdf_text(data: bytes) -> str:
    # As tests/grading/test_pdf.py reads PDFs; lines joined, since the note wraps.
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.split())


def _run(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def competition(tmp_path: Path):
    competition = CompetitionFactory(slug=SLUG)
    for number in (1, 2):
        problem = ProblemFactory(competition=competition, number=number)
        task = TaskFactory(problem=problem, number=1, answer_key=[["KEYWORD-ONE"], ["two"]])
        rubric_with(problem, (f"{number}a", 2, "0.5"), (f"{number}b", 3, 1))
        OutputFactory(
            task=task,
            system=System.objects.get_or_create(competition=competition, name=ANSWERED)[0],
            raw_text='["ANSWER-ONE", "ANSWER-TWO"]',
            explanation="EXPLAINED-HERE",
        )
    scores = tmp_path / "scores.csv"
    scores.write_text(
        f"system,score,exact_match,chrf,problem\n{EXTERNAL},0.7,0.6,0.8,\n{EXTERNAL},0.5,,,1\n",
        encoding="utf-8",
    )
    _run("import_system_scores", SLUG, str(scores))
    external = System.objects.get(name=EXTERNAL)
    assert external.external and not external.outputs.exists()
    return competition


@pytest.fixture
def selected(competition):
    out = _run("select_for_jury", SLUG, "--system", EXTERNAL, "--system", ANSWERED)
    assert out.splitlines()[0] == "4 papers created"
    return {
        (p.system.name, p.problem.number): p
        for p in Paper.objects.select_related("system", "problem")
    }


def _assigned(paper: Paper, juror=None) -> Assignment:
    return AssignmentFactory(paper=paper, juror=juror or JurorFactory())


# --- selection ------------------------------------------------------------------------------


def test_select_for_jury_gives_an_external_system_a_paper_for_every_problem(selected):
    assert sorted(n for name, n in selected if name == EXTERNAL) == [1, 2]
    codes = {p.code for p in selected.values()}
    assert len(codes) == 4 and not any("SECRET" in code for code in codes)


def test_the_selection_page_offers_an_external_system_and_selects_it(organizer_client, competition):
    body = organizer_client.get(reverse("grading:jury", args=[SLUG])).content.decode()
    assert EXTERNAL in body
    assert "answers held elsewhere" in body  # the organizer sees which system is external
    response = organizer_client.post(reverse("grading:select", args=[SLUG]), {"systems": EXTERNAL})
    assert response.status_code == 302
    assert sorted(
        Paper.objects.filter(system__name=EXTERNAL).values_list("problem__number", flat=True)
    ) == [1, 2]


def test_assign_jurors_covers_the_external_papers(selected):
    for number in (1, 2):
        ProblemJurorFactory(problem=selected[(EXTERNAL, number)].problem)
    _run("assign_jurors", SLUG, "--per-paper", "1")
    for number in (1, 2):
        assert selected[(EXTERNAL, number)].assignments.count() == 1


# --- the juror's grading page ---------------------------------------------------------------


def test_the_grading_page_says_the_answers_are_held_elsewhere_and_not_whose(client, selected):
    assignment = _assigned(selected[(EXTERNAL, 1)])
    assert grading_page(assignment).held_elsewhere
    client.force_login(assignment.juror)
    response = client.get(reverse("grading:grade", args=[assignment.paper.code]))
    body = response.content.decode()
    assert response.status_code == 200
    assert NOTE_START in body
    assert "KEYWORD-ONE" in body  # the key stays, to grade from the organizers' copy
    assert "SECRET" not in body and "Frontier" not in body
    assert "ANSWER-ONE" not in body and "EXPLAINED-HERE" not in body


def test_a_paper_with_outputs_shows_its_answers_and_no_note(client, selected):
    assignment = _assigned(selected[(ANSWERED, 1)])
    assert not grading_page(assignment).held_elsewhere
    client.force_login(assignment.juror)
    body = client.get(reverse("grading:grade", args=[assignment.paper.code])).content.decode()
    assert "ANSWER-ONE" in body and "EXPLAINED-HERE" in body
    assert "held elsewhere" not in body
    assert "SECRET" not in body


def test_outputs_imported_later_for_an_external_system_are_shown(client, selected):
    paper = selected[(EXTERNAL, 1)]
    OutputFactory(
        task=paper.problem.tasks.get(), system=paper.system, raw_text='["LATE-ONE", "two"]'
    )
    assert not paper_held_elsewhere(paper)
    assert paper_held_elsewhere(selected[(EXTERNAL, 2)])  # problem by problem
    assignment = _assigned(paper)
    client.force_login(assignment.juror)
    body = client.get(reverse("grading:grade", args=[paper.code])).content.decode()
    assert "LATE-ONE" in body and "held elsewhere" not in body


# --- the chair's sheet and the paper's thread -----------------------------------------------


def test_the_sheet_marks_the_external_papers_without_naming_the_system(client, chair, selected):
    for paper in selected.values():
        _assigned(paper)
    _, rows = comparison_sheet(selected[(EXTERNAL, 1)].problem)
    held = {row.paper.code: row.held_elsewhere for row in rows}
    assert held == {selected[(EXTERNAL, 1)].code: True, selected[(ANSWERED, 1)].code: False}
    client.force_login(chair)
    body = client.get(reverse("grading:sheet", args=[SLUG, 1])).content.decode()
    assert body.count("answers held elsewhere") == 1
    assert NOTE_START in body  # the pill's title says what it means
    row = body.split(f'id="paper-{selected[(EXTERNAL, 1)].code}"')[1].split("</tr>")[0]
    assert "answers held elsewhere" in row
    assert "SECRET" not in body and "Frontier" not in body


def test_the_thread_shows_the_note_in_place_of_the_answers(client, chair, selected):
    paper = selected[(EXTERNAL, 2)]
    _assigned(paper)
    criterion = paper.problem.rubrics.get().criteria.order_by("order").first()
    client.force_login(chair)
    body = client.get(reverse("grading:thread", args=[paper.code, criterion.pk])).content.decode()
    assert NOTE_START in body
    assert "KEYWORD-ONE" in body
    assert "SECRET" not in body and "Frontier" not in body


# --- the PDF and the full text --------------------------------------------------------------


def test_the_pdf_says_the_answers_are_held_elsewhere_and_not_whose(selected):
    data = paper_pdf(selected[(EXTERNAL, 1)])
    text = _pdf_text(data)
    assert "Answers held elsewhere" in text
    assert " ".join(HELD_ELSEWHERE_NOTE.split()) in text
    assert "held elsewhere (see the note above)" in text  # per assignment
    rest = text.replace(" ".join(HELD_ELSEWHERE_NOTE.split()), "")
    assert "no answer" not in rest and "No explanation given." not in rest  # no empty answers
    assert "Marking" in text and "1a" in text  # still graded on paper
    for secret in (b"SECRET", b"Frontier"):
        assert secret not in data
    assert "SECRET" not in text and "Frontier" not in text


def test_the_pdf_of_a_paper_with_outputs_does_not_say_it(selected):
    text = _pdf_text(paper_pdf(selected[(ANSWERED, 1)]))
    assert "ANSWER-ONE" in text and "EXPLAINED-HERE" in text
    assert "held elsewhere" not in text


def test_sheets_of_mixed_papers_in_one_batch(selected, django_assert_max_num_queries):
    papers = sorted(selected.values(), key=lambda p: p.code)
    with django_assert_max_num_queries(7):
        sheets = paper_sheets(papers)
    assert {s.code: s.held_elsewhere for s in sheets} == {
        p.code: p.system.name == EXTERNAL for p in papers
    }


def test_the_full_text_says_the_answers_are_held_elsewhere(client, selected):
    paper = selected[(EXTERNAL, 1)]
    text = paper_text(paper)
    assert HELD_ELSEWHERE_NOTE in text and "SECRET" not in text
    assert "as the system gave them" not in text
    assert HELD_ELSEWHERE_NOTE not in paper_text(selected[(ANSWERED, 1)])
    assignment = _assigned(paper)
    client.force_login(assignment.juror)
    body = client.get(reverse("grading:paper_text", args=[paper.code])).content.decode()
    assert HELD_ELSEWHERE_NOTE in body


# --- marks imported for external papers -----------------------------------------------------


def test_import_marks_takes_marks_for_an_external_systems_paper(selected, tmp_path: Path):
    path = tmp_path / "marks.csv"
    path.write_text(
        "system,problem,criterion,juror,points,comment\n"
        f"{EXTERNAL},1,1a,remote-juror,1.5,from the organizers' copy\n"
        f"{EXTERNAL},1,1b,remote-juror,2,\n",
        encoding="utf-8",
    )
    out = _run("import_marks", SLUG, str(path))
    assert out.splitlines()[0] == "2 marks, 0 final marks, 0 new papers"
    paper = selected[(EXTERNAL, 1)]
    assignment = Assignment.objects.get(paper=paper, juror__username="remote-juror")
    assert assignment.is_submitted
    assert dict(
        Mark.objects.filter(assignment=assignment).values_list("criterion__code", "points")
    ) == {"1a": Decimal("1.5"), "1b": Decimal("2")}
    _, rows = comparison_sheet(paper.problem)
    row = next(r for r in rows if r.paper == paper)
    assert row.held_elsewhere and row.final_total == Decimal("3.5")


def test_import_marks_final_finalizes_with_external_papers(selected, tmp_path: Path):
    path = tmp_path / "final.csv"
    path.write_text(
        "system,problem,criterion,points\n"
        + "".join(f"{name},2,{code},1\n" for name in (EXTERNAL, ANSWERED) for code in ("2a", "2b")),
        encoding="utf-8",
    )
    out = _run("import_marks", SLUG, str(path), "--final")
    assert "finalized problems: 2" in out
    assert Resolution.objects.filter(paper=selected[(EXTERNAL, 2)]).count() == 2
    assert ProblemJury.objects.get(problem__number=2).finalized_at is not None


def test_import_marks_alone_makes_an_external_paper(competition, tmp_path: Path):
    path = tmp_path / "marks.csv"
    path.write_text(
        "system,problem,criterion,juror,points\n"
        f"{EXTERNAL},2,2a,remote-juror,1\n{EXTERNAL},2,2b,remote-juror,0\n",
        encoding="utf-8",
    )
    assert "1 new papers" in _run("import_marks", SLUG, str(path))
    paper = Paper.objects.get(system__name=EXTERNAL)
    assert paper.problem.number == 2 and paper_held_elsewhere(paper)


# --- recognisable papers: told on selection; alike once the answers are imported ------------


def test_select_for_jury_warns_that_papers_held_elsewhere_are_recognisable(competition):
    out = _run("select_for_jury", SLUG, "--system", EXTERNAL, "--system", ANSWERED)
    lines = out.splitlines()
    assert lines[0] == "4 papers created"
    assert len(lines) == 2  # one warning, for the external system alone
    assert lines[1].startswith(f"warning: the papers of {EXTERNAL} (problems 1, 2) will be")
    assert "recognisable" in lines[1] and "import_outputs" in lines[1]
    assert ANSWERED not in out


def test_the_selection_page_warns_and_the_jury_page_keeps_saying_it(organizer_client, competition):
    response = organizer_client.post(
        reverse("grading:select", args=[SLUG]), {"systems": [EXTERNAL, ANSWERED]}, follow=True
    )
    warnings = [str(m) for m in response.context["messages"] if m.level_tag == "warning"]
    assert len(warnings) == 1 and warnings[0].startswith(
        f"the papers of {EXTERNAL} (problems 1, 2)"
    )
    body = organizer_client.get(reverse("grading:jury", args=[SLUG])).content.decode()
    assert "Papers their jurors can recognise" in body
    assert reverse("puzzles:import_outputs", args=[SLUG]) in body


def _import_outputs(tmp_path: Path, system: str) -> None:
    """Import the same answers for `system` through import_outputs, problem by problem."""
    path = tmp_path / "outputs.csv"
    rows = ["id,pred,explanation"]
    for task in Paper.objects.first().problem.competition.problems.get(number=1).tasks.all():
        rows.append(f'{task.external_id},"[""ALIKE-ONE"", ""two""]",ALIKE-WHY')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    _run("import_outputs", SLUG, str(path), "--system", system)


def _alike(text: str, code: str) -> str:
    """The page or text without what differs between any two papers: code, CSRF tokens."""
    text = text.replace(code, "CODE")
    return re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"', r"\1TOKEN", text)


def test_once_its_answers_are_imported_an_external_paper_looks_like_any_other(
    client, competition, tmp_path
):
    """The recommended way out: with its outputs imported, an external system's paper gives
    its juror the same page, PDF and full text as a paper of an ordinary system with the same
    answers, and selection warns no more for that problem."""
    plain = "Plain SECRETPLAIN"
    _run("select_for_jury", SLUG, "--system", EXTERNAL)
    _import_outputs(tmp_path, EXTERNAL)
    _import_outputs(tmp_path, plain)
    out = _run("select_for_jury", SLUG, "--system", plain, "--system", EXTERNAL)
    assert f"warning: the papers of {EXTERNAL} (problem 2) will be" in out  # 1 is answered
    external = Paper.objects.get(system__name=EXTERNAL, problem__number=1)
    ordinary = Paper.objects.get(system__name=plain, problem__number=1)
    assert System.objects.get(name=EXTERNAL).external and not ordinary.system.external
    juror = JurorFactory()
    client.force_login(juror)
    seen = {}
    for paper in (external, ordinary):
        _assigned(paper, juror)
    for paper, other in ((external, ordinary), (ordinary, external)):
        page = client.get(reverse("grading:grade", args=[paper.code])).content.decode()
        assert "ALIKE-ONE" in page and "held elsewhere" not in page
        assert f"Next unfinished paper: {other.code}" in page  # the one other difference
        seen[paper.code] = (
            _alike(page.replace(other.code, "OTHER"), paper.code),
            _pdf_text(paper_pdf(paper)).replace(paper.code, "CODE"),
            paper_text(paper).replace(paper.code, "CODE"),
        )
    assert seen[external.code] == seen[ordinary.code]
