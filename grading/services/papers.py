"""Selecting systems for the jury (one anonymized paper per problem) and assigning jurors."""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from ioleval.roles import JUROR, ORGANIZER, user_roles
from puzzles.models import Competition, Problem, System

from ..errors import GradingError
from ..models import Assignment, Paper, ProblemJuror
from ..selectors import NotBlind, not_blind
from .blindness import pairs_seen_confirm
from .consensus import finalized_error, problem_ensure_open
from .locks import juries_lock

# No 0/O, 1/I/L: codes are read aloud and copied by hand.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 4


def codes_taken(problem: Problem) -> set[str]:
    """Return the codes in use with this problem's prefix (codes are unique everywhere)."""
    return set(
        Paper.objects.filter(code__startswith=f"P{problem.number}-").values_list("code", flat=True)
    )


def paper_code(problem: Problem, taken: set[str]) -> str:
    """Return a random code like P3-7KQ2 that is not in `taken` (and add it there)."""
    while True:
        code = f"P{problem.number}-" + "".join(
            secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)
        )
        if code not in taken:
            taken.add(code)
            return code


@transaction.atomic
def papers_create(*, competition: Competition, system_names: list[str]) -> list[Paper]:
    """Give each named system one paper per problem; existing papers and codes are kept."""
    names = [n.strip() for n in system_names if n.strip()]
    if not names:
        raise GradingError("name at least one system", field="systems")
    systems = {s.name: s for s in System.objects.filter(competition=competition, name__in=names)}
    unknown = [n for n in names if n not in systems]
    if unknown:
        raise GradingError(
            f"unknown system(s) {', '.join(repr(n) for n in unknown)} in {competition.slug}",
            field="systems",
        )
    problems = list(competition.problems.order_by("number"))
    if not problems:
        raise GradingError(f"{competition.slug} has no problems", field="systems")
    # The jury rows of the problems that get a paper, in number order, before the check
    # (grading/services/locks.py): a finalization under way, which counted the papers, ends
    # first and this is refused, or waits for this.
    touched = [p for p in problems if _systems_without_paper(p, systems)]
    for jury in juries_lock(touched):
        if jury.finalized_at is not None:  # a new paper would change its totals
            raise finalized_error(jury.problem.number, field="systems")
    created: list[Paper] = []
    for problem in touched:
        taken = codes_taken(problem)
        # Read again under the lock: a selection of the same system just before has its paper.
        pending = _systems_without_paper(problem, systems)
        # Shuffle so that creation order (and database ids) do not follow the given order.
        secrets.SystemRandom().shuffle(pending)
        for system in pending:
            created.append(
                Paper.objects.create(
                    system=system, problem=problem, code=paper_code(problem, taken)
                )
            )
    return created


def _systems_without_paper(problem: Problem, systems: dict[str, System]) -> list[System]:
    have = set(
        Paper.objects.filter(problem=problem, system__in=systems.values()).values_list(
            "system_id", flat=True
        )
    )
    return [s for s in systems.values() if s.pk not in have]


@transaction.atomic
def problem_jurors_set(
    *, problem: Problem, usernames: list[str], allow_seen: bool = False, confirmed_by=None
) -> list[ProblemJuror]:
    """Add jurors to a problem's grading group (existing members stay).

    A juror not blind for the competition joins only on the organizer's confirmation
    (`allow_seen`, recorded; `confirmed_by` None: the command line), as in jurors_assign.
    """
    User = get_user_model()
    users = {u.username: u for u in User.objects.filter(username__in=usernames)}
    unknown = [u for u in usernames if u not in users]
    if unknown:
        raise GradingError(f"unknown user(s) {', '.join(unknown)}", field="jurors")
    not_jurors = sorted(n for n, u in users.items() if JUROR not in user_roles(u))
    if not_jurors:
        raise GradingError(f"not in the juror group: {', '.join(not_jurors)}", field="jurors")
    # Organizers see system names on the leaderboard and the jury pages: they cannot grade
    # blind, whatever else they hold.
    organizers = sorted(n for n, u in users.items() if ORGANIZER in user_roles(u))
    if organizers:
        raise GradingError(
            f"organizer accounts see system names and cannot grade blind: {', '.join(organizers)}"
            " (give them a separate juror account)",
            field="jurors",
        )
    members = set(
        ProblemJuror.objects.filter(problem=problem, juror__in=users.values()).values_list(
            "juror_id", flat=True
        )
    )
    joining = [u for u in users.values() if u.pk not in members]
    found = not_blind(problem.competition, [u.pk for u in joining]) if joining else []
    if found and not allow_seen:
        raise not_blind_error(found, problem.competition, field="allow_seen")
    if found:
        names = {n.username for n in found}
        pairs_seen_confirm(
            users=[u for u in joining if u.username in names],
            competition=problem.competition,
            by=confirmed_by,
        )
    return [ProblemJuror.objects.get_or_create(problem=problem, juror=u)[0] for u in users.values()]


