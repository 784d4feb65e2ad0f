"""PDF batches of the organizers: a folder per batch, its manifest, progress, resume, zip.

A batch is MEDIA_ROOT/papers/<id>/ with `batch.json` (the competition, the papers' codes
and problems, the task of each problem) and, as tasks render them, `<code>.pdf` or
`<code>.error`. Progress is read from those files, so it holds with or without a result
backend, and a batch whose worker died is seen as stalled (nothing written for
STALL_AFTER_SECONDS, no task known to be running) and resumed: its missing problems are
queued again into the same folder, where tasks skip the papers already written.

Without a broker (Celery eager, as under `make run`) the tasks run on daemon threads of the
web process (IOLEVAL_RENDER_THREADS threads; 0: in the request, as before), so that the
request answers at once and the same status page follows the rendering; an exit of the
process does not wait for them (the batch then stalls and is resumed), and the tasks' states
live in that process only. With a broker that cannot be reached, starting a batch is refused
(QueueUnavailable) and leaves no folder.
"""

from __future__ import annotations

import io
import json
import logging
import os
import queue
import re
import shutil
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from celery.result import AsyncResult
from django.conf import settings
from django.db import connections

from ioleval.celery import QueueUnavailable
from ioleval.celery import app as celery_app
from ioleval.progress import (
    DONE,
    FAILED,
    RUNNING,
    STALLED,
    UNREACHABLE,
    Progress,
    task_progress,
)
from puzzles.models import Competition

from .errors import GradingError
from .models import Paper
from .pdf import (
    ERROR_SUFFIX,
    StalePaper,
    papers_failed,
    papers_replaced,
    papers_stale,
    rubric_stamps,
)
from .tasks import render_papers_task

logger = logging.getLogger(__name__)

MANIFEST = "batch.json"
# A paper renders in well under a second (benchmarks/HISTORY.md): two minutes without a new
# file means that no worker is rendering this batch (or that all are busy elsewhere).
STALL_AFTER_SECONDS = 120
_BATCH_ID = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class BatchState:
    """What a batch page shows: progress, and which papers are written, failed or missing."""

    batch: str
    progress: Progress
    written: list[str]
    failed: dict[str, str]  # code -> reason
    missing: list[str]
    failed_tasks: list[int] = field(default_factory=list)  # problems whose task failed
    idle_seconds: int = 0
    # Written with a rubric that has changed since; written in place of such a PDF.
    stale: list[StalePaper] = field(default_factory=list)
    replaced: list[StalePaper] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.failed and not self.missing

    @property
    def resumable(self) -> bool:
        """Whether Resume has something to do: papers missing or failed once the batch has
        stalled or ended, or papers whose rubric changed once it has finished."""
        if self.progress.state in (STALLED, FAILED) and (self.failed or self.missing):
            return True
        return self.progress.finished and bool(self.stale)


def batch_dir(batch: str) -> Path:
    """Return the folder of a batch id; GradingError for anything but 32 hex digits."""
    if not _BATCH_ID.fullmatch(batch):
        raise GradingError("no such batch")
    return Path(settings.MEDIA_ROOT) / "papers" / batch


def batch_start(*, competition: Competition) -> str:
    """Create a batch of every paper of the competition, queue one task per problem.

    QueueUnavailable when the broker cannot be reached: nothing is left behind."""
    batch = uuid.uuid4().hex
    directory = batch_dir(batch)
    directory.mkdir(parents=True)
    papers = Paper.objects.filter(problem__competition=competition).order_by(
        "problem__number", "code"
    )
    codes = {code: number for code, number in papers.values_list("code", "problem__number")}
    manifest = {
        "competition": competition.pk,
        "problems": sorted(set(codes.values())),
        "papers": codes,
        "total": len(codes),
        "tasks": {},
    }
    try:
        _queue(competition, directory, manifest, manifest["problems"])
    except QueueUnavailable:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return batch


def batch_resume(*, competition: Competition, batch: str) -> list[int]:
    """Queue again the problems with papers missing or failed of a stalled or failed batch.

    Return their numbers. Tasks skip the papers already written; a batch still rendering is
    refused, so that a click does not set a second worker on the same problem.
    """
    directory = batch_dir(batch)
    manifest = batch_manifest(directory, competition)
    state = batch_state(batch, manifest)
    if state.complete and not state.stale:
        raise GradingError("every paper of this batch is written: nothing to resume")
    if not state.resumable:
        raise GradingError("this batch is still rendering: resume it once it has stalled")
    wanted = set(state.missing) | set(state.failed) | {paper.code for paper in state.stale}
    numbers = sorted({n for code, n in manifest["papers"].items() if code in wanted})
    _queue(competition, directory, manifest, numbers)
    return numbers


