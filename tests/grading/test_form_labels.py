"""Organizer pages name every form field and point aria attributes at ids that exist.

A fast, browser-free companion of tests/e2e/test_accessibility.py (axe-core) for the
faults issue 11 found: the rubric editor's unnamed formset fields, the jury page's
unlabelled uploads and its aria-describedby at a help text never shown, the
leaderboard's unlabelled tier list, the accounts page's unlabelled upload.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db

FIELDS = {"input", "select", "textarea"}
UNLABELLED_TYPES = {"hidden", "submit", "button", "reset", "image"}


class _Form(HTMLParser):
    """Collect the page's fields, labels and ids."""

    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.label_for: set[str] = set()
        self.label_depth = 0
        self.fields: list[tuple[dict, bool]] = []  # (attributes, inside a <label>)
        self.references: list[tuple[str, str]] = []  # (attribute, id)

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if "id" in attrs:
            self.ids.append(attrs["id"])
        for name in ("aria-describedby", "aria-labelledby"):
            self.references += [(name, ref) for ref in attrs.get(name, "").split()]
        if tag == "label":
            self.label_depth += 1
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        elif tag in FIELDS and attrs.get("type") not in UNLABELLED_TYPES:
            self.fields.append((attrs, self.label_depth > 0))

    def handle_endtag(self, tag):
        if tag == "label":
            self.label_depth = max(0, self.label_depth - 1)


def _faults(html: str) -> list[str]:
    page = _Form()
    page.feed(html)
    faults = [f"duplicate id {i}" for i in sorted(set(page.ids)) if page.ids.count(i) > 1]
    faults += [
        f"{attr} points at missing id {ref}" for attr, ref in page.references if ref not in page.ids
    ]
    for attrs, wrapped in page.fields:
        named = (
            wrapped
            or attrs.get("id") in page.label_for
            or attrs.get("aria-label", "").strip()
            or attrs.get("aria-labelledby")
        )
        if not named:
            faults.append(f"no name: {attrs.get('name')!r} (id {attrs.get('id')!r})")
    return faults


def test_organizer_pages_name_every_field(demo, client):
    client.force_login(get_user_model().objects.get(username="organizer"))
    urls = [
        reverse("grading:rubric", args=["demo", 1]),
        reverse("grading:jury", args=["demo"]),
        reverse("puzzles:leaderboard", args=["demo"]),
        reverse("accounts:list"),
        reverse("grading:totals", args=["demo"]),
    ]
    faults = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        if found := _faults(response.content.decode()):
            faults[url] = found
    assert not faults, faults


def test_the_rubric_editor_names_each_field_by_criterion_and_column(demo, client):
    client.force_login(get_user_model().objects.get(username="organizer"))
    html = client.get(reverse("grading:rubric", args=["demo", 1])).content.decode()
    assert 'aria-label="Criterion 2 maximum"' in html
    assert 'aria-label="Criterion 1 task"' in html
    assert 'aria-describedby="rubric-items-help"' in html and 'id="rubric-items-help"' in html
