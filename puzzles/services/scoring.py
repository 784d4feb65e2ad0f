"""Scoring stored outputs: items from text, then per-item figures for every metric."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from django.db import connections, router, transaction
from django.utils import timezone

from ..analytics.stats.formats import (
    FLAGS_KEY,
    failures_flags,
    failures_stored,
    format_failures,
)
from ..extraction import extract_answer
from ..metrics import METRICS, parse_prediction, score_items
from ..models import Competition, Output, System, Task

STAGES = ("parsed", "extracted")
_BATCH = 2000


def output_prepare(*, output: Output, task: Task) -> None:
    """Fill an unsaved output's parsed and extracted items and format flags (with the format
    failures it shows before and after extraction) from its text."""
    n_items = len(task.answer_key)
    parsed = parse_prediction(output.raw_text, n_items)
    output.parsed_items = parsed.items
    output.format_flags = parsed.flags()
    extraction = extract_answer(output.raw_text, n_items, task.query)
    output.extracted_items = extraction.items
    output.format_flags[FLAGS_KEY] = _failures(output.raw_text, n_items, extraction.items)
    if output.source == Output.Source.MODEL_TEXT and not output.explanation:
        output.explanation = extraction.explanation


def output_scores(
    *, parsed_items: Sequence[str], extracted_items: Sequence[str], answer_key, metrics=METRICS
) -> dict[str, dict[str, dict]]:
    """Return {metric: {stage: row score}} for one output's two item lists."""
    scores: dict[str, dict[str, dict]] = {}
    for metric in metrics:
        parsed = score_items(parsed_items, answer_key, metric).as_dict()
        extracted = (
            parsed
            if list(extracted_items) == list(parsed_items)
            else score_items(extracted_items, answer_key, metric).as_dict()
        )
        scores[metric] = {"parsed": parsed, "extracted": extracted}
    return scores


def _failures(raw_text: str, n_items: int, extracted_items: Sequence[str]) -> dict:
    return failures_flags(format_failures(raw_text, n_items, extracted_items), n_items)


@transaction.atomic
def competition_rescore(
    *,
    competition: Competition,
    tasks: Iterable[Task] | None = None,
    systems: Iterable[System] | None = None,
    metrics: Sequence[str] = METRICS,
) -> int:
    """Rescore the stored outputs of a competition, or of some of its tasks or systems.

    Only the named metrics' figures are replaced; the others are kept as they are. Outputs
    whose stored format failures are missing or out of date (another item count, other
    rules) get them detected and stored too: the answer key's alternatives do not change
    them, so a rescore after an amendment detects nothing.
    """
    task_qs = Task.objects.filter(problem__competition=competition)
    if tasks is not None:
        task_qs = task_qs.filter(pk__in=[t.pk for t in tasks])
    keys = {t.pk: t.answer_key for t in task_qs.only("pk", "answer_key")}
    outputs = Output.objects.filter(task_id__in=keys)
    if systems is not None:
        outputs = outputs.filter(system_id__in=[s.pk for s in systems])
    rows = outputs.values_list(
        "pk", "task_id", "parsed_items", "extracted_items", f"format_flags__{FLAGS_KEY}"
    )
    batch: list[tuple[int, dict, dict]] = []
    stale: list[int] = []
    count = 0
    for pk, task_id, parsed_items, extracted_items, failures in rows.iterator(chunk_size=_BATCH):
        if failures_stored({FLAGS_KEY: failures}, len(keys[task_id])) is None:
            stale.append(pk)
        scores = output_scores(
            parsed_items=parsed_items,
            extracted_items=extracted_items,
            answer_key=keys[task_id],
            metrics=metrics,
        )
        batch.append((pk, scores, {}))
        if len(batch) >= _BATCH:
            count += _scores_merge(batch)
            batch = []
    count += _scores_merge(batch)
    for start in range(0, len(stale), _BATCH):
        rows = Output.objects.filter(pk__in=stale[start : start + _BATCH]).values_list(
            "pk", "task_id", "raw_text", "extracted_items"
        )
        _scores_merge(
            [
                (pk, {}, {FLAGS_KEY: _failures(raw_text, len(keys[task_id]), extracted or [])})
                for pk, task_id, raw_text, extracted in rows
            ]
        )
    return count


def _scores_merge(batch: list[tuple[int, dict, dict]]) -> int:
    """Merge new per-metric figures into the stored scores and new keys into the format
    flags, one statement per batch.

    Django's bulk_update builds a CASE WHEN per row, which dominated rescoring time;
    PostgreSQL merges JSON objects with ||, SQLite with json_patch. updated_at is set too
    (the result review's cache key reads it).
    """
    if not batch:
        return 0
    connection = connections[router.db_for_write(Output)]
    table = connection.ops.quote_name(Output._meta.db_table)
    column = connection.ops.quote_name(Output._meta.get_field("scores").column)
    flags = connection.ops.quote_name(Output._meta.get_field("format_flags").column)
    updated = connection.ops.quote_name(Output._meta.get_field("updated_at").column)
    now = timezone.now()
    stamp = connection.ops.adapt_datetimefield_value(now)
    pk = connection.ops.quote_name(Output._meta.pk.column)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} AS o SET {column} = o.{column} || v.s, "
                f"{flags} = o.{flags} || v.f, {updated} = %s "
                f"FROM unnest(%s::bigint[], %s::jsonb[], %s::jsonb[]) AS v(id, s, f) "
                f"WHERE o.{pk} = v.id",
                [
                    stamp,
                    [p for p, _, _ in batch],
                    [json.dumps(s, ensure_ascii=False) for _, s, _ in batch],
                    [json.dumps(f, ensure_ascii=False) for _, _, f in batch],
                ],
            )
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {table} SET {column} = json_patch({column}, %s), "
                f"{flags} = json_patch({flags}, %s), {updated} = %s WHERE {pk} = %s",
                [
                    (json.dumps(s, ensure_ascii=False), json.dumps(f, ensure_ascii=False), stamp, p)
                    for p, s, f in batch
                ],
            )
    else:
        stored = {
            p: (s, f)
            for p, s, f in Output.objects.filter(pk__in=[p for p, _, _ in batch]).values_list(
                "pk", "scores", "format_flags"
            )
        }
        merged = [
            Output(
                pk=p,
                scores={**(stored.get(p, ({}, {}))[0] or {}), **s},
                format_flags={**(stored.get(p, ({}, {}))[1] or {}), **f},
                updated_at=now,
            )
            for p, s, f in batch
        ]
        Output.objects.bulk_update(
            merged, ["scores", "format_flags", "updated_at"], batch_size=_BATCH
        )
    return len(batch)
