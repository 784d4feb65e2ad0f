"""The rubric a paper is printed with (`rubric_stamp`), the note a batch folder keeps beside
each PDF (`.<code>.rubric`), and the PDFs of a folder whose rubric has changed since."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..models import Paper, Rubric
from ..selectors import current_rubrics

NO_RUBRIC = "no rubric"

RUBRIC_SUFFIX = ".rubric"


def rubric_stamp(version: int, criteria: Iterable) -> str:
    """Return how a paper names its rubric: `v3 · 1a2b3c4d`, the version and a digest of the
    criteria as printed (a rubric without marks is edited in place, keeping its version)."""
    printed = [
        [c.code, c.title, c.description, c.kind, str(c.maximum), str(c.step)] for c in criteria
    ]
    digest = hashlib.sha256(json.dumps(printed).encode()).hexdigest()[:8]
    return f"v{version} · {digest}"


def problem_stamps(criteria: dict[int, list]) -> dict[int, str]:
    """Return each problem's rubric_stamp from its current criteria (one query)."""
    rubric_ids = {c.rubric_id for rows in criteria.values() for c in rows}
    versions = dict(Rubric.objects.filter(pk__in=rubric_ids).values_list("pk", "version"))
    return {
        problem_id: rubric_stamp(versions[rows[0].rubric_id], rows)
        for problem_id, rows in criteria.items()
        if rows
    }


def rubric_stamps(papers: Iterable[Paper]) -> dict[str, str]:
    """Return {code: rubric_stamp} of the papers' problems' current rubrics."""
    papers = list(papers)
    stamps = problem_stamps(current_rubrics({p.problem_id for p in papers}))
    return {p.code: stamps.get(p.problem_id, NO_RUBRIC) for p in papers}


@dataclass(frozen=True)
class StalePaper:
    """A PDF in a folder printed with another rubric than its problem's current one."""

    code: str
    printed: str  # its rubric_stamp, or "" when the folder does not say (an older PDF)
    current: str

    @property
    def sentence(self) -> str:
        printed = f"rubric {self.printed}" if self.printed else "an unrecorded rubric"
        return f"{self.code}: printed with {printed}, now {self.current}"


def rubric_note_path(target: Path) -> Path:
    """Return where a folder notes the rubric of the PDF `target`: `.<code>.rubric`."""
    return target.with_name(f".{target.stem}{RUBRIC_SUFFIX}")


def rubric_note_read(target: Path) -> dict:
    """Return the note of the PDF `target` ({} when there is none or it cannot be read)."""
    try:
        return json.loads(rubric_note_path(target).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def papers_stale(out_dir: Path, stamps: dict[str, str]) -> list[StalePaper]:
    """Return the PDFs in out_dir (of these codes) printed with another rubric than stamps."""
    stale = []
    for code, current in stamps.items():
        target = out_dir / f"{code}.pdf"
        if target.exists():
            printed = rubric_note_read(target).get("rubric", "")
            if printed != current:
                stale.append(StalePaper(code, printed, current))
    return stale


def papers_replaced(out_dir: Path, codes: Iterable[str]) -> list[StalePaper]:
    """Return the PDFs in out_dir that replaced a stale one, with the rubric they replaced."""
    replaced = []
    for code in codes:
        note = rubric_note_read(out_dir / f"{code}.pdf")
        if "replaced" in note:
            replaced.append(StalePaper(code, note["replaced"], note["rubric"]))
    return replaced