@transaction.atomic
def problem_jurors_remove(*, problem: Problem, usernames: list[str]) -> int:
    """Take jurors out of a problem's grading group, with their unmarked papers of it.

    A juror who has marked or submitted a paper of the problem stays: those marks count.
    Returns how many assignments went.
    """
    problem_ensure_open(problem, field="jurors", lock=True)  # grading/services/locks.py
    members = ProblemJuror.objects.filter(problem=problem, juror__username__in=usernames)
    found = set(members.values_list("juror__username", flat=True))
    strangers = [u for u in usernames if u not in found]
    if strangers:
        raise GradingError(
            f"not in the group of problem {problem.number}: {', '.join(strangers)}",
            field="jurors",
        )
    papers = Assignment.objects.filter(paper__problem=problem, juror__username__in=usernames)
    # Lock them as an autosave does: a save under way finishes first, and its mark counts.
    list(papers.select_for_update(of=("self",)).values_list("pk", flat=True))
    graded = sorted(
        set(
            papers.filter(Assignment.submitted_q() | Q(marks__isnull=False)).values_list(
                "juror__username", flat=True
            )
        )
    )
    if graded:
        raise GradingError(
            f"{', '.join(graded)} already marked papers of problem {problem.number}; their"
            " marks count, so they stay in its group",
            field="jurors",
        )
    _, removed = papers.delete()
    members.delete()
    return removed.get(Assignment._meta.label, 0)


@dataclass
class Shortfall:
    """A problem whose group is too small for the jurors each paper needs."""

    problem: int
    group: int  # jurors in the problem's group
    need: int  # jurors each paper needs
    papers: int = 0  # papers still short of jurors
    missing: int = 0  # jurors missing over those papers

    def line(self) -> str:
        papers = f"{self.papers} paper{'s' if self.papers != 1 else ''}"
        jurors = f"{self.missing} assignment{'s' if self.missing != 1 else ''}"
        group = f"{self.group} juror{'s' if self.group != 1 else ''}"
        return (
            f"warning: problem {self.problem}: {papers} short of jurors ({jurors} missing): "
            f"its group has {group} and each paper needs {self.need}; "
            "add jurors to the group (set_jury_group) and assign again"
        )


@dataclass
class AssignmentReport:
    created: int = 0
    short: dict[str, int] = field(default_factory=dict)  # paper code -> jurors still missing
    load: dict[str, int] = field(default_factory=dict)  # juror -> papers
    finalized: list[int] = field(default_factory=list)  # problems left as they are
    shortfalls: dict[int, Shortfall] = field(default_factory=dict)  # problem number -> ...
    confirmed: list[NotBlind] = field(default_factory=list)  # not blind, assigned on confirmation

    def lines(self) -> list[str]:
        """What a person reads: one line a juror, a finalized problem, a short problem."""
        out = [f"{self.created} assignments created"]
        out += [f"{u}: {n} papers" for u, n in sorted(self.load.items())]
        out += [
            f"{n.username} is not blind ({n.reason}): assigned on the organizer's confirmation"
            for n in self.confirmed
        ]
        out += [f"problem {n} is finalized: no juror added" for n in self.finalized]
        out += [s.line() for _, s in sorted(self.shortfalls.items())]
        return out


def not_blind_error(found: list[NotBlind], competition: Competition, *, field: str) -> GradingError:
    """Return the refusal to give papers of a competition to users not blind for it."""
    return GradingError(
        f"not blind for {competition.slug}: {'; '.join(n.text for n in found)}. Giving them"
        f" papers of {competition.slug} takes the organizer's confirmation (the box"
        " 'not blind' on the jury page, --allow-seen on the command line), or leave them out",
        field=field,
    )


