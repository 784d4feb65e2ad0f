"""The jury's qualitative observations: how many papers carry each observation tag, per system
and per problem, with the papers behind every count (issue 8, item 9).

A paper carries a tag when at least one juror who submitted it gave it that tag; tags on a
draft do not count (the juror may still change their mind, and drafts are private). System
names appear, so this is for organizers and the chair only; the caller checks the role.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count
from django.urls import reverse

from puzzles.models import Competition

from ..models import Assignment, ObservationTag, Paper, PaperTag

# Where a chair or organizer reads a paper's marks: its problem's comparison sheet.
PAPER_URL_NAME = "grading:sheet"


@dataclass(frozen=True)
class TaggedPaper:
    """A paper behind a count, with the sheet it is read on (url_name + url_args for reverse,
    fragment naming its row)."""

    code: str
    problem: int
    system: str
    jurors: int  # how many of its submitting jurors gave the tag
    url_name: str
    url_args: tuple[str, int]

    @property
    def fragment(self) -> str:
        return f"paper-{self.code}"

    @property
    def url(self) -> str:
        return f"{reverse(self.url_name, args=self.url_args)}#{self.fragment}"

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "problem": self.problem,
            "system": self.system,
            "jurors": self.jurors,
            "url": self.url,
        }


@dataclass(frozen=True)
class TagCell:
    """One tag's papers in one row (a system, a problem, or all)."""

    tag: str
    papers: tuple[TaggedPaper, ...]

    @property
    def count(self) -> int:
        return len(self.papers)

    @property
    def uses(self) -> int:
        """Return how many juror-paper taggings the count rests on."""
        return sum(p.jurors for p in self.papers)

    def as_json(self) -> dict:
        return {
            "tag": self.tag,
            "count": self.count,
            "uses": self.uses,
            "papers": [p.as_json() for p in self.papers],
        }


@dataclass(frozen=True)
class TagRow:
    """A system's or a problem's counts, one cell per tag in the tags' order."""

    label: str  # the system's name, or "Problem N"
    key: str | int  # the system's name, or the problem's number
    papers: int  # its papers graded by the jury (submitted by at least one juror)
    cells: tuple[TagCell, ...]
    external: bool = False  # systems only: automatic figures imported from elsewhere

    @property
    def total(self) -> int:
        return sum(c.count for c in self.cells)

    def as_json(self) -> dict:
        return {
            "label": self.label,
            "key": self.key,
            "papers": self.papers,
            "external": self.external,
            "total": self.total,
            "counts": {c.tag: c.count for c in self.cells},
            "cells": [c.as_json() for c in self.cells],
        }


@dataclass(frozen=True)
class TagCounts:
    tags: tuple[str, ...]  # in the competition's order
    by_system: tuple[TagRow, ...]  # systems with papers, by name
    by_problem: tuple[TagRow, ...]  # problems with papers, by number
    totals: tuple[TagCell, ...]  # over all papers, one per tag
    papers: int  # papers submitted by at least one juror
    note: str | None = None

    def as_json(self) -> dict:
        return {
            "tags": list(self.tags),
            "papers": self.papers,
            "totals": {c.tag: c.count for c in self.totals},
            "by_system": [r.as_json() for r in self.by_system],
            "by_problem": [r.as_json() for r in self.by_problem],
            "note": self.note,
        }


def tag_counts(competition: Competition) -> TagCounts:
    """Count the papers carrying each observation tag per system and per problem, in three
    queries."""
    tags = list(
        ObservationTag.objects.filter(competition=competition)
        .order_by("order", "name")
        .values_list("pk", "name")
    )
    papers = [
        _Paper(*row)
        for row in Paper.objects.filter(problem__competition=competition)
        .annotate(graded=Count("assignments", filter=Assignment.submitted_q("assignments")))
        .order_by("problem__number", "code")
        .values_list("pk", "code", "problem__number", "system__name", "system__external", "graded")
    ]
    uses: dict[tuple[int, int], int] = defaultdict(int)  # (paper id, tag id) -> jurors
    for paper_id, tag_id in PaperTag.objects.filter(
        Assignment.submitted_q("assignment"),
        assignment__paper__problem__competition=competition,
    ).values_list("assignment__paper_id", "tag_id"):
        uses[(paper_id, tag_id)] += 1
    return _assemble(competition.slug, tags, papers, uses)


@dataclass(frozen=True)
class _Paper:
    pk: int
    code: str
    problem: int
    system: str
    external: bool
    graded: int  # submitted assignments


def _assemble(
    slug: str, tags: list[tuple[int, str]], papers: list[_Paper], uses: dict
) -> TagCounts:
    """Build the table from the loaded rows (no query)."""
    tagged: dict[int, list[TaggedPaper]] = defaultdict(list)  # tag id -> papers
    for paper in papers:
        for tag_id, _ in tags:
            if jurors := uses.get((paper.pk, tag_id)):
                tagged[tag_id].append(
                    TaggedPaper(
                        paper.code,
                        paper.problem,
                        paper.system,
                        jurors,
                        PAPER_URL_NAME,
                        (slug, paper.problem),
                    )
                )

    def row(label: str, key: str | int, attr: str, external: bool = False) -> TagRow:
        cells = tuple(
            TagCell(name, tuple(p for p in tagged.get(tag_id, ()) if getattr(p, attr) == key))
            for tag_id, name in tags
        )
        graded = sum(1 for p in papers if p.graded and getattr(p, attr) == key)
        return TagRow(label, key, graded, cells, external)

    systems = {p.system: p.external for p in papers}
    by_system = tuple(
        row(name, name, "system", external)
        for name, external in sorted(systems.items(), key=lambda kv: kv[0].casefold())
    )
    by_problem = tuple(
        row(f"Problem {number}", number, "problem")
        for number in sorted({p.problem for p in papers})
    )
    totals = tuple(TagCell(name, tuple(tagged.get(tag_id, ()))) for tag_id, name in tags)
    graded = sum(1 for p in papers if p.graded)
    note = None
    if not tags:
        note = "The competition has no observation tags."
    elif not graded:
        note = "No juror has submitted a paper yet."
    elif not tagged:
        note = "No juror who submitted a paper has tagged it."
    return TagCounts(tuple(name for _, name in tags), by_system, by_problem, totals, graded, note)
