"""select_for_jury names systems one by one (--system, --systems-file): names may hold commas."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from grading.models import Paper
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = pytest.mark.django_db

SLUG = "sel"
COMMA = "Lab, Inc. (v2)"


@pytest.fixture
def competition(db):
    competition = CompetitionFactory(slug=SLUG)
    for number in (1, 2):
        ProblemFactory(competition=competition, number=number)
    for name in (COMMA, "Plain", "Other"):
        SystemFactory(competition=competition, name=name)
    return competition


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("select_for_jury", SLUG, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _selected() -> set[str]:
    return set(Paper.objects.values_list("system__name", flat=True))


def test_a_name_with_commas_through_system(competition):
    assert _run("--system", COMMA, "--system", "Plain").strip() == "4 papers created"
    assert _selected() == {COMMA, "Plain"}


def test_a_name_with_commas_through_a_file(competition, tmp_path):
    path = tmp_path / "systems.txt"
    path.write_text(f"{COMMA}\r\n\n  \nOther\n", encoding="utf-8")
    assert _run("--systems-file", str(path)).strip() == "4 papers created"
    assert _selected() == {COMMA, "Other"}


def test_comma_separated_systems_still_work_and_combine(competition, tmp_path):
    path = tmp_path / "systems.txt"
    path.write_text(COMMA + "\n", encoding="utf-8")
    _run("--systems", "Plain,Other", "--systems-file", str(path))
    assert _selected() == {COMMA, "Plain", "Other"}


def test_the_old_flag_splits_a_comma_name_and_says_which_part_is_unknown(competition):
    with pytest.raises(CommandError) as caught:
        _run("--systems", COMMA)
    assert "unknown system(s) 'Lab', 'Inc. (v2)'" in str(caught.value)
    assert not Paper.objects.exists()


def test_no_names_missing_file_and_bad_text_are_refused(competition, tmp_path):
    with pytest.raises(CommandError) as caught:
        _run()
    assert "--system NAME, --systems-file FILE or --systems" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        _run("--systems-file", str(tmp_path / "absent.txt"))
    assert str(caught.value) == f"{tmp_path / 'absent.txt'}: no such file"
    path = tmp_path / "systems.txt"
    path.write_text("Plain\nbad\x00name\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        _run("--systems-file", str(path))
    assert str(caught.value).startswith(f"{path}, line 2: a NUL character")
    assert not Paper.objects.exists()
