"""A batch written to a folder: one `<code>.pdf` per paper, rendered one by one, a failure
left as `<code>.error` while the rest are written, and a paper that stops its worker given
up after MAX_RENDER_ATTEMPTS."""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from puzzles.models import Competition

from ..errors import GradingError
from ..models import Paper
from .render import sheets_pdf
from .sheets import Sheet, sheet_builder
from .stamps import rubric_note_path, rubric_note_read, rubric_stamps

logger = logging.getLogger(__name__)


# Paper codes become file names: letters, digits and inner hyphens only.
_SAFE_CODE = re.compile(r"^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$")


def paper_filename(paper: Paper) -> str:
    """Return `<code>.pdf`; a code unfit for a file name is an error, never rewritten."""
    if not _SAFE_CODE.match(paper.code):
        raise GradingError(f"paper code {paper.code!r} cannot be a file name")
    return f"{paper.code}.pdf"


def competition_papers(competition: Competition, problem_number: int | None = None) -> list[Paper]:
    """Return the competition's papers (of one problem, if given) by problem and code."""
    papers = Paper.objects.filter(problem__competition=competition)
    if problem_number is not None:
        if not competition.problems.filter(number=problem_number).exists():
            raise GradingError(f"no problem {problem_number} in {competition.slug}")
        papers = papers.filter(problem__number=problem_number)
    return list(papers.order_by("problem__number", "code"))


ERROR_SUFFIX = ".error"

ATTEMPTS_SUFFIX = ".attempts"

MAX_RENDER_ATTEMPTS = 2


def _attempts_read(path: Path) -> int:
    try:
        return int(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return 0


def papers_write(
    papers: Iterable[Paper],
    out_dir: Path,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    skip_written: bool = False,
) -> list[Path]:
    """Write one `<code>.pdf` per paper into out_dir and return the paths written.

    Papers render one by one: one that fails leaves `<code>.error` (the reason) and the
    others are still written. With skip_written, a paper whose PDF is already there with
    the current rubric is left as it is, so that a task delivered again or resumed carries
    on where the last stopped; one printed with another rubric is replaced (and the
    replacement records which rubric it replaced, see papers_replaced).
    """
    papers = list(papers)
    names = [paper_filename(p) for p in papers]
    out_dir.mkdir(parents=True, exist_ok=True)
    build = sheet_builder(papers)
    stamps = rubric_stamps(papers) if skip_written else {}
    written = []
    for done, (paper, name) in enumerate(zip(papers, names, strict=True), 1):
        target = out_dir / name
        current = skip_written and target.exists()
        if current and rubric_note_read(target).get("rubric") != stamps[paper.code]:
            current = False
        if not current and _paper_write(paper, build, target):
            written.append(target)
        if on_progress:
            on_progress(done, len(papers))
    return written


def _paper_write(paper: Paper, build: Callable[[Paper], Sheet], target: Path) -> bool:
    error = target.with_suffix(ERROR_SUFFIX)
    # Counts the renderings of this paper that began and never ended: a paper that kills
    # its worker (out of memory, a crash in a library) would otherwise be delivered again
    # and again (acks_late); after MAX_RENDER_ATTEMPTS it is reported like any failure.
    attempts_file = target.with_name(f".{target.stem}{ATTEMPTS_SUFFIX}")
    attempts = _attempts_read(attempts_file)
    if attempts >= MAX_RENDER_ATTEMPTS:
        logger.error("paper %s stopped its worker %d times; skipped", paper.code, attempts)
        error.write_text(
            f"the worker rendering this paper stopped {attempts} times before it was written"
            " (killed, or out of memory)\n",
            encoding="utf-8",
        )
        attempts_file.unlink(missing_ok=True)
        return False
    attempts_file.write_text(str(attempts + 1), encoding="utf-8")
    started = time.perf_counter()
    try:
        sheet = build(paper)
        data = sheets_pdf([sheet], title=f"Paper {paper.code}")
    except Exception as exc:  # one paper's failure must not lose the batch
        logger.exception("paper %s did not render", paper.code)
        error.write_text(f"{type(exc).__name__}: {exc}"[:500] + "\n", encoding="utf-8")
        attempts_file.unlink(missing_ok=True)
        return False
    # A name of its own: a resumed batch or a redelivered task may render the same paper at
    # the same time, and both replaces must succeed.
    partial = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part")
    partial.write_bytes(data)
    note = {"rubric": sheet.rubric}
    if target.exists():
        printed = rubric_note_read(target).get("rubric", "")
        if printed != sheet.rubric:
            note["replaced"] = printed
            logger.info("paper %s: replaced (rubric %s, now %s)", paper.code, printed, sheet.rubric)
    # The PDF first: a crash between the two leaves a current PDF taken for stale (rendered
    # again), never a stale one taken for current.
    os.replace(partial, target)
    rubric_note = rubric_note_path(target)
    note_partial = rubric_note.with_name(f"{rubric_note.name}.{uuid.uuid4().hex[:8]}.part")
    note_partial.write_text(json.dumps(note), encoding="utf-8")
    os.replace(note_partial, rubric_note)
    error.unlink(missing_ok=True)
    attempts_file.unlink(missing_ok=True)
    logger.debug("paper %s rendered in %.2f s", paper.code, time.perf_counter() - started)
    return True


def papers_failed(out_dir: Path, codes: Iterable[str] | None = None) -> dict[str, str]:
    """Return {code: reason} of the papers whose rendering failed in out_dir (of these codes)."""
    if not out_dir.is_dir():
        return {}
    failed = {
        path.stem: path.read_text(encoding="utf-8", errors="replace").strip()
        for path in sorted(out_dir.glob(f"*{ERROR_SUFFIX}"))
    }
    if codes is not None:
        wanted = set(codes)
        failed = {code: reason for code, reason in failed.items() if code in wanted}
    return failed


def papers_last_written(out_dir: Path, codes: Iterable[str]) -> float:
    """Return when the last PDF or error note of these papers was written (0: none yet)."""
    times = [
        path.stat().st_mtime
        for code in codes
        for path in (out_dir / f"{code}.pdf", out_dir / f"{code}{ERROR_SUFFIX}")
        if path.exists()
    ]
    return max(times, default=0.0)


def papers_clear(papers: Iterable[Paper], out_dir: Path) -> None:
    """Remove the papers' PDFs and error notes from out_dir, so that they render afresh."""
    for paper in papers:
        target = out_dir / paper_filename(paper)
        target.unlink(missing_ok=True)
        target.with_suffix(ERROR_SUFFIX).unlink(missing_ok=True)
        target.with_name(f".{target.stem}{ATTEMPTS_SUFFIX}").unlink(missing_ok=True)
        rubric_note_path(target).unlink(missing_ok=True)
