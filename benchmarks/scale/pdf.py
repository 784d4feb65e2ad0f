"""Rendering the papers as PDF: in-process, and through one and two Celery workers."""

from __future__ import annotations

import math
import random
import re
import time
import uuid
from pathlib import Path

from .data import build_board
from .database import SetupError
from .report import pdf_line
from .server import CeleryWorker, tail
from .timing import load_average

PDF_SLUG = "jurybench-pdf"
PDF_CHUNKS = 6  # problems of the PDF competition: one render task each


def pdf_missing() -> str | None:
    """Return why the PDF part cannot run, or None."""
    import importlib

    try:
        pdf = importlib.import_module("grading.pdf")
    except ImportError as exc:
        return f"grading.pdf cannot be imported ({exc})"
    if not any(hasattr(pdf, name) for name in ("papers_write", "paper_pdf")):
        return "grading.pdf has neither papers_write(papers, out_dir) nor paper_pdf(paper)"
    try:
        tasks = importlib.import_module("grading.tasks")
    except ImportError as exc:
        return f"grading.tasks cannot be imported ({exc})"
    if not hasattr(tasks, "render_papers_task"):
        return "grading.tasks has no render_papers_task(competition_id, out_dir, problem_number)"
    return None


def count_pages(paths: list[Path]) -> int:
    try:
        from pypdf import PdfReader
    except ImportError:
        PdfReader = None
    pages = 0
    for path in paths:
        if PdfReader is not None:
            pages += len(PdfReader(path).pages)
        else:
            pages += len(re.findall(rb"/Type\s*/Page(?![s\w])", path.read_bytes()))
    return pages


def render_in_process(papers: list, out: Path) -> int:
    from grading import pdf

    if hasattr(pdf, "papers_write"):
        return len(pdf.papers_write(papers, out))
    out.mkdir(parents=True, exist_ok=True)
    for paper in papers:
        (out / f"{paper.code}.pdf").write_bytes(pdf.paper_pdf(paper))
    return len(papers)


def _celery_batch(competition_id: int, numbers: list[int], queue: str, out: Path) -> float:
    from grading.tasks import render_papers_task

    t0 = time.perf_counter()
    results = [
        render_papers_task.apply_async(args=[competition_id, str(out), n], queue=queue)
        for n in numbers
    ]
    try:
        for result in results:
            result.get(timeout=600)
        return time.perf_counter() - t0
    finally:
        for result in results:
            result.forget()


def measure_pdf(args, tmp: Path, say) -> dict:
    from ioleval.celery import app as celery_app

    if celery_app.conf.task_always_eager:
        raise SetupError("Celery is eager: CELERY_BROKER_URL did not reach the settings")
    rng = random.Random(args.seed + 7)
    per_problem = max(1, math.ceil(args.pdf_papers / PDF_CHUNKS))
    board = build_board(
        slug=PDF_SLUG,
        prefix="X",
        n_problems=PDF_CHUNKS + 1,  # the last one holds the warm-up paper
        n_systems=per_problem,
        n_criteria=args.criteria,
        rng=rng,
    )
    numbers = [p.number for p in board.problems[:PDF_CHUNKS]]
    warm_number = board.problems[-1].number
    papers = [x for p in board.problems[:PDF_CHUNKS] for x in board.papers[p.pk]]
    warm_paper = board.papers[board.problems[-1].pk][0]
    figures: dict = {"papers": len(papers), "tasks": len(numbers)}

    render_in_process([warm_paper], tmp / "pdf-warm")
    t0 = time.perf_counter()
    render_in_process(papers, tmp / "pdf-inprocess")
    wall = time.perf_counter() - t0
    pages = count_pages(sorted((tmp / "pdf-inprocess").glob("*.pdf")))
    figures["in_process"] = _pdf_figures(len(papers), pages, wall)
    say(pdf_line("in-process (papers_write)", figures["in_process"]))

    queue = f"jurybench-{uuid.uuid4().hex[:8]}"
    workers: list[CeleryWorker] = []
    try:
        for count in (1, 2):
            name = f"jurybench{count}-{uuid.uuid4().hex[:6]}"
            own = f"{queue}-{count}"
            workers.append(CeleryWorker(name, [queue, own], tmp))
            from grading.tasks import render_papers_task

            warm = render_papers_task.apply_async(
                args=[board.competition.pk, str(tmp / f"pdf-warm-{count}"), warm_number],
                queue=own,
            )
            try:
                warm.get(timeout=180)
            except Exception as exc:
                raise SetupError(
                    f"Celery worker {name} did not render the warm-up paper ({exc!r}):\n"
                    f"{tail(workers[-1].log)}"
                ) from exc
            finally:
                warm.forget()
            out = tmp / f"pdf-celery-{count}"
            wall = _celery_batch(board.competition.pk, numbers, queue, out)
            pages = count_pages(sorted(out.glob("*.pdf")))
            written = len(list(out.glob("*.pdf")))
            if written != len(papers):
                raise RuntimeError(f"{count} worker(s) wrote {written} of {len(papers)} PDFs")
            key = f"celery_{count}_worker" + ("s" if count > 1 else "")
            figures[key] = _pdf_figures(len(papers), pages, wall)
            say(pdf_line(f"Celery, {count} worker process(es)", figures[key]))
    finally:
        for worker in workers:
            worker.stop()
        _forget_queues(args.broker_url, [queue] + [f"{queue}-{n}" for n in (1, 2)])
    return figures


def _pdf_figures(papers: int, pages: int, wall: float) -> dict:
    return {
        "papers": papers,
        "pages": pages,
        "wall_s": round(wall, 2),
        "pages_per_s": round(pages / wall, 2) if wall else None,
        "papers_per_s": round(papers / wall, 2) if wall else None,
        "load_average_after": load_average(),
    }


def _forget_queues(broker_url: str, queues: list[str]) -> None:
    """Remove the private queues' keys from the broker database (best effort)."""
    try:
        import redis

        client = redis.Redis.from_url(broker_url)
        client.delete(
            *queues,
            *(f"_kombu.binding.{q}" for q in queues),
            *(f"_kombu.binding_permanent.{q}" for q in queues),
        )
    except Exception:  # a leftover key in the bench's redis database is harmless
        pass
