"""The writes of the scale benchmarks that bypass the app's services, all in one place.

At IOL scale (300 systems, 5 problems, 3 jurors per paper, 10 criteria) a run holds about
2,700 outputs, 4,500 assignments and 30,000 marks. Per row through the services that would
take longer than the benchmark's measures, and would not give the data a benchmark needs:

- outputs: `OutputFactory` prepares each raw text and the scores come from rescoring the
  competition; here the answers, flags and scores are drawn directly (the jury pages only
  show them);
- marks and submissions: `mark_save` locks the assignment and writes a history row per mark,
  `assignment_submit` one transaction per paper; here marks and submissions are inserted
  at once and review_scale writes the history rows the grading page would have written,
  with dates of its own;
- papers: `papers_create` draws each code from `secrets` (codes must not be guessable), so a
  seed could not reproduce them; here the paper factory's instances get codes numbered as
  the factory numbers them (P1-2222, P1-2223, ...), 1,500 in one insert;
- chair's decisions: `criterion_decide` needs a submitted mark on the criterion first; here
  every 20th paper gets a decision whatever its marks, as the sheet shows them;
- observation tags given: `tags_set` is a transaction and five queries per assignment, most
  of the build time for 900 tags at this scale;
- contestants: invented points on every criterion and medal thresholds.
"""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

EXPLANATIONS = (
    "**Rule.** The suffix *-{a}* marks the plural, and *{b}* comes first in the phrase.\n\n"
    "- {c} is the verb root\n- the object follows the verb\n",
    "The word order is SOV. I matched *{a}* with *{b}* by the repeated syllable; "
    "`{c}` appears in every sentence with a past meaning.",
    "Counting in base 5: *{a}* = 5, *{b}* = 1, so {c} is 5 x 3 + 1.",
)


def outputs_create(systems: list, tasks: list, rng, *, words, glosses: tuple) -> int:
    """Give every system an output for every task: answers about 60% right, a markdown
    explanation (none in 15%), exact-match flags and a chrF; return how many."""
    from puzzles.models import Output

    outputs = []
    for system in systems:
        for task in tasks:
            answers, flags = [], []
            for key in task.answer_key:
                right = rng.random() < 0.6
                answers.append(key[0] if right else rng.choice(glosses + (words(rng),)))
                flags.append(int(answers[-1] == key[0]))
            explanation = (
                ""
                if rng.random() < 0.15
                else rng.choice(EXPLANATIONS).format(a=words(rng), b=words(rng), c=words(rng))
            )
            outputs.append(
                Output(
                    system=system,
                    task=task,
                    raw_text=json.dumps(answers, ensure_ascii=False),
                    parsed_items=answers,
                    extracted_items=answers,
                    explanation=explanation,
                    scores={
                        "iol2026": {
                            "parsed": {
                                "em": sum(flags) / len(flags),
                                "chrf": rng.random(),
                                "item_em": flags,
                            }
                        }
                    },
                )
            )
    Output.objects.bulk_create(outputs, batch_size=1000)
    return len(outputs)


def papers_create(problems: list, systems: list, *, prefix: str) -> dict[int, list]:
    """Give every system a paper of every problem, coded <prefix><problem>-<4 characters>;
    return them per problem id, in system order."""
    from grading.models import Paper
    from tests.grading.factories import PaperFactory, _code

    papers = [
        PaperFactory.build(system=s, problem=p, code=f"{prefix}{p.number}-{_code(i)}")
        for p in problems
        for i, s in enumerate(systems)
    ]
    Paper.objects.bulk_create(papers, batch_size=1000)
    return {p.pk: [x for x in papers if x.problem_id == p.pk] for p in problems}


def assignments_submit(assignments: list) -> None:
    """Mark the assignments submitted now (their marks follow in marks_create)."""
    from django.utils import timezone

    from grading.models import Assignment

    now = timezone.now()
    for a in assignments:
        a.submitted_at = now
    Assignment.objects.filter(pk__in=[a.pk for a in assignments]).update(submitted_at=now)


def marks_create(board, by_paper: dict[int, list], rng, *, draw) -> int:
    """Mark every criterion of the submitted assignments and some of the drafts; the jurors
    of a paper mostly agree (one value per criterion, a step off now and then)."""
    from grading.models import Mark

    marks = []
    for problem in board.problems:
        criteria = board.criteria[problem.pk]
        for paper in board.papers[problem.pk]:
            agreed = {c.pk: draw(rng, c.maximum, c.step) for c in criteria}
            for a in by_paper[paper.pk]:
                chosen = (
                    criteria
                    if a.submitted_at
                    else rng.sample(criteria, rng.randint(0, len(criteria) - 1))
                )
                for c in chosen:
                    points = agreed[c.pk]
                    if rng.random() < 0.15:
                        points = min(
                            c.maximum, max(Decimal(0), points + rng.choice((-1, 1)) * c.step)
                        )
                    marks.append(
                        Mark(
                            assignment=a,
                            criterion=c,
                            points=points,
                            comment="" if rng.random() < 0.8 else "partly right",
                        )
                    )
    Mark.objects.bulk_create(marks, batch_size=5000)
    return len(marks)


