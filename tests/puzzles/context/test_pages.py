"""The context lab's pages: who may see them, what they show, and a fixed query count."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest
from django.urls import reverse
from redis.exceptions import ConnectionError as RedisConnectionError

from ioleval import shared_cache
from puzzles.context.lab.analysis import Example, Question
from puzzles.context.lab.pages import PAGE_SEARCH_CAP, corpus_page, puzzle_page
from puzzles.context.lab.services import PuzzleSpec, puzzle_save
from puzzles.models import ContextPuzzle
from tests.puzzles.context.random_puzzles import random_puzzle

pytestmark = pytest.mark.django_db

CORPUS = reverse("puzzles:context_corpus")


def _page_url(slug: str) -> str:
    return reverse("puzzles:context_puzzle", args=[slug])


@pytest.fixture
def demo_puzzles(demo):
    return demo.puzzles


def _save(spec: PuzzleSpec) -> ContextPuzzle:
    return puzzle_save(spec=spec)[0]


def _text(response) -> str:
    return response.content.decode()


# --- who may see the pages -------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [CORPUS, _page_url("demo-tolmeric"), reverse("puzzles:context_corpus_export", args=["csv"])],
)
def test_organizers_see_the_pages_jurors_and_chairs_do_not(
    client, organizer, juror, chair, demo_puzzles, url
):
    client.force_login(organizer)
    assert client.get(url).status_code == 200
    for user in (juror, chair):
        client.force_login(user)
        assert client.get(url).status_code == 403
    client.logout()
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_an_unknown_puzzle_is_404(organizer_client, demo_puzzles):
    assert organizer_client.get(_page_url("nope")).status_code == 404


def test_pages_refuse_a_post(organizer_client, demo_puzzles):
    assert organizer_client.post(_page_url("demo-tolmeric")).status_code == 405


# --- what the puzzle page shows --------------------------------------------------------


def test_the_puzzle_page_shows_scores_verdict_and_heatmap(organizer_client, demo_puzzles):
    html = _text(organizer_client.get(_page_url("demo-tolmeric")))
    assert '<span class="verdict fragile">fragile</span>' in html
    assert "max D_Q = 2" in html
    # Example 6 alone holds "dorem", which questions 1.b and 1.c need (hand-computed).
    row = re.search(r'<tr id="example-6">(.*?)</tr>', html, re.S)[1]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert cells[3:7] == ["1", "<strong>2</strong>", "dorem", "1.b, 1.c"]
    assert "targeted" in cells[7].split(", ")
    # The heatmap: a row per token, a cell per example, singletons marked for every reader.
    heatmap = re.search(r'<table id="heatmap".*?</table>', html, re.S)[0]
    dorem = re.search(
        r'<tr class="single needed">\s*<th scope="row">dorem(.*?)</tr>', heatmap, re.S
    )
    assert dorem and '<span class="sr"> (singleton)</span>' in dorem[1]
    assert dorem[1].count('<td class="c on">1</td>') == 1
    assert dorem[1].count('<td class="c"></td>') == 5
    assert re.search(r'<td class="askers">1\.b 1\.c</td>', dorem[1])


def test_the_tokenizer_switch_changes_the_verdict(organizer_client, demo_puzzles):
    url = _page_url("demo-vashko")
    ours = _text(organizer_client.get(url))
    assert '<span class="verdict robust">robust</span>' in ours
    assert '<option value="normalized" selected>' in ours
    paper = _text(organizer_client.get(url, {"tokenizer": "whitespace"}))
    assert '<span class="verdict fragile">fragile</span>' in paper
    assert '<option value="whitespace" selected>' in paper
    # "Mira" (capital, ex. 1) and "mira" are two tokens when split on whitespace only.
    assert re.search(r'<th scope="row">Mira<span class="sr"> \(singleton\)', paper)


def test_a_bad_option_falls_back_to_the_default_and_says_so(organizer_client, demo_puzzles):
    response = organizer_client.get(_page_url("demo-vashko"), {"tokenizer": "bpe", "k": "99"})
    html = _text(response)
    assert response.status_code == 200
    assert "Select a valid choice" in html and "less than or equal to 4" in html
    assert "(normalized)" in html and '<span class="verdict robust">' in html


def test_greedy_against_the_optimum_and_the_search_cap(demo_puzzles):
    puzzle = ContextPuzzle.objects.get(slug="demo-tolmeric")
    page = puzzle_page(puzzle, tokenizer="normalized", k=3)
    # Hand-computed: example 6 damages 1.b and 1.c, adding 5 damages 1.a, adding 4 (murat's
    # other example) damages 2.a.
    assert [(d.k, d.greedy.deleted, d.greedy.damage) for d in page.deletions] == [
        (1, (6,), 2),
        (2, (5, 6), 3),
        (3, (4, 5, 6), 4),
    ]
    assert [d.optimum.best.damage for d in page.deletions] == [2, 3, 4]
    big = _save(random_puzzle(random.Random(3), slug="big", n_examples=40, n_questions=30))
    lines = puzzle_page(big, tokenizer="normalized", k=3).deletions
    assert [line.optimum.combinations for line in lines] == [40, 780, 9880]
    assert lines[2].optimum.skipped and 9880 > PAGE_SEARCH_CAP and lines[2].gap is None
    assert all(line.gap is not None and line.gap >= 0 for line in lines[:2])


def _deletion_rows(html: str) -> list[list[str]]:
    table = re.search(r'<table id="deletions">.*?<tbody>(.*?)</tbody>', html, re.S)[1]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
    ]


def test_an_edited_puzzle_is_never_shown_from_a_stale_cache(organizer_client):
    examples = (Example(foreign=("ka lo",)), Example(foreign=("ka mi",)))
    question = Question(id="q", direction="to_english", prompt="lo", answers=("x",))
    _save(PuzzleSpec("p", "P", "", examples, (question,)))
    html = _text(organizer_client.get(_page_url("p")))
    assert "max D_Q = 1" in html
    assert _deletion_rows(html) == [
        ["1", "1", "1", "1", "1", "0"],
        ["2", "1, 2", "1", "1, 2", "1", "0"],
    ]
    # A second example with "lo": no single deletion damages q any more, two together do.
    _save(PuzzleSpec("p", "P", "", (*examples, Example(foreign=("lo",))), (question,)))
    html = _text(organizer_client.get(_page_url("p")))
    assert "robust" in html and "max D_Q = 0" in html
    assert _deletion_rows(html) == [
        ["1", "1", "0", "1", "0", "0"],
        ["2", "1, 3", "1", "1, 3", "1", "0"],
    ]


class _DownCache:
    """A shared cache that cannot be reached: every call raises as redis-py does; with
    `reads`, reads answer (nothing cached) and only writes fail."""

    def __init__(self, *, reads: bool = False):
        self.reads = reads
        self.calls: list[str] = []

    def get(self, key, default=None):
        self.calls.append("get")
        if self.reads:
            return default
        raise RedisConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    def set(self, key, value, timeout=None):
        self.calls.append("set")
        raise RedisConnectionError("Error 111 connecting to redis:6379. Connection refused.")


@pytest.mark.parametrize("reads", [False, True])
def test_the_puzzle_page_computes_its_deletions_when_the_cache_is_down(
    organizer_client, monkeypatch, reads
):
    # Example 1 alone holds "lo", which q needs: deleting 1 damages q (D_Q = 1, 0); two
    # deletions damage q too, greedy and the optimum both take examples 1 and 2.
    examples = (Example(foreign=("ka lo",)), Example(foreign=("ka mi",)))
    question = Question(id="q", direction="to_english", prompt="lo", answers=("x",))
    _save(PuzzleSpec("p", "P", "", examples, (question,)))
    down = _DownCache(reads=reads)
    clock = [1000.0]
    monkeypatch.setattr(shared_cache, "cache", down)
    monkeypatch.setattr(shared_cache, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(shared_cache, "_down_until", {})
    response = organizer_client.get(_page_url("p"))
    assert response.status_code == 200
    assert _deletion_rows(_text(response)) == [
        ["1", "1", "1", "1", "1", "0"],
        ["2", "1, 2", "1", "1, 2", "1", "0"],
    ]
    # Unreachable for reads: computed here, and no write tried (it would wait a timeout).
    first = ["get", "set"] if reads else ["get"]
    assert down.calls == first
    # For RETRY_SECONDS the cache is left alone: the export (the same page) asks nothing of
    # it and reads the comparison kept in this process's memory; after that, it is asked
    # again.
    export = reverse("puzzles:context_puzzle_export", args=["p", "deletions", "csv"])
    clock[0] += shared_cache.RETRY_SECONDS - 1
    assert organizer_client.get(export).status_code == 200
    assert down.calls == first
    clock[0] += 2
    assert organizer_client.get(_page_url("p")).status_code == 200
    assert down.calls == first * 2


@pytest.mark.parametrize("size", [(6, 3), (40, 30)])
def test_the_puzzle_page_runs_a_fixed_number_of_queries(
    organizer_client, django_assert_max_num_queries, size
):
    n_examples, n_questions = size
    spec = random_puzzle(
        random.Random(n_examples), slug="sized", n_examples=n_examples, n_questions=n_questions
    )
    _save(spec)
    organizer_client.get(_page_url("sized"))  # the session and the user's roles, once
    with django_assert_max_num_queries(6):
        response = organizer_client.get(_page_url("sized"), {"k": "2"})
    assert response.status_code == 200
    assert _text(response).count('<th scope="row">') == len(
        puzzle_page(ContextPuzzle.objects.get(slug="sized"), tokenizer="normalized", k=1).tokens
    )


# --- the corpus page -------------------------------------------------------------------


def test_the_corpus_counts_and_links_every_puzzle(organizer_client, demo_puzzles):
    html = _text(organizer_client.get(CORPUS))
    assert "3 puzzles:" in html
    assert '<span class="verdict fragile">2 fragile</span>' in html
    assert '<span class="verdict robust">1 robust</span>' in html
    for slug in ("demo-tolmeric", "demo-vashko", "demo-ubrenti"):
        assert f'href="{_page_url(slug)}?tokenizer=normalized"' in html
    assert "max D_Q 0: 1 · max D_Q 1: 1 · max D_Q 2: 1" in html
    svg = re.search(r"<svg.*?</svg>", html, re.S)[0]
    assert 'role="img"' in svg and "<title>Puzzles by max D_Q (normalized tokens)</title>" in svg
    paper = _text(organizer_client.get(CORPUS, {"tokenizer": "whitespace"}))
    assert '<span class="verdict fragile">3 fragile</span>' in paper


def test_the_corpus_reads_in_three_queries_whatever_its_size(django_assert_num_queries):
    rng = random.Random(5)
    for k in range(12):
        _save(random_puzzle(rng, slug=f"r{k}"))
    with django_assert_num_queries(3):
        page = corpus_page(tokenizer="normalized", chart=False)
    assert len(page.lines) == 12
    assert page.fragile_count + page.robust_count == 12
    assert sum(count for _, count in page.max_dq_counts) == 12


def test_an_empty_corpus_says_so(organizer_client):
    html = _text(organizer_client.get(CORPUS))
    assert "No puzzles yet" in html and "No puzzles</text>" in html
