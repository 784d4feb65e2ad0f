"""The import of runs' outputs: CSV `team, run, task, output`.

`team` is the name of an existing system of the competition, `run` the index of one of its
runs already imported (`import_runs`), `task` the task's id as the competition's other output
imports name it (its external id, e.g. 12026030200), `output` the answer text as submitted
(the competition's submission format: a JSON list or numbered lines; a cell pandas reads as
missing, such as "NA", is an empty answer, as on the board). A failed run has no outputs. Every output is scored
at import by the competition's official rule (`iol2026`, official stage of a submission), the
same code that scores the systems' outputs. A task a run has no row for scores 0 in the
run's figures, as a missing answer does on the board.

The whole file is checked first: a refusal names the file, line and field and writes
nothing. An import replaces all the outputs of the runs it names (and only theirs), in one
transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from django.db import transaction

from ...errors import ImportFailure
from ...models import Competition, Output, Run, RunOutput, Task
from ...services.scoring import output_prepare, output_scores
from ...tabular import csv_rows, pandas_reads_missing
from ...untrusted import text_problem
from ..cells import run_index, shown

RUN_OUTPUT_COLUMNS = ("team", "run", "task", "output")
# The competition's own rule (puzzles.metrics): the figures the board ranks by.
OFFICIAL_METRIC = "iol2026"


@dataclass(frozen=True)
class RunOutputsImport:
    """What an import of runs' outputs stored."""

    file: str
    outputs: int
    runs: int
    incomplete: int  # runs without an answer to every task of the competition
    tasks: int

    def lines(self) -> list[str]:
        lines = [
            f"{self.file}: {self.outputs} outputs of {self.runs} runs stored and scored "
            "(the earlier outputs of these runs replaced)"
        ]
        if self.incomplete:
            lines.append(
                f"warning: {self.incomplete} run(s) answer fewer than the competition's "
                f"{self.tasks} tasks; a missing task scores 0"
            )
        return lines


def run_output_scored(*, run: Run, task: Task, text: str, place: dict) -> RunOutput:
    """Return an unsaved RunOutput of `text` scored by the competition's official rule, as a
    submitted answer (Output.Source.SUBMISSION) is scored; `place` names it in a refusal."""
    output = Output(task=task, source=Output.Source.SUBMISSION, raw_text=text)
    try:
        output_prepare(output=output, task=task)
    except RecursionError:
        raise ImportFailure("the answer nests lists too deeply to read", **place) from None
    for item in output.parsed_items:
        problem = text_problem(str(item))
        if problem:
            raise ImportFailure(
                f"an answer read from it holds {problem} (a JSON escape in the text); remove it",
                **place,
            )
    scores = output_scores(
        parsed_items=output.parsed_items,
        extracted_items=output.extracted_items,
        answer_key=task.answer_key,
        metrics=(OFFICIAL_METRIC,),
    )[OFFICIAL_METRIC][output.official_stage]
    return RunOutput(
        run=run,
        task=task,
        raw_text=text,
        exact_match=_unit(scores["em"]),
        chrf=_unit(scores["chrf"]),
    )


def run_outputs_replace(*, runs: Iterable[Run], outputs: list[RunOutput]) -> None:
    """Replace the outputs of `runs` with `outputs` (the caller's transaction holds)."""
    RunOutput.objects.filter(run__in=[r.pk for r in runs]).delete()
    RunOutput.objects.bulk_create(outputs, batch_size=1000)


@transaction.atomic
def run_outputs_import(*, competition: Competition, stream: TextIO, file: str) -> RunOutputsImport:
    """Check and score the whole file, then replace the outputs of the runs it names."""
    Competition.objects.lock(competition)  # the runs read stay until their outputs are in
    runs = {
        (r.system.name, r.run_index): r
        for r in Run.objects.filter(system__competition=competition).select_related("system")
    }
    teams = {name for name, _ in runs}
    tasks = {t.external_id: t for t in Task.objects.filter(problem__competition=competition)}
    seen: dict[tuple[str, int, str], int] = {}
    outputs: list[RunOutput] = []
    for line, row in csv_rows(stream, file=file, required=RUN_OUTPUT_COLUMNS):
        where = {"file": file, "line": line}
        team = (row["team"] or "").strip()
        if not team:
            raise ImportFailure("team is empty", **where, field="team")
        index = run_index(row["run"], **where)
        run = runs.get((team, index))
        if run is None:
            known = "it has no runs" if team not in teams else "no run with this index"
            raise ImportFailure(
                f"no run {index} of team {shown(team)!r} in the competition ({known}; "
                "import the runs first)",
                **where,
                field="team" if team not in teams else "run",
            )
        if run.status == Run.Status.FAILED:
            raise ImportFailure(
                f"run {index} of {shown(team)!r} failed: a failed run has no outputs",
                **where,
                field="run",
            )
        task_id = (row["task"] or "").strip()
        if task_id not in tasks:
            raise ImportFailure(
                f"no task with id {shown(task_id)!r} in the competition (name tasks by their "
                "id, as in the competition's submission files)",
                **where,
                field="task",
            )
        key = (team, index, task_id)
        if key in seen:
            raise ImportFailure(
                f"a second output of run {index} of {shown(team)!r} for task {task_id} "
                f"(first on line {seen[key]})",
                **where,
                field="task",
            )
        seen[key] = line
        outputs.append(
            run_output_scored(
                run=run,
                task=tasks[task_id],
                text=_answer(row["output"]),
                place=where | {"field": "output"},
            )
        )
    if not outputs:
        raise ImportFailure(
            f"no rows: expected a CSV with columns {', '.join(RUN_OUTPUT_COLUMNS)}",
            file=file,
            line=1,
        )
    named = {o.run.pk: o.run for o in outputs}
    answered: dict[int, int] = {}
    for output in outputs:
        answered[output.run.pk] = answered.get(output.run.pk, 0) + 1
    run_outputs_replace(runs=named.values(), outputs=outputs)
    return RunOutputsImport(
        file=file,
        outputs=len(outputs),
        runs=len(named),
        incomplete=sum(n < len(tasks) for n in answered.values()),
        tasks=len(tasks),
    )


def _unit(value: float) -> float:
    # The rule's means lie in [0, 1]; a float sum of many ones can overshoot by an ulp.
    return min(1.0, max(0.0, float(value)))


def _answer(text: str | None) -> str:
    # The competition's scorer read submissions with pandas: a cell such as "NA" or "nan"
    # was a missing answer, as the system-output import reads it (puzzles.tabular).
    return "" if not text or pandas_reads_missing(text) else text
