"""The lock order of the jury's writes: stated here once, followed by every write that cites it.

1. **The problem's jury row** (`ProblemJury`) first. Every write that changes what the marks
   of a problem are, or may be, holds it until its transaction ends: exclusively (FOR UPDATE,
   `jury_lock`) for a new or replaced rubric, a submit, a revision, a chair's decision, a
   finalization or reopening, a tolerance change, a marks import, a discussion post, new
   papers (`papers_create`) and new assignments (`jurors_assign`); shared (FOR SHARE,
   `JURY_SHARE`) for the draft autosave, so that the autosaves of different jurors do not
   wait for one another but every one of them waits for, and is waited for by, the
   exclusive writes. Several problems at once: in problem number order (`juries_lock`).
2. **Then the rows the write changes**: the juror's assignment (FOR UPDATE: one juror's tabs,
   and a save racing a submit, run one after the other), then marks or decisions.

No write takes a jury row after an assignment, mark or decision row, so no two writes wait
for each other in a circle. What this guarantees: a new rubric version is made while no
autosave of its problem is under way; a save acknowledged before it is carried into the new
version; a save that waited for it reads the new version and is refused ("the rubric has
changed: reload"), so no save is acknowledged and then dropped
(tests/grading/test_rubric_version_race.py). SQLite has no row locks: there every
transaction takes the database's one write lock when it begins (`transaction_mode`
IMMEDIATE in the settings), which orders the same writes one after the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from puzzles.models import Problem

from ..models import ProblemJury

# The autosave's shared lock of the jury row of the paper with this code, added to the
# statement services/drafts.py compiles (Django's select_for_update has no FOR SHARE) where
# the database has row locks; {jury} is the jury table's quoted name.
JURY_SHARE_LOCK = " FOR SHARE OF {jury}"


def jury_lock(problem: Problem) -> ProblemJury:
    """Lock the problem's jury row until the transaction ends (creating it if need be: locking
    a row that does not exist would wait for nothing), and return it."""
    return ProblemJury.objects.select_for_update().get_or_create(problem=problem)[0]


def juries_lock(problems: Iterable[Problem]) -> list[ProblemJury]:
    """Lock the jury rows of these problems, in problem number order, and return them."""
    return [
        jury_lock(problem)
        for problem in sorted(problems, key=lambda p: (p.competition_id, p.number))
    ]
