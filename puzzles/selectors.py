"""Reads that build the leaderboard and other tables for pages and commands."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.shortcuts import get_object_or_404

from .auto_scores import AutoScore, Figures, SystemEntry, auto_scores
from .jury import finalized_amendment_note, problems_finalized
from .leaderboard import BoardRow, Cell, SystemInfo, TaskInfo, board_rows
from .metrics import METRICS
from .models import Competition, ExternalScore, Output, System, Task
from .questions import item_prompts

STAGES = ("official", "parsed", "extracted")


def competition_get(slug: str) -> Competition:
    """Return the competition with this slug or raise Http404."""
    return get_object_or_404(Competition, slug=slug)


def competition_tasks(competition: Competition) -> list[Task]:
    """Return the competition's tasks in problem and task order."""
    return list(
        Task.objects.filter(problem__competition=competition)
        .select_related("problem")
        .order_by("problem__number", "number")
    )


@dataclass(frozen=True)
class KeyItem:
    """One item of a task's answer key, with its question on its line of the assignment."""

    number: int  # from 1
    label: str  # the item's label in the assignment ("" when its lines do not name items)
    question: str
    alternatives: list[str]


@dataclass(frozen=True)
class KeyTask:
    """A task of the answer-key page: its items, and the note a finalized problem needs."""

    task: Task
    items: list[KeyItem]
    finalized_note: str  # what a change does to the jury's finals ("" unless finalized)

    @property
    def has_questions(self) -> bool:
        return any(item.question for item in self.items)


def answer_key_tasks(competition: Competition) -> list[KeyTask]:
    """Return the competition's tasks with each item's question (puzzles.questions, as the
    grading page and the PDF read it) and accepted alternatives (two queries)."""
    finalized = problems_finalized(competition)
    found = []
    for task in competition_tasks(competition):
        prompts = item_prompts(task.query, task.n_items)
        items = [
            KeyItem(number, *(prompts[number - 1] if prompts else ("", "")), list(alternatives))
            for number, alternatives in enumerate(task.answer_key, start=1)
        ]
        note = finalized_amendment_note(task.problem.number) if task.problem_id in finalized else ""
        found.append(KeyTask(task, items, note))
    return found


def board_cells(
    competition: Competition, *, metric: str = "iol2026", stage: str = "official"
) -> dict[tuple[int, int], Cell]:
    """Return each output's figures under a metric and stage, keyed by (system, task)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    rows = (
        Output.objects.filter(system__competition=competition)
        .annotate(
            has_explanation=ExpressionWrapper(~Q(explanation=""), output_field=BooleanField())
        )
        .values_list(
            "system_id",
            "task_id",
            "source",
            f"scores__{metric}__parsed__em",
            f"scores__{metric}__parsed__chrf",
            f"scores__{metric}__extracted__em",
            f"scores__{metric}__extracted__chrf",
            "format_flags__item_count_matches",
            "format_flags__clean_json_list",
            "format_flags__empty",
            "has_explanation",
        )
    )
    cells: dict[tuple[int, int], Cell] = {}
    for (
        system_id,
        task_id,
        source,
        p_em,
        p_chrf,
        x_em,
        x_chrf,
        matches,
        clean,
        empty,
        explained,
    ) in rows:
        use_extracted = stage == "extracted" or (
            stage == "official" and source == Output.Source.MODEL_TEXT
        )
        em, chrf = (x_em, x_chrf) if use_extracted else (p_em, p_chrf)
        cells[(system_id, task_id)] = Cell(
            em=em or 0.0,
            chrf=chrf or 0.0,
            item_count_matches=bool(matches),
            clean_json_list=bool(clean),
            empty=bool(empty),
            has_explanation=bool(explained),
        )
    return cells


def leaderboard(
    competition: Competition,
    *,
    metric: str = "iol2026",
    stage: str = "official",
    rank_by: str = "all",
    tiers: list[str] | None = None,
    oracles: bool = True,
) -> tuple[list[Task], list[BoardRow]]:
    """Return the competition's tasks and its ranked board rows (without the oracle
    ensembles if `oracles` is false: the public board never shows an upper bound)."""
    tasks = competition_tasks(competition)
    # An external system without outputs has its figures elsewhere: it would rank last at 0.
    systems = System.objects.filter(competition=competition).exclude(
        Q(external=True) & ~Exists(Output.objects.filter(system=OuterRef("pk")))
    )
    if tiers:
        systems = systems.filter(tier__in=tiers)
    if not oracles:
        systems = systems.filter(oracle=False)
    infos = [
        SystemInfo(id=s.pk, name=s.name, team=s.team, tier=s.tier, oracle=s.oracle)
        for s in systems.only("pk", "name", "team", "tier", "oracle")
    ]
    rows = board_rows(
        tasks=[TaskInfo(t.pk, t.external_id, t.weight, t.split) for t in tasks],
        systems=infos,
        cells=board_cells(competition, metric=metric, stage=stage),
        rank_by=rank_by,
    )
    return tasks, rows


def extraction_effect(competition: Competition, *, metric: str = "iol2026") -> list[dict]:
    """Return each system's score before and after answer extraction, largest gain first."""
    _, before = leaderboard(competition, metric=metric, stage="parsed")
    _, after = leaderboard(competition, metric=metric, stage="extracted")
    after_by_id = {r.system_id: r for r in after}
    rows = []
    for row in before:
        extracted = after_by_id[row.system_id]
        rows.append(
            {
                "system": row.system,
                "tier": row.tier,
                "score_before": row.overall.score,
                "score_after": extracted.overall.score,
                "exact_match_before": row.overall.exact_match,
                "exact_match_after": extracted.overall.exact_match,
                "gain": round(extracted.overall.score - row.overall.score, 4),
            }
        )
    rows.sort(key=lambda r: (-r["gain"], r["system"]))
    return rows


def system_auto_scores(competition: Competition, *, metric: str = "iol2026") -> list[AutoScore]:
    """Return every system's automatic figures to show (0-1 scale), in name order, in 4 queries.

    A system with outputs shows its computed figures (official stage, under `metric`) and
    per problem; one without shows the figures imported by import_system_scores, with
    `external` true (label them so); one with neither has `overall` None.
    """
    tasks = competition_tasks(competition)
    systems = (
        System.objects.filter(competition=competition)
        .annotate(has_outputs=Exists(Output.objects.filter(system=OuterRef("pk"))))
        .order_by("name")
        .values_list("pk", "name", "tier", "has_outputs")
    )
    imported: dict[int, dict[int | None, Figures]] = {}
    for system_id, number, score, em, chrf in ExternalScore.objects.filter(
        system__competition=competition
    ).values_list("system_id", "problem__number", "score", "exact_match", "chrf"):
        imported.setdefault(system_id, {})[number] = Figures(score, em, chrf)
    return auto_scores(
        tasks=[TaskInfo(t.pk, t.external_id, t.weight, t.split) for t in tasks],
        problem_of={t.pk: t.problem.number for t in tasks},
        systems=[SystemEntry(*row) for row in systems],
        cells=board_cells(competition, metric=metric),
        imported=imported,
    )
