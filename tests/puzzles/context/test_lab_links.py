"""Every page of the context lab links to the lab's other pages (issue 19, section 7): the
results and judges pages were reachable only by typing their address."""

from __future__ import annotations

import pytest
from django.urls import reverse
from lxml import html

pytestmark = pytest.mark.django_db

CORPUS = reverse("puzzles:context_corpus")
RESULTS = reverse("puzzles:context_results")
JUDGES = reverse("puzzles:context_judges")
PUZZLE = reverse("puzzles:context_puzzle", args=["demo-vashko"])


def _lab_links(response) -> dict[str, str | None]:
    """Return the lab navigation's links: path -> its aria-current (None if not current)."""
    tree = html.fromstring(response.content.decode())
    navs = tree.xpath('//main//nav[@aria-label="Context lab"]')
    assert len(navs) == 1, "one navigation of the lab in the page's content"
    return {a.get("href").split("?")[0]: a.get("aria-current") for a in navs[0].iter("a")}


@pytest.mark.parametrize(
    ("url", "current"),
    [(CORPUS, CORPUS), (PUZZLE, None), (RESULTS, RESULTS), (JUDGES, JUDGES)],
)
def test_every_lab_page_links_the_corpus_the_results_and_the_judges(
    demo, organizer_client, url, current
):
    response = organizer_client.get(url)
    assert response.status_code == 200
    links = _lab_links(response)
    assert set(links) == {CORPUS, RESULTS, JUDGES}
    assert [path for path, mark in links.items() if mark == "page"] == (
        [current] if current else []
    )


def test_the_results_options_follow_the_reader_to_the_judges(demo, organizer_client):
    response = organizer_client.get(RESULTS, {"tokenizer": "whitespace", "seed": "3"})
    tree = html.fromstring(response.content.decode())
    judges = tree.xpath(f'//nav[@aria-label="Context lab"]//a[starts-with(@href, "{JUDGES}")]')
    assert "tokenizer=whitespace" in judges[0].get("href")
    assert "seed=3" in judges[0].get("href")
