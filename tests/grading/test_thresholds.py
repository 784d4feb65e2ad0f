"""Medal thresholds through `set_thresholds`: values saved, bad ladders refused, nothing saved.

The thresholds are points of the jury's scale (grading.scale); here an organizer set it to
100, test_scale.py has the rubrics' sum."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from puzzles.models import Competition
from tests.grading.factories import rubric_with
from tests.puzzles.factories import CompetitionFactory, ProblemFactory

SLUG = "medals"


@pytest.fixture
def competition(db) -> Competition:
    """A competition out of 100 points (set by an organizer) with thresholds already set."""
    return CompetitionFactory(
        slug=SLUG,
        jury_scale=Decimal("100"),
        gold_threshold=Decimal("80"),
        silver_threshold=Decimal("60"),
        bronze_threshold=Decimal("40"),
        honourable_mention_threshold=Decimal("20"),
    )


def _set(*args: str, slug: str = SLUG) -> str:
    out = StringIO()
    call_command("set_thresholds", slug, *args, stdout=out)
    return out.getvalue()


def _thresholds(slug: str = SLUG) -> tuple:
    c = Competition.objects.get(slug=slug)
    return (
        c.gold_threshold,
        c.silver_threshold,
        c.bronze_threshold,
        c.honourable_mention_threshold,
    )


def test_sets_all_four_thresholds(competition):
    out = _set("--gold", "75.5", "--silver", "55", "--bronze", "35", "--honourable-mention", "15")
    assert _thresholds() == (Decimal("75.5"), Decimal("55"), Decimal("35"), Decimal("15"))
    assert out.strip() == (
        f"{SLUG}: gold 75.5, silver 55, bronze 35, honourable mention 15; the jury's scale is "
        "100 (set by an organizer)"
    )


def test_gold_and_silver_only(db):
    CompetitionFactory(slug="fresh", jury_scale=Decimal("100"))
    _set("--gold", "90", "--silver", "70", slug="fresh")
    assert _thresholds("fresh") == (Decimal("90"), Decimal("70"), None, None)


def test_bounds_are_inclusive(competition):
    _set("--gold", "100", "--silver", "0")
    assert _thresholds()[:2] == (Decimal("100"), Decimal("0"))


def test_range_follows_the_jurys_scale(db):
    # A jury out of 30 points, as the demo's: three rubrics of 10, and no scale set.
    competition = CompetitionFactory(slug="demo")
    for number in (1, 2, 3):
        problem = ProblemFactory(competition=competition, number=number)
        rubric_with(problem, (f"{number}a", 4, 1), (f"{number}b", 6, "0.5"))
    _set("--gold", "30", "--silver", "15", slug="demo")
    with pytest.raises(
        CommandError,
        match=r"gold threshold 31 is outside 0\.\.30, the jury's scale \(the sum of the rubrics",
    ):
        _set("--gold", "31", "--silver", "15", slug="demo")
    assert _thresholds("demo")[:2] == (Decimal("30"), Decimal("15"))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(
            ["--gold", "50", "--silver", "60"],
            "silver threshold 60 is above gold threshold 50",
            id="silver-above-gold",
        ),
        pytest.param(
            ["--gold", "80", "--silver", "60", "--bronze", "61"],
            "bronze threshold 61 is above silver threshold 60",
            id="bronze-above-silver",
        ),
        pytest.param(
            ["--gold", "80", "--silver", "60", "--bronze", "40", "--honourable-mention", "45"],
            "honourable mention threshold 45 is above bronze threshold 40",
            id="mention-above-bronze",
        ),
        pytest.param(
            ["--gold", "80", "--silver", "60", "--honourable-mention", "70"],
            "honourable mention threshold 70 is above silver threshold 60",
            id="mention-above-silver-without-bronze",
        ),
        pytest.param(
            ["--gold", "101", "--silver", "60"],
            "gold threshold 101 is outside 0..100",
            id="gold-above-total",
        ),
        pytest.param(
            ["--gold", "80", "--silver", "-1"],
            "silver threshold -1 is outside 0..100",
            id="silver-negative",
        ),
        pytest.param(
            ["--gold", "80", "--silver", "60", "--bronze", "40", "--honourable-mention", "-0.5"],
            "honourable mention threshold -0.5 is outside 0..100",
            id="mention-negative",
        ),
        pytest.param(
            ["--gold", "Infinity", "--silver", "60"],
            "'Infinity' is not a number of points",
            id="gold-infinite",
        ),
    ],
)
def test_bad_ladders_are_refused_and_nothing_is_saved(competition, args, words):
    before = _thresholds()
    with pytest.raises(CommandError) as exc:
        _set(*args)
    assert words in str(exc.value)
    assert _thresholds() == before


def _refused(*args: str) -> CommandError:
    """Run the command and return its CommandError; fail clearly on anything else."""
    try:
        _set(*args)
    except CommandError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - the point is which exception escapes
        pytest.fail(
            f"set_thresholds {' '.join(args)} raised {type(exc).__name__}, not CommandError"
        )
    pytest.fail(f"set_thresholds {' '.join(args)} was accepted")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--gold", "NaN", "--silver", "60"], id="gold-nan"),
        pytest.param(["--gold", "80", "--silver", "60", "--bronze", "nan"], id="bronze-nan"),
    ],
)
def test_not_a_number_is_refused_as_out_of_range(competition, args):
    # Decimal accepts "NaN", and comparing it raises decimal.InvalidOperation; the command
    # must turn it into a CommandError like any other threshold outside 0..total.
    before = _thresholds()
    _refused(*args)
    assert _thresholds() == before


def test_more_decimals_than_stored_are_not_silently_changed(competition):
    # Thresholds are stored with two decimals. A third one must be refused, or kept, but not
    # silently rounded away while the command echoes the unrounded value.
    before = _thresholds()
    try:
        out = _set("--gold", "12.345", "--silver", "10")
    except CommandError:
        assert _thresholds() == before
        return
    stored = _thresholds()[0]
    assert stored == Decimal("12.345"), f"printed {out.strip()!r} but stored gold {stored}"


def test_not_a_decimal_is_refused_by_the_parser(competition):
    # argparse only turns ValueError/TypeError into a usage error, and Decimal("lots")
    # raises decimal.InvalidOperation.
    before = _thresholds()
    exc = _refused("--gold", "lots", "--silver", "60")
    assert "--gold" in str(exc)
    assert _thresholds() == before


def test_silver_is_required(competition):
    with pytest.raises(CommandError, match="--silver"):
        _set("--gold", "80")


def test_unknown_competition(competition):
    with pytest.raises(CommandError, match=f"unknown competition 'nope' \\(known: .*{SLUG}"):
        _set("--gold", "80", "--silver", "60", slug="nope")
