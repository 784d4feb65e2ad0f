"""Writes of the techniques page: organizers tag runs with techniques (issue 12, item 5),
on the page (a team's chosen runs) or from a CSV `team, run, technique`.

A technique name is trimmed, its inner whitespace collapsed, and it has at most
TECHNIQUE_MAX characters; a name that differs from a known one only in case is that one.
A technique the competition does not know yet joins its list when a run is tagged with it,
and leaves it when its last run is untagged on the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from django.db import transaction

from ioleval.errors import AppError

from ...errors import ImportFailure
from ...models import Competition, Run, Technique
from ...tabular import csv_rows
from ..cells import run_index, shown
from ..models import TECHNIQUE_MAX

TAG_COLUMNS = ("team", "run", "technique")
MISSING_LISTED = 10  # run indices a refusal lists before "and N more"


def technique_name(text: str | None, **where) -> str:
    """Return the name trimmed and with its whitespace collapsed, or refuse it (empty, too
    long); `where` (file, line) places the refusal."""
    name = " ".join((text or "").split())
    if not name:
        raise AppError("the technique name is empty", **where, field="technique")
    if len(name) > TECHNIQUE_MAX:
        raise AppError(
            f"the technique name is longer than {TECHNIQUE_MAX} characters",
            **where,
            field="technique",
        )
    return name


@dataclass(frozen=True)
class TagChange:
    """What tagging or untagging a team's runs on the page did."""

    technique: str
    team: str
    runs: tuple[int, ...]
    changed: int
    added: bool
    new_technique: bool = False
    technique_removed: bool = False

    def lines(self) -> list[str]:
        indices = ", ".join(str(r) for r in self.runs)
        verb = "tagged with" if self.added else "untagged from"
        same = len(self.runs) - self.changed
        runs = "run" if self.changed == 1 else "runs"
        line = f"{self.changed} {runs} of {self.team} ({indices}) {verb} “{self.technique}”"
        if same:
            line += f"; {same} {'already had' if self.added else 'did not have'} it"
        out = [line]
        if self.new_technique:
            out.append(f"“{self.technique}” is a new technique of the competition")
        if self.technique_removed:
            out.append(f"“{self.technique}” is on no run any more and left the list")
        return out


@dataclass(frozen=True)
class TagsImport:
    """What an import of tags stored."""

    file: str
    rows: int
    added: int
    runs: int
    new_techniques: tuple[str, ...]

    def lines(self) -> list[str]:
        line = (
            f"{self.file}: {self.added} tags added on {self.runs} runs "
            f"({self.rows - self.added} of the {self.rows} rows were there already)"
        )
        if self.new_techniques:
            line += f"; new techniques: {', '.join(self.new_techniques)}"
        return [line]


def tags_add(*, competition: Competition, tags: Iterable[tuple[int, str]]) -> tuple[int, list[str]]:
    """Tag runs (by id) of the competition with techniques (by name, already checked) and
    return how many tags were new and the techniques that joined the list. The one place
    that adds tags: the page, the CSV import and the demo go through it."""
    wanted = list(dict.fromkeys(tags))
    if not wanted:
        return 0, []
    with transaction.atomic():
        known = _known(competition)
        first: dict[str, str] = {}
        for _, name in wanted:
            if name.casefold() not in known:
                first.setdefault(name.casefold(), name)
        new = sorted(first.values())
        Technique.objects.bulk_create(
            [Technique(competition=competition, name=name) for name in new], ignore_conflicts=True
        )
        if new:
            known = _known(competition)
        ids = {(run_id, known[name.casefold()][1]) for run_id, name in wanted}
        through = Run.techniques.through
        there = set(
            through.objects.filter(
                run_id__in={r for r, _ in ids}, technique_id__in={t for _, t in ids}
            ).values_list("run_id", "technique_id")
        )
        fresh = sorted(ids - there)
        through.objects.bulk_create(
            [through(run_id=r, technique_id=t) for r, t in fresh],
            batch_size=1000,
            ignore_conflicts=True,  # a tag added meanwhile by another request stays one tag
        )
    return len(fresh), new


def runs_tag(
    *, competition: Competition, team: str, runs: Sequence[int] | None, technique: str
) -> TagChange:
    """Tag the team's runs (all of them when `runs` is None) with the technique."""
    name = technique_name(technique)
    with transaction.atomic():
        Competition.objects.lock(competition)  # the runs chosen stay until the tags are in
        chosen = _team_runs(competition, team, runs)
        new = name.casefold() not in _known(competition)
        changed, _ = tags_add(competition=competition, tags=[(pk, name) for pk, _ in chosen])
        shown = _known(competition)[name.casefold()][0]
    return TagChange(
        technique=shown,
        team=team,
        runs=tuple(i for _, i in chosen),
        changed=changed,
        added=True,
        new_technique=new,
    )