def _queue(competition: Competition, directory: Path, manifest: dict, numbers: list[int]) -> None:
    """Queue one task per problem number, each under an id the manifest records.

    QueueUnavailable when none could be queued (the manifest is as it was). When the broker
    goes away after some were queued, the manifest keeps only those: the batch then ends
    with papers missing, and its Resume queues the rest."""
    before, before_resumed = dict(manifest["tasks"]), manifest.get("resumed", 0)
    resumed = before_resumed + (1 if manifest["tasks"] else 0)
    manifest["resumed"] = resumed
    ids = {n: f"{directory.name}-{n}" + (f"-r{resumed}" if resumed else "") for n in numbers}
    manifest["tasks"].update({str(n): task_id for n, task_id in ids.items()})
    _manifest_write(directory, manifest)  # first, so that an eager task finds it
    queued = []
    for n, task_id in ids.items():
        try:
            _task_start(competition.pk, directory, n, task_id)
        except QueueUnavailable:
            for number in set(ids) - set(queued):  # not queued: as they were before
                previous = before.get(str(number))
                if previous is None:
                    manifest["tasks"].pop(str(number))
                else:
                    manifest["tasks"][str(number)] = previous
            if not queued:
                manifest["resumed"] = before_resumed
            _manifest_write(directory, manifest)
            if not queued:
                raise
            missed = sorted(set(ids) - set(queued))
            logger.error("batch %s: problems %s not queued", directory.name, missed)
            return
        queued.append(n)


# Without a broker: a queue of (args, task id) and daemon threads that take from it. Daemon
# threads, so that nothing is joined when the process exits (Ctrl+C, a gunicorn restart):
# the papers not yet rendered are lost with the process, and the batch then stalls and is
# resumed like one whose worker died.
_renderers_lock = threading.Lock()
_jobs: queue.SimpleQueue = queue.SimpleQueue()
_renderers: list[threading.Thread] = []


def _task_start(competition_id: int, directory: Path, number: int, task_id: str) -> None:
    """Queue a problem's rendering task; without a worker, on this process's renderer threads."""
    args = [competition_id, str(directory), number]
    threads = settings.IOLEVAL_RENDER_THREADS
    if not celery_app.conf.task_always_eager or not threads:
        render_papers_task.apply_async(args=args, task_id=task_id)
        return
    _renderers_start(threads)
    _jobs.put((args, task_id))


def _renderers_start(threads: int) -> None:
    """Start daemon renderer threads until `threads` of them are alive in this process."""
    with _renderers_lock:
        _renderers[:] = [thread for thread in _renderers if thread.is_alive()]
        while len(_renderers) < threads:
            thread = threading.Thread(
                target=_renderer, name=f"ioleval-pdf-{len(_renderers)}", daemon=True
            )
            thread.start()
            _renderers.append(thread)


def _renderer() -> None:
    """Render the queued tasks one after another, for as long as the process lives."""
    while True:
        args, task_id = _jobs.get()
        _render_here(args, task_id)


def _render_here(args: list, task_id: str) -> None:
    """Run a rendering task in this thread (eager); its errors are logged, its files tell."""
    try:
        render_papers_task.apply_async(args=args, task_id=task_id)
    except Exception:  # the batch's files and the task's stored state say what failed
        logger.exception("PDF batch task %s failed", task_id)
    finally:
        connections.close_all()  # this thread's own database connections


def _manifest_write(directory: Path, manifest: dict) -> None:
    partial = directory / f".{MANIFEST}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part"
    partial.write_text(json.dumps(manifest), encoding="utf-8")
    os.replace(partial, directory / MANIFEST)