@transaction.atomic
def jurors_assign(
    *,
    competition: Competition,
    per_paper: int,
    per_problem: dict[int, int] | None = None,
    allow_seen: bool = False,
    confirmed_by=None,
) -> AssignmentReport:
    """Give every paper at least N jurors of its problem's group, least-loaded first.

    Re-running adds only what is missing and never removes an assignment or a mark. A juror
    not blind for the competition (grading.selectors.blind) gets no paper of it unless the organizer
    confirms (`allow_seen`; `confirmed_by` None: the command line), and the confirmation is
    recorded; otherwise nothing is assigned and the error names them.
    """
    if per_paper < 1:
        raise GradingError("per-paper must be at least 1", field="per_paper")
    per_problem = per_problem or {}
    numbers = set(competition.problems.values_list("number", flat=True))
    for number, n in per_problem.items():
        if number not in numbers:
            raise GradingError(f"no problem {number} in {competition.slug}", field="problem")
        if n < 1:
            raise GradingError(f"problem {number}: at least 1 juror per paper", field="problem")
    report = AssignmentReport()
    load = Counter(
        Assignment.objects.filter(paper__problem__competition=competition).values_list(
            "juror__username", flat=True
        )
    )
    groups: dict[int, list] = {}
    on_paper: dict[int, set[int]] = {}
    planned: list[list] = []  # [paper, juror] pairs to create
    # The jury rows of the problems that may get a juror (those with papers), in number
    # order, before reading which are finalized (grading/services/locks.py): a finalization
    # under way ends first and its problem is left out, or waits for this.
    juries = juries_lock(
        competition.problems.filter(
            pk__in=Paper.objects.filter(problem__competition=competition).values("problem_id")
        )
    )
    finalized = {jury.problem_id for jury in juries if jury.finalized_at is not None}
    for problem in competition.problems.order_by("number"):
        if problem.pk in finalized:
            report.finalized.append(problem.number)  # its results stand: no new juror
            continue
        need = per_problem.get(problem.number, per_paper)
        groups[problem.pk] = [
            m.juror
            for m in ProblemJuror.objects.filter(problem=problem)
            .select_related("juror")
            .order_by("juror__username")
        ]
        papers = (
            Paper.objects.filter(problem=problem).prefetch_related("assignments").order_by("code")
        )
        for paper in papers:
            on_paper[paper.pk] = {a.juror_id for a in paper.assignments.all()}
            candidates = sorted(
                (u for u in groups[problem.pk] if u.pk not in on_paper[paper.pk]),
                key=lambda u: (load[u.username], u.username),
            )
            missing = max(0, need - len(on_paper[paper.pk]))
            for juror in candidates[:missing]:
                planned.append([paper, juror])
                on_paper[paper.pk].add(juror.pk)
                load[juror.username] += 1
            if missing > len(candidates):
                report.short[paper.code] = missing - len(candidates)
                shortfall = report.shortfalls.setdefault(
                    problem.number, Shortfall(problem.number, len(groups[problem.pk]), need)
                )
                shortfall.papers += 1
                shortfall.missing += missing - len(candidates)
    _rebalance(planned, groups, on_paper, load)
    receiving = {juror.pk: juror for _, juror in planned}
    found = not_blind(competition, receiving) if receiving else []
    if found and not allow_seen:
        raise not_blind_error(found, competition, field="allow_seen")
    if found:
        names = {n.username for n in found}
        pairs_seen_confirm(
            users=[u for u in receiving.values() if u.username in names],
            competition=competition,
            by=confirmed_by,
        )
        report.confirmed = found
    Assignment.objects.bulk_create(Assignment(paper=p, juror=j) for p, j in planned)
    report.created = len(planned)
    report.load = dict(load)
    return report


def _rebalance(planned: list[list], groups: dict, on_paper: dict, load: Counter) -> None:
    """Move new assignments from heavily to lightly loaded jurors of the same group.

    Greedy assignment problem by problem can leave jurors shared by several groups
    overloaded; moving one new assignment at a time while it narrows the gap by 2
    or more settles that. Existing assignments never move.
    """
    for _ in range(len(planned) * 4):
        moved = False
        for pair in sorted(planned, key=lambda pr: -load[pr[1].username]):
            paper, juror = pair
            better = min(
                (
                    u
                    for u in groups[paper.problem_id]
                    if u.pk not in on_paper[paper.pk]
                    and load[u.username] <= load[juror.username] - 2
                ),
                key=lambda u: (load[u.username], u.username),
                default=None,
            )
            if better is not None:
                on_paper[paper.pk].discard(juror.pk)
                on_paper[paper.pk].add(better.pk)
                load[juror.username] -= 1
                load[better.username] += 1
                pair[1] = better
                moved = True
                break
        if not moved:
            return