def runs_untag(
    *, competition: Competition, team: str, runs: Sequence[int] | None, technique: str
) -> TagChange:
    """Take the technique off the team's runs (all of them when `runs` is None); a technique
    left on no run leaves the competition's list."""
    name = technique_name(technique)
    through = Run.techniques.through
    with transaction.atomic():
        Competition.objects.lock(competition)
        known = _known(competition)
        if name.casefold() not in known:
            raise AppError(f"the competition has no technique “{name}”", field="technique")
        shown, technique_id = known[name.casefold()]
        chosen = _team_runs(competition, team, runs)
        changed, _ = through.objects.filter(
            technique_id=technique_id, run_id__in=[pk for pk, _ in chosen]
        ).delete()
        removed = not through.objects.filter(technique_id=technique_id).exists()
        if removed:
            Technique.objects.filter(pk=technique_id).delete()
    return TagChange(
        technique=shown,
        team=team,
        runs=tuple(i for _, i in chosen),
        changed=changed,
        added=False,
        technique_removed=removed,
    )


@transaction.atomic
def tags_import(*, competition: Competition, stream: TextIO, file: str) -> TagsImport:
    """Check the whole CSV `team, run, technique`, then add its tags in one transaction
    (tags already there are kept; nothing is removed)."""
    Competition.objects.lock(competition)  # the runs read stay until the tags are in
    runs = {
        (team, index): pk
        for pk, team, index in Run.objects.submissions()
        .filter(system__competition=competition)
        .values_list("pk", "system__name", "run_index")
    }
    teams = {team for team, _ in runs}
    tags: list[tuple[int, str]] = []
    for line, row in csv_rows(stream, file=file, required=TAG_COLUMNS):
        where = {"file": file, "line": line}
        team = (row["team"] or "").strip()
        if team not in teams:
            what = "team is empty" if not team else f"no team {shown(team, 40)!r} with runs"
            raise ImportFailure(what, **where, field="team")
        index = run_index(row["run"], **where)
        if (team, index) not in runs:
            raise ImportFailure(f"{shown(team, 40)!r} has no run {index}", **where, field="run")
        try:
            name = technique_name(row["technique"], **where)
        except AppError as exc:
            raise ImportFailure(exc.message, **where, field=exc.field) from None
        tags.append((runs[(team, index)], name))
    if not tags:
        raise ImportFailure(
            f"no rows: expected a CSV with columns {', '.join(TAG_COLUMNS)}", file=file, line=1
        )
    distinct = list(dict.fromkeys((r, n.casefold()) for r, n in tags))
    added, new = tags_add(competition=competition, tags=tags)
    return TagsImport(
        file=file,
        rows=len(distinct),
        added=added,
        runs=len({r for r, _ in distinct}),
        new_techniques=tuple(new),
    )


def techniques_prune(*, competition: Competition) -> None:
    """Remove the competition's techniques left on no run (after runs were replaced), as
    taking a technique off its last run does."""
    Technique.objects.filter(competition=competition, runs__isnull=True).delete()


def _known(competition: Competition) -> dict[str, tuple[str, int]]:
    """The competition's techniques: casefolded name -> (name, id)."""
    return {
        name.casefold(): (name, pk)
        for pk, name in Technique.objects.filter(competition=competition).values_list("pk", "name")
    }


def _team_runs(
    competition: Competition, team: str, runs: Sequence[int] | None
) -> list[tuple[int, int]]:
    """Return (id, index) of the team's chosen runs, or refuse unknown ones."""
    have = dict(
        Run.objects.submissions()
        .filter(system__competition=competition, system__name=team)
        .values_list("run_index", "pk")
    )
    if not have:
        raise AppError(f"no team {shown(team, 40)!r} with runs", field="team")
    indices = sorted(have) if runs is None else sorted(set(runs))
    if not indices:
        raise AppError("choose at least one run", field="runs")
    missing = [i for i in indices if i not in have]
    if missing:
        listed = ", ".join(str(i) for i in missing[:MISSING_LISTED])
        more = f" and {len(missing) - MISSING_LISTED} more" if len(missing) > MISSING_LISTED else ""
        raise AppError(f"{shown(team, 40)} has no run {listed}{more}", field="runs")
    return [(have[i], i) for i in indices]
