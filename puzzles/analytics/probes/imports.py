"""The import of knowledge probe results: CSV `model, problem, probe_type, item, correct`.

`problem` is a problem number of the competition or a language label (any text that is
not a number); `correct` is 1/0, true/false or yes/no. The whole file is checked first: a
refusal names the file, line and field and writes nothing. An import replaces all the
competition's probe results, in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from django.db import transaction

from ...errors import ImportFailure
from ...models import Competition, ProbeResult, Problem, System
from ...tabular import csv_rows
from ..cells import natural, shown
from ..models import ITEM_MAX, LANGUAGE_MAX, MODEL_MAX, PROBE_TYPE_MAX

PROBE_COLUMNS = ("model", "problem", "probe_type", "item", "correct")
TRUE = frozenset({"1", "true", "yes"})
FALSE = frozenset({"0", "false", "no"})
_MAX = {"model": MODEL_MAX, "probe_type": PROBE_TYPE_MAX, "item": ITEM_MAX}


@dataclass(frozen=True)
class ProbesImport:
    """What an import of probe results stored."""

    file: str
    results: int
    models: int
    matched: list[str]
    unmatched: list[str]

    def lines(self) -> list[str]:
        out = [
            f"{self.file}: {self.results} probe results of {self.models} models stored "
            "(the competition's earlier probe results replaced)"
        ]
        if self.unmatched:
            out.append("no system of that name, kept by name only: " + ", ".join(self.unmatched))
        return out


def probes_import(*, competition: Competition, stream: TextIO, file: str) -> ProbesImport:
    """Check the whole file, then replace the competition's probe results with it."""
    problems = {p.number: p for p in Problem.objects.filter(competition=competition)}
    rows: dict[tuple, int] = {}
    results: list[ProbeResult] = []
    for line, row in csv_rows(stream, file=file, required=PROBE_COLUMNS):
        where = {"file": file, "line": line}
        model, probe_type, item = (_text(row, k, **where) for k in ("model", "probe_type", "item"))
        problem, language = _subject(row["problem"], problems, **where)
        correct = _boolean(row["correct"], **where)
        key = (model, problem.number if problem else None, language, probe_type, item)
        if key in rows:
            raise ImportFailure(
                f"a second result of {model!r} on item {item!r} ({probe_type}, "
                f"{'problem ' + str(problem.number) if problem else language}; first on line "
                f"{rows[key]})",
                **where,
                field="item",
            )
        rows[key] = line
        results.append(
            ProbeResult(
                competition=competition,
                model=model,
                problem=problem,
                language=language,
                probe_type=probe_type,
                item=item,
                correct=correct,
            )
        )
    if not results:
        raise ImportFailure(
            f"no rows: expected a CSV with columns {', '.join(PROBE_COLUMNS)}", file=file, line=1
        )
    names = sorted({r.model for r in results})
    systems = dict(
        System.objects.filter(competition=competition, name__in=names).values_list("name", "pk")
    )
    for result in results:
        result.system_id = systems.get(result.model)
    with transaction.atomic():
        Competition.objects.lock(competition)  # a second import waits, then replaces
        ProbeResult.objects.filter(competition=competition).delete()
        ProbeResult.objects.bulk_create(results, batch_size=1000)
    return ProbesImport(
        file=file,
        results=len(results),
        models=len(names),
        matched=[n for n in names if n in systems],
        unmatched=[n for n in names if n not in systems],
    )


def _text(row: dict[str, str | None], key: str, **where) -> str:
    value = (row[key] or "").strip()
    if not value:
        raise ImportFailure(f"{key} is empty", **where, field=key)
    if len(value) > _MAX[key]:
        raise ImportFailure(f"{key} is longer than {_MAX[key]} characters", **where, field=key)
    return value


def _subject(text: str | None, problems: dict[int, Problem], **where) -> tuple[Problem | None, str]:
    """Return (problem, "") for a problem number, (None, label) for a language label."""
    raw = (text or "").strip()
    if not raw:
        raise ImportFailure(
            "problem is empty: give a problem number or a language label", **where, field="problem"
        )
    if raw.isascii() and raw.isdigit():
        number = natural(raw, field="problem", what="a problem number", **where)
        if number not in problems:
            known = ", ".join(map(str, sorted(problems))) or "none"
            raise ImportFailure(
                f"no problem {number} in the competition (problems: {known})",
                **where,
                field="problem",
            )
        return problems[number], ""
    if len(raw) > LANGUAGE_MAX:
        raise ImportFailure(
            f"a language label is at most {LANGUAGE_MAX} characters", **where, field="problem"
        )
    return None, raw


def _boolean(text: str | None, **where) -> bool:
    value = (text or "").strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImportFailure(
        f"{shown(text)!r} is not a boolean (use 1/0, true/false or yes/no)",
        **where,
        field="correct",
    )
