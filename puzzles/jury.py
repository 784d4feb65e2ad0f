"""What the automatic side asks of the jury, without importing it.

`puzzles` comes first and never imports `grading`; where a puzzles page needs the jury's
state, it asks here, and `grading` answers: its AppConfig registers its own functions at
start-up (`grading.apps.GradingConfig.ready`). Without a jury app installed, the answers are
those of a competition no jury grades."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser

from .errors import ImportFailure
from .models import Competition


def _nothing_graded(competition: Competition) -> bool:
    return False


_still_grading: Callable[[Competition], bool] = _nothing_graded


def register(*, still_grading: Callable[[Competition], bool]) -> None:
    """Called by the jury app: how to tell whether its jury still grades a competition."""
    global _still_grading
    _still_grading = still_grading


def jury_still_grading(competition: Competition) -> bool:
    """Whether a problem given to the jury is not finalized yet."""
    return _still_grading(competition)


def _none_finalized(competition: Competition) -> set[int]:
    return set()


_finalized: Callable[[Competition], set[int]] = _none_finalized


def register_finalized(*, finalized: Callable[[Competition], set[int]]) -> None:
    """Called by the jury app: how to tell which problems' jury results are finalized."""
    global _finalized
    _finalized = finalized


def finalized_amendment_note(problem: int) -> str:
    """Say what an answer-key change does to a problem whose jury results are finalized."""
    return (
        f"Problem {problem} is finalized: changing its key rescores the automatic scores only"
        " (exact match, chrF, the leaderboard and the review's automatic figures); the jury's"
        " marks and final marks stand, and the problem stays finalized."
    )


def problems_finalized(competition: Competition) -> set[int]:
    """Return the ids of the competition's problems whose jury results the chair finalized:
    an answer-key change there rescores the automatic scores only, the jury's finals stand."""
    return _finalized(competition)


# --- jurors' proposed alternatives for the answer key -------------------------------------


@dataclass(frozen=True)
class PendingProposal:
    """A juror's proposed alternative awaiting an organizer, as the answer-key page lists it."""

    id: int
    task: str  # the task's external id
    item_number: int
    answer: str
    reason: str
    proposed_by: str  # the juror's name: organizers see who proposed
    created_at: datetime
    problem: int = 0  # the task's problem number
    finalized: bool = False  # the jury finalized that problem: accepting leaves its finals

    @property
    def finalized_note(self) -> str:
        """What accepting it does to the jury's results ("" unless its problem is final)."""
        return finalized_amendment_note(self.problem) if self.finalized else ""


def _no_proposals(competition: Competition) -> list[PendingProposal]:
    return []


def _no_jury(**kwargs) -> str:
    raise ImportFailure("no jury app answers for proposals", field="proposal")


_pending: Callable[[Competition], list[PendingProposal]] = _no_proposals
_accept: Callable[..., list[str]] = _no_jury
_reject: Callable[..., str] = _no_jury


def register_proposals(
    *,
    pending: Callable[[Competition], list[PendingProposal]],
    accept: Callable[..., list[str]],
    reject: Callable[..., str],
) -> None:
    """Called by the jury app: how to list, accept and reject its jurors' proposals."""
    global _pending, _accept, _reject
    _pending, _accept, _reject = pending, accept, reject


def proposals_pending(competition: Competition) -> list[PendingProposal]:
    """Return the competition's proposals no organizer has decided yet."""
    return _pending(competition)


def proposal_accept(
    *, competition: Competition, proposal_id: int, user: AbstractBaseUser
) -> list[str]:
    """Accept a proposal through the answer-key amendment; return its report lines.

    Raises an AppError (nothing changed) when the proposal cannot be accepted."""
    return _accept(competition=competition, proposal_id=proposal_id, user=user)


def proposal_reject(
    *, competition: Competition, proposal_id: int, user: AbstractBaseUser, reason: str
) -> str:
    """Reject a proposal with a reason; return the message. Raises an AppError on refusal."""
    return _reject(competition=competition, proposal_id=proposal_id, user=user, reason=reason)


# --- the jury's scale and the medal thresholds on it ---------------------------------------


@dataclass(frozen=True)
class ScaleStatus:
    """The jury's scale as a puzzles page shows it (grading.scale holds the rule)."""

    points: Decimal | None  # what totals and thresholds are out of; None: no scale yet
    explicit: bool  # set by an organizer (else the sum of the rubrics' maxima)
    text: str  # "75 (the sum of the rubrics' maxima)"
    thresholds_text: str  # "gold 60, silver 45, bronze —, honourable mention —"
    warnings: tuple[str, ...]  # what is wrong with the scale or the thresholds, and the fix
    # the medals (gold, silver, bronze, honourable_mention) whose threshold is above the
    # scale: no medal is given by it, and the page says "not applied" beside it
    not_applied: tuple[str, ...] = ()

    @property
    def points_text(self) -> str:
        """Return the points as written by hand (75, not 75.00); "" without a scale."""
        return "" if self.points is None else format(self.points.normalize(), "f")


def _no_scale(competition: Competition) -> ScaleStatus:
    return ScaleStatus(
        points=None,
        explicit=False,
        text="not known (no jury app)",
        thresholds_text="",
        warnings=(),
    )


_scale: Callable[[Competition], ScaleStatus] = _no_scale
_set_thresholds: Callable[..., ScaleStatus] = _no_jury
_set_scale: Callable[..., list[str]] = _no_jury


def register_scale(
    *,
    scale: Callable[[Competition], ScaleStatus],
    set_thresholds: Callable[..., ScaleStatus],
    set_scale: Callable[..., list[str]],
) -> None:
    """Called by the jury app: how to tell and set the jury's scale and the thresholds on it."""
    global _scale, _set_thresholds, _set_scale
    _scale, _set_thresholds, _set_scale = scale, set_thresholds, set_scale


def jury_scale(competition: Competition) -> ScaleStatus:
    """Return the jury's scale of a competition, with its thresholds and what is wrong."""
    return _scale(competition)


def thresholds_set(
    *,
    competition: Competition,
    gold: Decimal | None,
    silver: Decimal | None,
    bronze: Decimal | None = None,
    honourable_mention: Decimal | None = None,
) -> ScaleStatus:
    """Set the medal thresholds on the jury's scale; AppError (nothing saved) if they leave it."""
    return _set_thresholds(
        competition=competition,
        gold=gold,
        silver=silver,
        bronze=bronze,
        honourable_mention=honourable_mention,
    )


def scale_set(*, competition: Competition, points: Decimal | None) -> list[str]:
    """Set the jury's scale (None: the sum of the rubrics); return what changed. AppError if
    a threshold would be above it."""
    return _set_scale(competition=competition, points=points)
