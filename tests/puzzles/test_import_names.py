"""import_iolai names things: the competition, each problem's title and language name.

A re-import fills names that are empty and keeps every name an organizer gave.
"""

from __future__ import annotations

import csv
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from puzzles.models import Competition, Problem

pytestmark = pytest.mark.django_db

REAL_TITLES = {
    1: "Central Alaskan Yup'ik",
    2: "Yélî Dnye",
    3: "Iquito",
    4: "Sakurabiat",
    5: "Komnzo",
}
REAL_LABELS = {
    1: "Central Yupik (esu)",
    2: "Yele (yle)",
    3: "Iquito (iqu)",
    4: "Sakirabiá (skf)",
    5: "Komnzo (mis)",
}


def _import(directory: Path, slug: str, *options: str) -> None:
    call_command("import_iolai", str(directory), "--slug", slug, *options, stdout=StringIO())


@pytest.fixture
def real_tasks(iolai_dir, tmp_path) -> Path:
    """The real tasks and keys without the submissions (read at run time, never committed)."""
    shutil.copytree(iolai_dir / "task", tmp_path / "real" / "task")
    return tmp_path / "real"


def _problems(slug: str) -> dict[int, Problem]:
    return {p.number: p for p in Problem.objects.filter(competition__slug=slug)}


def test_real_data_gives_a_readable_name_titles_and_languages(real_tasks):
    _import(real_tasks, "iolai-2026")
    assert Competition.objects.get(slug="iolai-2026").name == "IOL-AI 2026"
    problems = _problems("iolai-2026")
    assert {n: p.title for n, p in problems.items()} == REAL_TITLES
    assert {n: p.language_label for n, p in problems.items()} == REAL_LABELS
    # Coded languages keep the ISO name; only the uncoded one needs the data's name.
    assert {n: p.language_name for n, p in problems.items()} == {
        1: "",
        2: "",
        3: "",
        4: "",
        5: "Komnzo",
    }
    assert problems[1].language == "esu_Latn"


def test_reimport_keeps_names_organizers_edited_and_fills_empty_ones(real_tasks):
    _import(real_tasks, "iolai-2026")
    Competition.objects.filter(slug="iolai-2026").update(name="IOL 2026 AI track")
    Problem.objects.filter(number=1).update(title="Yup'ik phonetics")
    Problem.objects.filter(number=5).update(language_name="Komnzo (Wára)")
    Problem.objects.filter(number=3).update(title="")
    _import(real_tasks, "iolai-2026")
    problems = _problems("iolai-2026")
    assert Competition.objects.get(slug="iolai-2026").name == "IOL 2026 AI track"
    assert problems[1].title == "Yup'ik phonetics"
    assert problems[5].language_label == "Komnzo (Wára) (mis)"
    assert problems[3].title == "Iquito"  # emptied: filled again from the data
    assert problems[2].title == "Yélî Dnye"


def test_explicit_name_replaces_the_old_one(real_tasks):
    _import(real_tasks, "iolai-2026")
    _import(real_tasks, "iolai-2026", "--name", "IOL-AI 2026 (rerun)")
    assert Competition.objects.get(slug="iolai-2026").name == "IOL-AI 2026 (rerun)"


def test_competition_named_after_its_slug_by_an_old_import_gets_the_readable_name(real_tasks):
    Competition.objects.create(slug="iolai-2026", name="iolai-2026", year=2026)
    _import(real_tasks, "iolai-2026")
    assert Competition.objects.get(slug="iolai-2026").name == "IOL-AI 2026"


# --- own small layouts: the fallbacks -------------------------------------------------------


def _layout(root: Path, rows: list[tuple[str, str, str]]) -> Path:
    """Write task/test.csv and task/solution.csv: one task per (id, context, task_lang)."""
    (root / "task").mkdir(parents=True)
    with (root / "task" / "test.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["id", "context", "query", "work_lang", "task_lang", "task_type", "eval_type"]
        )
        for task_id, context, task_lang in rows:
            writer.writerow(
                [
                    task_id,
                    context,
                    "Translate:\n1. sorel",
                    "eng_Latn",
                    task_lang,
                    "translation",
                    "single",
                ]
            )
    with (root / "task" / "solution.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "answer", "split", "points"])
        for task_id, _context, _lang in rows:
            writer.writerow([task_id, '["house"]', "public", "1"])
    return root


def test_without_a_name_in_the_data_the_title_is_the_iso_name_or_empty(tmp_path):
    root = _layout(
        tmp_path / "own",
        [
            ("12031010100", "1. sorel: house", "['esu_Latn']"),
            ("12031020100", "1. sorel: house", "['mis_Latn']"),
            ("12031030100", "Here are some words in English:\n1. sorel", "['qaa_Latn']"),
        ],
    )
    _import(root, "own")
    assert Competition.objects.get(slug="own").name == "IOL-AI 2031"
    problems = _problems("own")
    assert problems[1].title == "Central Yupik"
    assert problems[1].language_label == "Central Yupik (esu)"
    # Uncoded or local codes without a name in the data: organizers name them.
    assert (problems[2].title, problems[2].language_label) == ("", "mis")
    assert (problems[3].title, problems[3].language_label) == ("", "qaa")


def test_name_in_the_data_of_an_uncoded_language_becomes_its_display_name(tmp_path):
    root = _layout(
        tmp_path / "own",
        [
            (
                "12031010100",
                "Here are some sentences in English and their Velmari translations:",
                "['mis_Latn']",
            )
        ],
    )
    _import(root, "own", "--name", "Own round")
    problem = _problems("own")[1]
    assert (problem.title, problem.language_label) == ("Velmari", "Velmari (mis)")
    assert Competition.objects.get(slug="own").name == "Own round"
