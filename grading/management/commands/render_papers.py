import time
from pathlib import Path

from django.core.management.base import CommandError

from grading.batches import STALL_AFTER_SECONDS
from grading.errors import GradingError
from grading.pdf import (
    competition_papers,
    papers_clear,
    papers_failed,
    papers_last_written,
    papers_stale,
    rubric_stamps,
)
from grading.tasks import render_papers_task
from ioleval.commands import AppCommand
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
        # Tasks skip the PDFs already in the folder (so that a task delivered again resumes):
        # clear this run's papers first, so that each is rendered afresh.
        papers = competition_papers(competition, problem)
        codes = [p.code for p in papers]
        stale = papers_stale(out, rubric_stamps(papers))
        try:
            if not options["resume"]:
                papers_clear(papers, out)
        except GradingError as error:
            raise CommandError(str(error)) from error
        started = time.perf_counter()
        # One task per problem, so that several workers share the batch.
        results = [render_papers_task.delay(competition.pk, str(out), n) for n in numbers]
        self._wait(results, out, codes, options["stall_after"])
        try:
            written = sum(result.get() for result in results)
        except GradingError as error:
            raise CommandError(str(error)) from error
        elapsed = time.perf_counter() - started
        self.stdout.write(f"{written} PDF papers written to {out} in {elapsed:.1f} s")
        if stale:
            self.stdout.write(
                f"Replaced {len(stale)} PDFs printed with a rubric that has changed since:"
            )
            for paper in stale:
                self.stdout.write(f"  {paper.sentence}")
        failed = papers_failed(out, [p.code for p in papers])
        if failed:
            for code, reason in failed.items():
                self.stderr.write(f"{code}: {reason} (see {out / code}.error)")
            raise CommandError(
                f"{len(failed)} of {len(papers)} papers failed to render: {', '.join(failed)}"
            )

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
