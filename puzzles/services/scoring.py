"""Scoring stored outputs: items from text, then per-item figures for every metric."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import transaction

from ..extraction import extract_answer
from ..metrics import METRICS, parse_prediction, score_items
from ..models import Competition, Output, System, Task

STAGES = ("parsed", "extracted")
_BATCH = 2000


def output_prepare(*, output: Output, task: Task) -> None:
    """Fill an unsaved output's parsed and extracted items and format flags from its text."""
    n_items = len(task.answer_key)
    parsed = parse_prediction(output.raw_text, n_items)
    output.parsed_items = parsed.items
    output.format_flags = parsed.flags()
    extraction = extract_answer(output.raw_text, n_items, task.query)
    output.extracted_items = extraction.items
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


@transaction.atomic
def competition_rescore(
    *,
    competition: Competition,
    tasks: Iterable[Task] | None = None,
    systems: Iterable[System] | None = None,
    metrics: Sequence[str] = METRICS,
) -> int:
    """Rescore the stored outputs of a competition, or of some of its tasks or systems."""
    task_qs = Task.objects.filter(problem__competition=competition)
    if tasks is not None:
        task_qs = task_qs.filter(pk__in=[t.pk for t in tasks])
    keys = {t.pk: t.answer_key for t in task_qs.only("pk", "answer_key")}
    outputs = Output.objects.filter(task_id__in=keys)
    if systems is not None:
        outputs = outputs.filter(system_id__in=[s.pk for s in systems])
    rows = outputs.values_list("pk", "task_id", "parsed_items", "extracted_items", "scores")
    updated: list[Output] = []
    count = 0
    for pk, task_id, parsed_items, extracted_items, old_scores in rows.iterator(chunk_size=_BATCH):
        scores = dict(old_scores or {})
        scores.update(
            output_scores(
                parsed_items=parsed_items,
                extracted_items=extracted_items,
                answer_key=keys[task_id],
                metrics=metrics,
            )
        )
        updated.append(Output(pk=pk, scores=scores))
        if len(updated) >= _BATCH:
            count += _bulk_write_scores(updated)
            updated = []
    count += _bulk_write_scores(updated)
    return count


def _bulk_write_scores(outputs: list[Output]) -> int:
    if outputs:
        Output.objects.bulk_update(outputs, ["scores"], batch_size=_BATCH)
    return len(outputs)
