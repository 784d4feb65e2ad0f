"""One read of cells (grading.selectors.cells.cells_read): the comparison sheet, the jury
totals and the result review judge every cell alike, and the review's cache fingerprint lists
the rows that read comes from (CELL_SOURCES)."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.consensus import agreed_value, cell_state
from grading.models import Assignment, Mark, ProblemJury, Resolution
from grading.review.selectors import _fingerprint_queryset, review_data, review_fingerprint
from grading.selectors import (
    CELL_SOURCES,
    cells_read,
    comparison_sheet,
    final_totals,
    rubric_criteria,
)
from grading.services import criterion_decide, mark_revise, mark_save
from puzzles.models import Problem, System
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

D = Decimal


def _random_jury(seed: int):
    """A competition of three problems graded at random through the services: drafts,
    submitted papers, decisions, a tolerance per problem, a problem without papers and,
    now and then, one without a rubric or one finalized as it stands."""
    rng = random.Random(seed)
    competition = CompetitionFactory()
    systems = [SystemFactory(competition=competition) for _ in range(rng.randint(3, 5))]
    jurors = [JurorFactory() for _ in range(5)]
    chair = ChairFactory()
    shapes = [("a", 2, "0.5"), ("b", 3, "1"), ("c", 1, "0.5"), ("d", 4, "0.5")]
    for number in (1, 2, 3):
        problem = ProblemFactory(competition=competition, number=number)
        ProblemJuryFactory(problem=problem, tolerance=D(rng.choice(["0", "0.5", "1"])))
        if number == 3:
            rubric_with(problem, *shapes[:2])
            continue  # a rubric and no papers: not given to the jury
        if rng.random() < 0.2:
            for system in systems:  # papers and no rubric: nothing to grade by yet
                PaperFactory(problem=problem, system=system)
            continue
        rubric_with(problem, *rng.sample(shapes, rng.randint(1, 4)))
        criteria = rubric_criteria(problem)
        for system in systems:
            paper = PaperFactory(problem=problem, system=system)
            for juror in rng.sample(jurors, rng.randint(0, 3)):
                points = {
                    c.code: c.step * rng.randint(0, int(c.maximum / c.step))
                    for c in criteria
                    if rng.random() < 0.9
                }
                # Only a paper with every criterion marked can be submitted.
                submit = len(points) == len(criteria) and rng.random() < 0.85
                paper_graded(paper, {juror: points}, submit=submit)
            for criterion in criteria:
                if rng.random() < 0.2 and (
                    Mark.objects.submitted()
                    .filter(assignment__paper=paper, criterion=criterion)
                    .exists()
                ):
                    points = criterion.step * rng.randint(
                        0, int(criterion.maximum / criterion.step)
                    )
                    criterion_decide(
                        paper=paper, criterion=criterion, points=points, reason="r", chair=chair
                    )
        if rng.random() < 0.4:  # finalized as it stands: the totals then show the problem
            ProblemJury.objects.filter(problem=problem).update(finalized_at=timezone.now())
    return competition


def _cell_by_hand(paper, criterion, tolerance):
    """One cell read straight from the tables and judged by the consensus rule."""
    assignments = list(paper.assignments.order_by("juror__username"))
    marks = {
        m.assignment.juror_id: m.points
        for m in Mark.objects.submitted().filter(assignment__paper=paper, criterion=criterion)
    }
    marks = {a.juror_id: marks[a.juror_id] for a in assignments if a.juror_id in marks}
    decision = Resolution.objects.filter(paper=paper, criterion=criterion).first()
    return marks, cell_state(
        submitted=marks,
        expected=len(assignments),
        decision=decision.points if decision else None,
        tolerance=tolerance,
        step=criterion.step,
    )


@pytest.mark.parametrize("seed", range(5))
def test_the_sheet_the_totals_and_the_review_agree_cell_by_cell(db, seed):
    competition = _random_jury(seed)
    problems = list(competition.problems.order_by("number"))
    provisional = {t.system_id: t for t in final_totals(competition, finalized_only=False)}
    final = {t.system_id: t for t in final_totals(competition)}
    data = review_data(competition)
    review = {s.system_id: s for s in data.systems}
    assert set(review) == set(provisional) == set(final)

    estimated = missing = 0
    papers_missing = []
    fractions: dict[str, list[Fraction]] = defaultdict(list)
    for problem in problems:
        jury = ProblemJury.objects.get(problem=problem)
        criteria, rows = comparison_sheet(problem)
        assert [c.pk for c in criteria] == [c.pk for c in rubric_criteria(problem)]
        for row in rows:
            system = row.paper.system_id
            values = []
            for cell in row.cells:
                # The sheet: as the tables hold it, judged by the consensus rule.
                marks, state = _cell_by_hand(row.paper, cell.criterion, jury.tolerance)
                assert (cell.marks, cell.state) == (marks, state)
                # The review: the final mark, else the rounded mean of the submitted marks.
                if state.resolved:
                    value = state.final
                else:
                    given = [v for v in marks.values() if v is not None]
                    value = agreed_value(given, cell.criterion.step) if given else None
                    estimated += value is not None
                    missing += value is None
                if value is not None:
                    label = f"P{problem.number}.{cell.criterion.code}"
                    fractions[label].append(Fraction(value) / Fraction(cell.criterion.maximum))
                values.append(value)
            # One paper's row read alone (the chair's inline decision) is the same row.
            [alone] = comparison_sheet(problem, paper=row.paper)[1]
            assert [(c.marks, c.state) for c in alone.cells] == [
                (c.marks, c.state) for c in row.cells
            ]
            # The totals: the sheet's final total, shown once the problem is finalized.
            assert provisional[system].by_problem[problem.number] == row.final_total
            shown = row.final_total if jury.finalized_at else None
            assert final[system].by_problem[problem.number] == shown
            # The review: final marks where the sheet has them, estimates elsewhere.
            standing = None if not values or None in values else sum(values, D(0))
            assert review[system].by_problem[problem.number] == standing
            if row.final_total is not None:
                assert standing == row.final_total
            if standing is None:
                papers_missing.append(row.paper.code)
            assert review[system].papers[problem.number] == row.paper.code
        counted = next(p for p in data.problems if p.number == problem.number)
        assert counted.counted == bool(rows)
        assert counted.finalized == (jury.finalized_at is not None)
    assert (data.estimated_cells, data.missing_cells) == (estimated, missing)
    assert data.papers_missing == tuple(sorted(papers_missing))
    assert data.model_fractions == {
        label: sum(v, Fraction(0)) / len(v) for label, v in sorted(fractions.items())
    }


def test_cells_read_takes_as_many_queries_for_one_problem_as_for_three(db):
    competition = _random_jury(seed=7)
    counts = []
    for chosen in (
        Problem.objects.filter(competition=competition, number=1),
        Problem.objects.filter(competition=competition),
    ):
        problems = list(chosen)  # without their juries: read with the cells
        with CaptureQueriesContext(connection) as queries:
            cells_read(problems)
        counts.append(len(queries))
    assert counts == [6, 6]  # five, and the juries


# --- what the cells are read from, and the review's fingerprint -----------------------------


def _tables(sql: str) -> set[str]:
    return set(re.findall(r'(?:FROM|JOIN)\s+"?(\w+)"?', sql))


# Read beside the cells for the pages that show them, never judged: which system a paper is
# (the review's fingerprint lists systems among its own sources) and who the jurors are (their
# usernames order and name the sheet's columns; no figure of the review depends on them).
BESIDE = {System._meta.db_table, get_user_model()._meta.db_table}


def _graded():
    """A problem with two submitted papers, a draft and a decision."""
    problem = ProblemJuryFactory().problem
    rubric_with(problem, ("a", 2, "0.5"), ("b", 1, "0.5"))
    anna, boris, vera = JurorFactory(), JurorFactory(), JurorFactory()
    paper = PaperFactory(problem=problem)
    paper_graded(paper, {anna: {"a": 2, "b": 1}, boris: {"a": 0, "b": 1}})
    paper_graded(paper, {vera: {"a": 1}}, submit=False)
    criterion_decide(
        paper=paper,
        criterion=rubric_criteria(problem)[0],
        points="1",
        reason="r",
        chair=ChairFactory(),
    )
    return problem, paper, (anna, boris, vera)


def test_the_reader_reads_the_cell_sources_and_the_fingerprint_lists_them(db):
    problem, _, _ = _graded()
    problems = list(Problem.objects.filter(pk=problem.pk))  # juries not loaded: read too
    with CaptureQueriesContext(connection) as queries:
        read = cells_read(problems)
    assert read[problem.pk].papers[0].cells  # it did read cells
    read_from = set().union(*(_tables(q["sql"]) for q in queries))
    sources = {source.model._meta.db_table for source in CELL_SOURCES}
    # No source the list lacks, and nothing listed that the reader does not read.
    assert read_from - BESIDE == sources

    fingerprint = _fingerprint_queryset(problem.competition_id)
    assert {f"fp_{s.name}" for s in CELL_SOURCES} <= set(fingerprint.query.annotations)
    listed = _tables(str(fingerprint.query))
    assert read_from - {get_user_model()._meta.db_table} <= listed


def test_a_write_to_every_cell_source_moves_the_fingerprint_and_a_draft_does_not(db):
    problem, paper, (anna, boris, vera) = _graded()
    competition = problem.competition
    criteria = rubric_criteria(problem)
    seen = {review_fingerprint(competition)}

    def moved() -> bool:
        fingerprint = review_fingerprint(competition)
        new = fingerprint not in seen
        seen.add(fingerprint)
        return new

    # A draft is its juror's own: no cell shows it, so the review stays.
    mark_save(assignment=paper.assignments.get(juror=vera), criterion=criteria[0], points="2")
    assert not moved()

    def submission():
        draft = paper.assignments.get(juror=vera)
        mark_save(assignment=draft, criterion=criteria[1], points="1")
        Assignment.objects.filter(pk=draft.pk).update(submitted_at=timezone.now())

    writes = {
        "paper": lambda: PaperFactory(problem=problem),
        "assignment": submission,
        "mark": lambda: mark_revise(
            assignment=paper.assignments.get(juror=boris),
            criterion=criteria[1],
            points="0.5",
            reason="r",
        ),
        "decision": lambda: Resolution.objects.filter(paper=paper).delete(),
        "jury": lambda: ProblemJury.objects.filter(problem=problem).update(tolerance=D("0.5")),
        "rubric": lambda: rubric_with(problem, ("a", 2, "0.5"), version=2),
        "criterion": lambda: (
            type(criteria[0]).objects.filter(pk=criteria[0].pk).update(maximum=D(3))
        ),
    }
    # Every source has its write here: a source added to the list is tested too.
    assert list(writes) == [source.name for source in CELL_SOURCES]
    for name, write in writes.items():
        write()
        assert moved(), name
    ProblemJury.objects.filter(problem=problem).update(finalized_at=timezone.now())
    assert moved(), "finalization"