def batch_manifest(directory: Path, competition: Competition) -> dict:
    """Return the batch's manifest; GradingError when there is none for this competition."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GradingError("no such batch") from None
    if manifest.get("competition") != competition.pk:
        raise GradingError("no such batch")
    if "papers" not in manifest:  # a batch started before manifests listed their papers
        papers = Paper.objects.filter(
            problem__competition=competition, problem__number__in=manifest["problems"]
        )
        manifest["papers"] = dict(papers.values_list("code", "problem__number"))
        manifest["tasks"] = {str(n): f"{directory.name}-{n}" for n in manifest["problems"]}
    return manifest


def batch_state(batch: str, manifest: dict) -> BatchState:
    """Return the batch's progress from its files, and its tasks' states when known.

    The tasks are asked before the files are read: a task writes its PDFs before it reports
    success, so a task seen ended has all its files on disk by the time they are listed, and
    a batch that finishes while it is being looked at is never taken for one that failed.

    A paper queued again (a resume) whose task has not ended, and whose files all predate
    that queueing (a PDF printed with a rubric that has changed since, an `.error` of an
    earlier try), is being rendered: it counts as not written yet, so that the page follows
    it and offers no second Resume meanwhile. Without task states (no result backend, or
    another process's in-process tasks) its task is taken as running until the batch stalls.
    """
    tasks = _task_progress(manifest)
    directory = batch_dir(batch)
    codes = sorted(manifest["papers"])
    names = {entry.name: entry for entry in os.scandir(directory)}
    last = max(
        (entry.stat().st_mtime for entry in names.values() if _counts_as_activity(entry.name)),
        default=0.0,
    )
    idle = max(0, int(time.time() - last))
    papers = Paper.objects.filter(problem__competition_id=manifest["competition"], code__in=codes)
    stale = {
        paper.code: paper
        for paper in papers_stale(directory, rubric_stamps(papers.only("code", "problem_id")))
    }
    if tasks:
        rendering = {int(n) for n, p in tasks.items() if p.state == RUNNING}
    else:
        rendering = set(manifest["problems"]) if idle < STALL_AFTER_SECONDS else set()
    # The manifest is written as its tasks are queued: what is older came before them.
    queued = names[MANIFEST].stat().st_mtime if MANIFEST in names else 0.0
    kinds = {
        code: _paper_kind(code, names, stale, queued, manifest["papers"][code] in rendering)
        for code in codes
    }
    written = [code for code in codes if kinds[code] == "written"]
    failed = papers_failed(directory, [code for code in codes if kinds[code] == "failed"])
    missing = [code for code in codes if kinds[code] == "missing"]
    failed_tasks = sorted(int(n) for n, p in tasks.items() if p.state == FAILED)
    running = any(p.state == RUNNING for p in tasks.values())
    done = len(written) + len(failed)
    if not missing:
        state = FAILED if failed else DONE
    elif tasks and not running:  # every task has ended, papers are still missing
        state = FAILED
    elif idle >= STALL_AFTER_SECONDS:
        state = STALLED
    else:
        state = RUNNING
    return BatchState(
        batch=batch,
        progress=Progress(state, done, len(codes)),
        written=written,
        failed=failed,
        missing=missing,
        failed_tasks=failed_tasks,
        idle_seconds=idle,
        stale=[stale[code] for code in written if code in stale],
        replaced=papers_replaced(directory, written),
    )


def _paper_kind(
    code: str, names: dict[str, os.DirEntry], stale: dict, queued: float, rendering: bool
) -> str:
    """Return "written", "failed" or "missing" (not written yet) for one paper of a batch.

    `queued` is when its task was last queued, `rendering` whether that task has not ended.
    A current PDF is written. A file written since the queueing is that try's outcome: an
    `.error` its failure, a stale PDF (the rubric changed meanwhile) written. While the task
    goes on, older files (a stale PDF, an earlier try's `.error`) stand for nothing yet."""
    pdf, error = names.get(f"{code}.pdf"), names.get(f"{code}{ERROR_SUFFIX}")
    if pdf is not None and code not in stale:
        return "written"
    if error is not None and error.stat().st_mtime >= queued:
        return "failed"
    if pdf is not None and pdf.stat().st_mtime >= queued:
        return "written"
    if rendering:
        return "missing"
    if error is not None:  # its stale PDF, if any, is not handed out
        return "failed"
    return "written" if pdf is not None else "missing"


def _counts_as_activity(name: str) -> bool:
    # A paper renders in well under a second: its file is the batch's heartbeat.
    return name == MANIFEST or name.endswith((".pdf", ERROR_SUFFIX))


def _task_progress(manifest: dict) -> dict[str, Progress]:
    """Return each problem's task progress, or {} when there is no result backend to ask
    (none configured, or one that cannot be reached: the files tell the progress then)."""
    if not celery_app.conf.result_backend:
        return {}
    tasks = {
        number: task_progress(AsyncResult(task_id, app=celery_app))
        for number, task_id in manifest["tasks"].items()
    }
    if any(p.state == UNREACHABLE for p in tasks.values()):
        return {}
    return tasks


def batch_zip(batch: str, manifest: dict, *, slug: str) -> tuple[bytes, str]:
    """Return the batch's PDFs as a zip and its file name; a partial zip says so.

    A batch with papers missing or failed gives `<slug>-papers-partial-N-of-M.zip`, with a
    README.txt that lists them (and why each failed).
    """
    state = batch_state(batch, manifest)
    if not state.written:
        raise GradingError("no papers rendered under this batch yet")
    directory = batch_dir(batch)
    total = len(manifest["papers"])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for code in state.written:
            archive.write(directory / f"{code}.pdf", f"{code}.pdf")
        if not state.complete or state.stale:
            archive.writestr("README.txt", _partial_readme(state, total))
    if state.complete and not state.stale:
        return buffer.getvalue(), f"{slug}-papers.zip"
    if state.complete:
        return buffer.getvalue(), f"{slug}-papers-{len(state.stale)}-stale.zip"
    return buffer.getvalue(), f"{slug}-papers-partial-{len(state.written)}-of-{total}.zip"


def _partial_readme(state: BatchState, total: int) -> str:
    lines = [
        f"This zip is partial: {len(state.written)} of {total} papers."
        if not state.complete
        else f"All {total} papers, some printed with a rubric that has changed since.",
        "",
    ]
    if state.stale:
        lines.append(f"Printed with a rubric that has changed since ({len(state.stale)}):")
        lines += [f"  {paper.sentence}" for paper in state.stale]
        lines.append("")
    if state.failed:
        lines.append(f"Failed to render ({len(state.failed)}):")
        lines += [f"  {code}: {reason}" for code, reason in state.failed.items()]
        lines.append("")
    if state.missing:
        lines.append(f"Not rendered yet ({len(state.missing)}):")
        lines += [f"  {code}" for code in state.missing]
        lines.append("")
    return "\n".join(lines)
