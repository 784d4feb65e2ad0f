"""Selecting systems for the jury (anonymized papers) and assigning jurors to papers."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from grading.errors import GradingError
from grading.models import Assignment, Mark, Paper, ProblemJuror
from grading.services import (
    jurors_assign,
    paper_code,
    papers_create,
    problem_finalize,
    problem_jurors_remove,
    problem_jurors_set,
)
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    UserFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

CODE = re.compile(r"^P\d+-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$")
SYSTEMS = ["Frontier-A", "Frontier-B", "Team Lexicon", "OpenModel-7B"]


@pytest.fixture
def competition(db):
    competition = CompetitionFactory(slug="papers")
    for number in (1, 2, 3):
        ProblemFactory(competition=competition, number=number)
    for name in [*SYSTEMS, "Baseline-echo"]:
        SystemFactory(competition=competition, name=name)
    return competition


def problem(competition, number):
    return competition.problems.get(number=number)


def group(competition, number, jurors):
    problem_jurors_set(problem=problem(competition, number), usernames=[j.username for j in jurors])


def loads(competition) -> Counter:
    return Counter(
        Assignment.objects.filter(paper__problem__competition=competition).values_list(
            "juror__username", flat=True
        )
    )


# --- papers ----------------------------------------------------------------------------------


def test_one_paper_per_problem_per_system(competition):
    papers = papers_create(competition=competition, system_names=SYSTEMS)
    assert len(papers) == 12
    pairs = Counter((p.system.name, p.problem.number) for p in Paper.objects.all())
    assert pairs == Counter({(s, n): 1 for s in SYSTEMS for n in (1, 2, 3)})
    assert not Paper.objects.filter(system__name="Baseline-echo").exists()


def test_codes_have_the_format_and_are_unique(competition):
    papers_create(competition=competition, system_names=[*SYSTEMS, "Baseline-echo"])
    codes = list(Paper.objects.values_list("code", "problem__number"))
    for code, number in codes:
        assert CODE.match(code), code
        assert code.startswith(f"P{number}-")
    assert len({c for c, _ in codes}) == len(codes)


def test_codes_do_not_reveal_the_system(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    suffixes: dict[str, set[str]] = {}
    for paper in Paper.objects.select_related("system"):
        name = paper.system.name
        assert name.upper() not in paper.code
        for word in re.split(r"[\s-]+", name):
            if len(word) >= 4:
                assert word.upper()[:4] not in paper.code, (word, paper.code)
        suffixes.setdefault(name, set()).add(paper.code.split("-", 1)[1])
    # Not derived from the system: its three papers do not share one suffix.
    assert all(len(s) > 1 for s in suffixes.values())


def test_rerunning_keeps_codes_and_creates_nothing(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    before = sorted(Paper.objects.values_list("pk", "system_id", "problem_id", "code"))
    assert papers_create(competition=competition, system_names=SYSTEMS) == []
    assert papers_create(competition=competition, system_names=SYSTEMS[:2]) == []
    assert sorted(Paper.objects.values_list("pk", "system_id", "problem_id", "code")) == before


def test_adding_a_system_later_makes_only_its_papers(competition):
    papers_create(competition=competition, system_names=SYSTEMS[:2])
    before = set(Paper.objects.values_list("code", flat=True))
    created = papers_create(competition=competition, system_names=SYSTEMS)
    assert len(created) == 6
    assert {p.system.name for p in created} == set(SYSTEMS[2:])
    assert before < set(Paper.objects.values_list("code", flat=True))


def test_names_are_trimmed_and_blanks_ignored(competition):
    papers = papers_create(competition=competition, system_names=[" Frontier-A ", "", " "])
    assert {p.system.name for p in papers} == {"Frontier-A"}


def test_unknown_system_is_refused_and_nothing_is_made(competition):
    with pytest.raises(GradingError) as caught:
        papers_create(competition=competition, system_names=["Frontier-A", "Nobody", "Other"])
    assert caught.value.field == "systems"
    assert "'Nobody'" in caught.value.message and "'Other'" in caught.value.message
    assert not Paper.objects.exists()


def test_system_of_another_competition_is_unknown(competition):
    SystemFactory(competition=CompetitionFactory(slug="elsewhere"), name="Stranger")
    with pytest.raises(GradingError):
        papers_create(competition=competition, system_names=["Stranger"])
    assert not Paper.objects.exists()


def test_no_system_named_is_refused(competition):
    with pytest.raises(GradingError) as caught:
        papers_create(competition=competition, system_names=["", " "])
    assert caught.value.field == "systems"


def test_paper_code_avoids_taken_codes(competition):
    p1 = problem(competition, 1)
    taken: set[str] = set()
    codes = [paper_code(p1, taken) for _ in range(300)]
    assert len(set(codes)) == 300
    assert taken == set(codes)
    assert all(CODE.match(c) and c.startswith("P1-") for c in codes)


# --- grading groups ----------------------------------------------------------------------------


def test_problem_jurors_set_adds_members_and_keeps_existing(competition):
    a, b = JurorFactory(), JurorFactory()
    group(competition, 1, [a])
    group(competition, 1, [b])
    group(competition, 1, [a, b])
    assert set(ProblemJuror.objects.values_list("juror__username", flat=True)) == {
        a.username,
        b.username,
    }
    assert ProblemJuror.objects.count() == 2


def test_problem_jurors_set_accepts_a_chair_who_is_a_juror(competition):
    chair = ChairFactory()
    group(competition, 2, [chair])
    assert ProblemJuror.objects.filter(juror=chair).exists()


def test_problem_jurors_set_refuses_users_outside_the_juror_group(competition):
    a = JurorFactory()
    outsider = UserFactory(roles=["organizer"])
    with pytest.raises(GradingError) as caught:
        group(competition, 1, [a, outsider])
    assert caught.value.field == "jurors"
    assert outsider.username in caught.value.message
    assert a.username not in caught.value.message
    assert not ProblemJuror.objects.exists()


@pytest.mark.parametrize("roles", [["juror", "organizer"], ["juror", "superuser"]])
def test_problem_jurors_set_refuses_jurors_who_are_organizers(competition, roles):
    a = JurorFactory()
    insider = UserFactory(roles=[r for r in roles if r != "superuser"])
    if "superuser" in roles:
        insider.is_superuser = True
        insider.save()
    with pytest.raises(GradingError) as caught:
        group(competition, 1, [a, insider])
    assert "cannot grade blind" in caught.value.message
    assert insider.username in caught.value.message
    assert a.username not in caught.value.message
    assert not ProblemJuror.objects.exists()


def test_problem_jurors_set_refuses_unknown_users(competition):
    with pytest.raises(GradingError) as caught:
        problem_jurors_set(problem=problem(competition, 1), usernames=["ghost"])
    assert "ghost" in caught.value.message
    assert not ProblemJuror.objects.exists()


# --- assignments ---------------------------------------------------------------------------------


def test_every_paper_gets_n_jurors_from_its_problems_group(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    jurors = {n: [JurorFactory() for _ in range(3)] for n in (1, 2, 3)}
    for n, members in jurors.items():
        group(competition, n, members)
    report = jurors_assign(competition=competition, per_paper=2)
    assert report.created == 24
    assert report.short == {}
    for paper in Paper.objects.prefetch_related("assignments"):
        assigned = {a.juror for a in paper.assignments.all()}
        assert len(assigned) == 2
        assert assigned <= set(jurors[paper.problem.number])


def test_load_is_balanced_within_a_group(competition):
    papers_create(competition=competition, system_names=SYSTEMS)  # 4 papers a problem
    members = [JurorFactory() for _ in range(5)]
    for n in (1, 2, 3):
        group(competition, n, members)
    report = jurors_assign(competition=competition, per_paper=2)  # 24 over 5 jurors
    load = loads(competition)
    assert sum(load.values()) == 24
    assert max(load.values()) - min(load.values()) <= 1
    assert report.load == dict(load)


def test_load_is_balanced_across_problems_with_shared_jurors(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    a, b, c, d = (JurorFactory() for _ in range(4))
    group(competition, 1, [a, b, c])
    group(competition, 2, [b, c, d])
    group(competition, 3, [c, d, a])
    jurors_assign(competition=competition, per_paper=2)  # 24 over 4 jurors: 6 each possible
    load = loads(competition)
    assert max(load.values()) - min(load.values()) <= 1, load


def test_rerunning_adds_nothing(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    for n in (1, 2, 3):
        group(competition, n, [JurorFactory() for _ in range(3)])
    jurors_assign(competition=competition, per_paper=2)
    before = sorted(Assignment.objects.values_list("pk", "paper_id", "juror_id"))
    report = jurors_assign(competition=competition, per_paper=2)
    assert report.created == 0
    assert sorted(Assignment.objects.values_list("pk", "paper_id", "juror_id")) == before


def test_raising_n_adds_only_the_missing(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    for n in (1, 2, 3):
        group(competition, n, [JurorFactory() for _ in range(3)])
    jurors_assign(competition=competition, per_paper=1)
    before = set(Assignment.objects.values_list("pk", "paper_id", "juror_id"))
    assert len(before) == 12
    report = jurors_assign(competition=competition, per_paper=2)
    assert report.created == 12
    after = set(Assignment.objects.values_list("pk", "paper_id", "juror_id"))
    assert before < after
    assert Counter(paper for _, paper, _ in after) == Counter(
        {p: 2 for p in Paper.objects.values_list("pk", flat=True)}
    )


def test_lowering_n_removes_nothing(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    for n in (1, 2, 3):
        group(competition, n, [JurorFactory() for _ in range(3)])
    jurors_assign(competition=competition, per_paper=3)
    report = jurors_assign(competition=competition, per_paper=1)
    assert report.created == 0
    assert Assignment.objects.count() == 36


def test_per_problem_override(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    for n in (1, 2, 3):
        group(competition, n, [JurorFactory() for _ in range(3)])
    jurors_assign(competition=competition, per_paper=1, per_problem={3: 3})
    per_paper = Counter(Assignment.objects.values_list("paper__problem__number", "paper__code"))
    for (number, _code), count in per_paper.items():
        assert count == (3 if number == 3 else 1)
    assert len(per_paper) == 12


def test_too_small_group_is_reported_short(competition):
    papers_create(competition=competition, system_names=SYSTEMS)
    group(competition, 1, [JurorFactory() for _ in range(3)])
    group(competition, 2, [JurorFactory()])
    group(competition, 3, [JurorFactory() for _ in range(2)])
    report = jurors_assign(competition=competition, per_paper=2)
    p2 = set(Paper.objects.filter(problem__number=2).values_list("code", flat=True))
    assert report.short == {code: 1 for code in p2}
    assert report.created == 8 + 4 + 8
    short = [line for line in report.lines() if "short" in line]
    assert short == [
        f"warning: problem 2: {len(p2)} papers short of jurors ({len(p2)} assignments "
        "missing): its group has 1 juror and each paper needs 2; add jurors to the group "
        "(set_jury_group) and assign again"
    ]


def test_shortfalls_are_one_line_a_problem_at_any_scale(competition):
    """Hundreds of short papers are still one warning for their problem."""
    from puzzles.models import System

    names = [f"Model {i:03d}" for i in range(60)]
    System.objects.bulk_create(System(competition=competition, name=n) for n in names)
    papers_create(competition=competition, system_names=names)
    group(competition, 1, [JurorFactory()])
    report = jurors_assign(competition=competition, per_paper=2)
    assert len(report.short) == 3 * 60
    warnings = [line for line in report.lines() if line.startswith("warning:")]
    assert [line.split(":")[1] for line in warnings] == [" problem 1", " problem 2", " problem 3"]
    assert {n: (s.papers, s.missing, s.group) for n, s in report.shortfalls.items()} == {
        1: (60, 60, 1),
        2: (60, 120, 0),
        3: (60, 120, 0),
    }


def test_problem_without_group_is_short_by_n(competition):
    papers_create(competition=competition, system_names=SYSTEMS[:1])
    report = jurors_assign(competition=competition, per_paper=2)
    assert report.created == 0
    assert sorted(report.short.values()) == [2, 2, 2]


def test_assigning_never_deletes_assignments_or_marks(competition):
    p1 = problem(competition, 1)
    rubric_with(p1, ("a", 2, 0.5))
    paper = PaperFactory(problem=p1, system=competition.systems.get(name="Frontier-A"))
    outsider = JurorFactory()  # graded the paper but is not in the group
    paper_graded(paper, {outsider: {"a": "1.5"}})
    members = [JurorFactory() for _ in range(3)]
    group(competition, 1, members)
    jurors_assign(competition=competition, per_paper=2)
    assert Assignment.objects.filter(paper=paper, juror=outsider, submitted_at__isnull=False)
    assert Mark.objects.get(assignment__juror=outsider).points == 1.5
    # The outsider's assignment already counts towards the two.
    assert paper.assignments.count() == 2


@pytest.mark.parametrize(("per_paper", "override"), [(0, {}), (2, {9: 1}), (2, {1: 0})])
def test_invalid_counts_are_refused(competition, per_paper, override):
    with pytest.raises(GradingError):
        jurors_assign(competition=competition, per_paper=per_paper, per_problem=override)
    assert not Assignment.objects.exists()


def test_a_finalized_problem_gets_no_new_paper_or_juror(competition):
    from tests.grading.factories import UserFactory

    UserFactory.reset_sequence(998)
    chair = ChairFactory()
    a, b, c = JurorFactory(), JurorFactory(), JurorFactory()
    one = problem(competition, 1)
    rubric_with(one, ("1a", 2, 1))
    papers_create(competition=competition, system_names=SYSTEMS[:1])
    group(competition, 1, [a, b, c])
    jurors_assign(competition=competition, per_paper=2)
    paper = Paper.objects.get(problem=one)
    # The two jurors assigned (least loaded, then by username: which two depends on the
    # factories' numbering, "juror-1000" sorting before "juror-998") grade it.
    assigned = [x.juror for x in paper.assignments.select_related("juror")]
    paper_graded(paper, {j: {"1a": "1"} for j in assigned})
    problem_finalize(problem=one, chair=chair)
    report = jurors_assign(competition=competition, per_paper=3)
    assert "problem 1 is finalized: no juror added" in report.lines()
    assert paper.assignments.count() == 2
    with pytest.raises(GradingError, match="problem 1 is finalized"):
        papers_create(competition=competition, system_names=SYSTEMS[:2])
    assert Paper.objects.count() == 3  # one paper per problem of the first system only
    papers_create(competition=competition, system_names=SYSTEMS[:1])  # nothing new: fine


def test_jurors_who_marked_nothing_leave_a_group_with_their_papers(competition):
    a, b, c = JurorFactory(), JurorFactory(), JurorFactory()
    one = problem(competition, 1)
    rubric_with(one, ("1a", 2, 1))
    papers_create(competition=competition, system_names=SYSTEMS[:2])
    group(competition, 1, [a, b, c])
    jurors_assign(competition=competition, per_paper=3)
    graded = Paper.objects.filter(problem=one).first()
    paper_graded(graded, {a: {"1a": "1"}}, submit=False)
    with pytest.raises(GradingError, match=f"{a.username} already marked papers of problem 1"):
        problem_jurors_remove(problem=one, usernames=[a.username, c.username])
    assert ProblemJuror.objects.filter(problem=one).count() == 3
    assert problem_jurors_remove(problem=one, usernames=[c.username]) == 2
    assert not Assignment.objects.filter(juror=c).exists()
    assert not ProblemJuror.objects.filter(juror=c).exists()
    with pytest.raises(GradingError, match="not in the group of problem 1"):
        problem_jurors_remove(problem=one, usernames=[c.username])
    # Re-assigning now finds the papers short of a third juror, with nobody to add.
    report = jurors_assign(competition=competition, per_paper=3)
    assert {code: n for code, n in report.short.items() if code.startswith("P1-")} == {
        p.code: 1 for p in Paper.objects.filter(problem=one)
    }
