"""The oracle ensemble's one write: save it as a system whose outputs are its members'."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from ioleval.errors import AppError

from ...models import Competition, Output, System
from ..stats.oracle import Oracle
from .selectors import competition_figures

ORACLE_TEAM = "oracle (upper bound)"


@dataclass(frozen=True)
class OracleSaved:
    system: System
    oracle: Oracle
    replaced: bool

    def lines(self) -> list[str]:
        """Return the per-task choice and the overall score, as the command prints them."""
        lines = [f"{t.task}: {t.member or '(no output)'} {t.score:.4f}" for t in self.oracle.tasks]
        verb = "replaced" if self.replaced else "saved"
        lines.append(
            f"Oracle {self.system.name!r} {verb}: score {self.oracle.overall.score:.4f} "
            f"(best member {self.oracle.best_member} {self.oracle.best_member_overall.score:.4f}; "
            f"attainable maximum {self.oracle.maximum.score:.4f})"
        )
        return lines


@transaction.atomic
def oracle_create(*, competition: Competition, members: Sequence[str], name: str) -> OracleSaved:
    """Save (or replace, under the same name) the oracle of `members`: a system whose output
    on each task is a copy of the best-scoring member's (ties by `stats.oracle.TIE_RULE`,
    whatever the members' order).

    Refused, with nothing written: fewer than two members, a name no system of the
    competition has, a member that is an oracle or has no outputs here, a name taken by a
    system that is not an oracle. Replacing keeps the system's row (and any jury papers)
    and swaps its outputs."""
    name = name.strip()
    if not name:
        raise AppError("give the oracle a name", field="name")
    names = list(dict.fromkeys(m.strip() for m in members if m.strip()))
    if len(names) < 2:
        raise AppError("an oracle needs at least two member systems", field="members")
    data = competition_figures(competition)
    by_name = {s.name: s for s in data.systems}
    unknown = [m for m in names if m not in by_name]
    if unknown:
        raise AppError(
            f"no system named {', '.join(map(repr, unknown))} in {competition.slug}",
            field="members",
        )
    oracles = [m for m in names if by_name[m].oracle]
    if oracles:
        raise AppError(
            f"{', '.join(map(repr, oracles))} is an oracle itself; choose real systems",
            field="members",
        )
    empty = [m for m in names if m not in data.figures]
    if empty:
        raise AppError(
            f"{', '.join(map(repr, empty))} has no outputs here to copy", field="members"
        )
    existing = by_name.get(name)
    if existing is not None and not existing.oracle:
        raise AppError(
            f"{name!r} is the name of a system that is not an oracle; choose another name",
            field="name",
        )
    oracle = data.combine(names)
    task_pk = {t.external_id: t.pk for t in data.tasks}
    supplied = {t.task: t.member for t in oracle.tasks if t.member}
    fields = {
        "team": ORACLE_TEAM,
        "tier": System.Tier.ENSEMBLE,
        "oracle": True,
        "oracle_of": names,
        "metadata": {
            "oracle": {
                "supplied": supplied,
                "score": oracle.overall.score,
                "attainable_maximum": oracle.maximum.score,
            }
        },
    }
    if existing is None:
        try:
            with transaction.atomic():
                system = System.objects.create(competition=competition, name=name, **fields)
        except IntegrityError:
            raise AppError(
                f"a system named {name!r} was saved meanwhile; try again", field="name"
            ) from None
    else:
        system = System.objects.select_for_update().get(pk=existing.pk)
        for key, value in fields.items():
            setattr(system, key, value)
        system.save(update_fields=list(fields))
        system.outputs.all().delete()
    wanted = {(by_name[m].pk, task_pk[t]) for t, m in supplied.items()}
    sources = Output.objects.filter(
        system_id__in={pk for pk, _ in wanted}, task_id__in={t for _, t in wanted}
    )
    copies = [
        Output(
            system=system,
            task_id=o.task_id,
            source=o.source,
            raw_text=o.raw_text,
            parsed_items=o.parsed_items,
            extracted_items=o.extracted_items,
            explanation=o.explanation,
            format_flags=o.format_flags,
            scores=o.scores,
        )
        for o in sources
        if (o.system_id, o.task_id) in wanted
    ]
    Output.objects.bulk_create(copies)
    return OracleSaved(system=system, oracle=oracle, replaced=existing is not None)
