import time
from pathlib import Path

from django.core.management.base import CommandError

from grading.batches import STALL_AFTER_SECONDS
from grading.pdf import (
    competition_papers,
    papers_clear,
    papers_failed,
    papers_last_written,
    papers_stale,
    rubric_stamps,
)
from grading.tasks import render_papers_task
from ioleval.celery import QueueUnavailable, connection_errors, queue_check
from ioleval.commands import AppCommand
from puzzles.management.commands._base import import_errors
from puzzles.models import Competition


class Command(AppCommand):
    help = (
        "Render each paper of a competition as <code>.pdf in a folder, through Celery "
        "(in-process when no broker is configured). A paper that fails to render leaves "
        "<code>.error with the reason; the others are written and the command exits non-zero "
        "naming the failed papers. Each PDF states its rubric version; PDFs in the folder "
        "printed with a rubric that has changed since are replaced, and listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--out", required=True, help="Folder for the PDFs (created).")
        parser.add_argument("--problem", type=int, help="Only this problem's papers.")
        parser.add_argument(
            "--resume",
            action="store_true",
            help="Keep the PDFs already in the folder and render only the missing papers (and "
            "those printed with a rubric that has changed since).",
        )
        parser.add_argument(
            "--stall-after",
            type=int,
            default=STALL_AFTER_SECONDS,
            metavar="SECONDS",
            help="Give up when no paper was written for this long (default %(default)s).",
        )

    def handle(self, *args, **options):
        with import_errors():  # a refusal (no broker, a bad code) exits non-zero, no traceback
            self._render(options)

    def _render(self, options: dict) -> None:
        competition = Competition.objects.filter(slug=options["slug"]).first()
        if competition is None:
            raise CommandError(f"no competition {options['slug']!r}")
        problem = options["problem"]
        if problem is not None and not competition.problems.filter(number=problem).exists():
            raise CommandError(f"no problem {problem} in {competition.slug}")
        problems = competition.problems.filter(papers__isnull=False).distinct()
        if problem is not None:
            problems = problems.filter(number=problem)
        numbers = sorted(problems.values_list("number", flat=True))
        if not numbers:
            raise CommandError(f"no papers in {competition.slug}; run select_for_jury first")
        # A worker may run elsewhere: give it an absolute path (on a shared disk).
        out = Path(options["out"]).expanduser().resolve()
        papers = competition_papers(competition, problem)
        codes = [p.code for p in papers]
        stale = papers_stale(out, rubric_stamps(papers))
        # Nothing is cleared unless the tasks can be queued: a broker or result backend that
        # is down leaves the folder as it was (QueueUnavailable, a refusal).
        queue_check()
        # Tasks skip the PDFs already in the folder (so that a task delivered again resumes):
        # clear this run's papers first, so that each is rendered afresh.
        if not options["resume"]:
            papers_clear(papers, out)
        started = time.perf_counter()
        # One task per problem, so that several workers share the batch.
        results = self._queue(competition.pk, out, numbers)
        try:
            self._wait(results, out, codes, options["stall_after"])
            # Not raised here: a task's own error is not the result backend's.
            outcomes = [result.get(propagate=False) for result in results]
        except connection_errors():
            raise CommandError(
                "the Celery result backend cannot be reached, so the rendering cannot be"
                f" followed; the papers written so far are in {out}: run the command again"
                " with --resume once it is back"
            ) from None
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        written = sum(outcomes)
        elapsed = time.perf_counter() - started
        self.stdout.write(f"{written} PDF papers written to {out} in {elapsed:.1f} s")
        # Replaced: a PDF is there now, printed with the current rubric. A stale paper whose
        # new rendering failed keeps its old PDF (or, cleared, has none) and is named below.
        still = {paper.code for paper in papers_stale(out, rubric_stamps(papers))}
        replaced = [
            paper
            for paper in stale
            if paper.code not in still and (out / f"{paper.code}.pdf").exists()
        ]
        if replaced:
            self.stdout.write(
                f"Replaced {len(replaced)} PDFs printed with a rubric that has changed since:"
            )
            for paper in replaced:
                self.stdout.write(f"  {paper.sentence}")
        failed = papers_failed(out, [p.code for p in papers])
        if failed:
            for code, reason in failed.items():
                self.stderr.write(f"{code}: {reason} (see {out / code}.error)")
            raise CommandError(
                f"{len(failed)} of {len(papers)} papers failed to render: {', '.join(failed)}"
            )

    def _queue(self, competition_id: int, out: Path, numbers: list[int]) -> list:
        """Queue one task per problem; when the broker goes away partway, say what was."""
        results = []
        for number in numbers:
            try:
                results.append(render_papers_task.delay(competition_id, str(out), number))
            except QueueUnavailable:
                if not results:
                    raise
                queued = ", ".join(str(n) for n in numbers[: len(results)])
                were = "s were" if len(results) > 1 else " was"
                raise CommandError(
                    f"the task queue (Celery broker) went away after problem{were} {queued}"
                    f" queued (rendered into {out} if a worker runs), and the others were not:"
                    " run the command again with --resume once the broker is back"
                ) from None
        return results

    def _wait(self, results, out: Path, codes: list[str], stall_after: int) -> None:
        """Wait for the tasks; give up, saying how to carry on, when no paper comes."""
        since = time.time()
        while not all(result.ready() for result in results):
            last = max(papers_last_written(out, codes), since)
            if time.time() - last >= stall_after:
                done = len(list(out.glob("*.pdf")))
                raise CommandError(
                    f"no paper written for {stall_after} s: is a worker running"
                    f" (celery -A ioleval worker)? {done} of {len(codes)} papers are in {out};"
                    " run the command again with --resume to render the rest"
                )
            time.sleep(0.5)