def decisions_create(cells: list[tuple], *, chair) -> None:
    """Give each (paper, criterion) a chair's decision of 0 points."""
    from grading.models import Resolution

    Resolution.objects.bulk_create(
        Resolution(
            paper=paper,
            criterion=criterion,
            points=Decimal(0),
            kind=Resolution.Kind.CHAIR,
            reason="agreed in discussion",
            decided_by=chair,
        )
        for paper, criterion in cells
    )


def tags_create(tagged: list[tuple]) -> None:
    """Give each (assignment, observation tag) pair: the juror noted it on the paper."""
    from grading.models import PaperTag

    PaperTag.objects.bulk_create(PaperTag(assignment=a, tag=tag) for a, tag in tagged)


def jury_complete(board, rng) -> dict:
    """Submit every assignment with every criterion marked, write each mark's history as the
    grading page would have before submission, and revise one discrepant cell in four."""
    from django.utils import timezone

    from grading.models import Assignment, Mark

    now = timezone.now()
    mine = {"paper__problem__competition": board.competition}
    Assignment.objects.filter(**mine).update(submitted_at=now)
    assignments = list(Assignment.objects.filter(**mine).values_list("pk", "paper__problem_id"))
    have = set(
        Mark.objects.filter(assignment__paper__problem__competition=board.competition).values_list(
            "assignment_id", "criterion_id"
        )
    )
    missing = [
        Mark(
            assignment_id=a,
            criterion_id=c.pk,
            points=c.step * rng.randint(0, int(c.maximum / c.step)),
        )
        for a, problem_id in assignments
        for c in board.criteria[problem_id]
        if (a, c.pk) not in have
    ]
    Mark.objects.bulk_create(missing, batch_size=5000)

    marks = list(
        Mark.objects.filter(assignment__paper__problem__competition=board.competition)
        .select_related("assignment")
        .order_by("assignment__paper_id", "criterion_id", "assignment_id")
    )
    History = Mark.history.model
    before = now - timedelta(minutes=30)
    History.objects.bulk_create(
        (
            History(
                id=m.pk,
                assignment_id=m.assignment_id,
                criterion_id=m.criterion_id,
                points=m.points,
                comment=m.comment,
                history_date=before,
                history_type="+",
            )
            for m in marks
        ),
        batch_size=5000,
    )
    # Revisions after discussion: the later juror moves to the earlier juror's mark.
    revised = []
    cells: dict[tuple[int, int], list] = {}
    for m in marks:
        cells.setdefault((m.assignment.paper_id, m.criterion_id), []).append(m)
    for ms in cells.values():
        if len(ms) >= 2 and ms[0].points != ms[1].points and rng.random() < 0.25:
            ms[1].points = ms[0].points
            revised.append(ms[1])
    Mark.objects.bulk_update(revised, ["points"], batch_size=5000)
    History.objects.bulk_create(
        History(
            id=m.pk,
            assignment_id=m.assignment_id,
            criterion_id=m.criterion_id,
            points=m.points,
            comment=m.comment,
            history_date=now + timedelta(minutes=30),
            history_type="~",
            history_change_reason="agreed in discussion",
        )
        for m in revised
    )
    return {
        "marks_added": len(missing),
        "history_rows": len(marks) + len(revised),
        "revised": len(revised),
    }


def contestants_add(competition, n: int, rng) -> None:
    """Give the competition n contestants with points on every criterion, and thresholds."""
    from grading.models import Contestant, ContestantPoints
    from grading.selectors import current_rubrics

    problems = list(competition.problems.order_by("number"))
    rubrics = current_rubrics(problems)
    contestants, points = [], []
    for i in range(n):
        contestant = Contestant(competition=competition, code=f"H{i:04d}", total=Decimal(0))
        total = Decimal(0)
        for problem in problems:
            for criterion in rubrics.get(problem.pk, []):
                value = Decimal(rng.randint(0, int(criterion.maximum * 2))) / 2
                total += value
                points.append((contestant, problem, criterion.code, value))
        contestant.total = total
        contestants.append(contestant)
    Contestant.objects.bulk_create(contestants)
    ContestantPoints.objects.bulk_create(
        ContestantPoints(contestant=c, problem=p, criterion_code=code, points=v)
        for c, p, code, v in points
    )
    best = max(c.total for c in contestants)
    competition.gold_threshold = best * Decimal("0.8")
    competition.silver_threshold = best * Decimal("0.65")
    competition.bronze_threshold = best * Decimal("0.5")
    competition.save()
