"""PDF papers for jurors: one paper, a juror's packet, a batch written to a folder.

Model text is untrusted: it reaches the HTML escaped, or (explanations) as markdown
sanitized by `grading.text.explanation_html`, and WeasyPrint gets a URL fetcher that
reads nothing but `data:` URLs and the app's own static files. Templates receive plain
dataclasses of strings, never a Paper, so no template can reach the system behind a code.
Model text is bounded too (`grading.text`): explanations and answers are cut with a note,
and long unbreakable runs get break opportunities, so that no paper takes WeasyPrint long.
A batch renders paper by paper: one that fails leaves `<code>.error` and the rest are
written; `paper_text` is the full text that the notes point to.

Each paper states the rubric it was printed with (`rubric_stamp`: the version and a digest
of the criteria as printed, since a rubric without marks is edited in place), and a batch
folder keeps it beside the PDF (`.<code>.rubric`): a PDF whose rubric has changed since is
stale, and rendering into the folder again replaces it and records what it replaced.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mimetypes
import os
import re
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote

from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from puzzles.models import Competition, Output, Problem, Task

from ..errors import GradingError
from ..models import Paper, Rubric
from ..selectors import (
    HELD_ELSEWHERE_NOTE,
    answers_held_elsewhere,
    current_rubrics,
    external_system_ids,
    paper_answers,
    paper_answers_of,
    paper_held_elsewhere,
)
from ..text import (
    answer_text,
    breakable_html,
    breakable_text,
    explanation_html,
    points_text,
)

logger = logging.getLogger(__name__)

# WeasyPrint logs every rendering step at INFO; keep workers' and commands' logs readable
# unless the LOGGING setting chose a level for it.
_progress_logger = logging.getLogger("weasyprint.progress")
if _progress_logger.level == logging.NOTSET:
    _progress_logger.setLevel(logging.WARNING)

# Templates name static files as `ioleval-static:fonts/DejaVuSans.ttf`: a scheme of our
# own, so that no base URL is needed and every relative reference stays unresolved.
STATIC_SCHEME = "ioleval-static"
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_STATIC_PATH = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$")
# Paper codes become file names: letters, digits and inner hyphens only.
_SAFE_CODE = re.compile(r"^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$")


class StaticFetcher(URLFetcher):
    """Fetch `data:` URLs and the app's static files; refuse every other URL."""

    def __init__(self) -> None:
        super().__init__(timeout=5, allowed_protocols={"data"}, allow_redirects=False)

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        match = _SCHEME.match(url)
        scheme = match[1].lower() if match else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == STATIC_SCHEME:
            return _static_response(url, url[match.end() :])
        raise ValueError(
            f"refused: only data: and {STATIC_SCHEME}: URLs are fetched ({url[:60]!r})"
        )


def url_fetcher(url: str) -> URLFetcherResponse:
    """Fetch a URL the way paper PDFs do: data: and static files only, else ValueError."""
    return StaticFetcher().fetch(url)


def _static_roots() -> list[Path]:
    roots = []
    for finder in finders.get_finders():
        for storage in getattr(finder, "storages", {}).values():
            location = getattr(storage, "location", None)
            if location:
                roots.append(Path(location).resolve())
    return roots


def _static_response(url: str, rest: str) -> URLFetcherResponse:
    path = unquote(rest)
    if not _STATIC_PATH.match(path) or any(part in {".", ".."} for part in path.split("/")):
        raise ValueError(f"refused: not a static file path ({rest[:60]!r})")
    found = finders.find(path)
    if not found:
        raise ValueError(f"refused: no static file {path!r}")
    real = Path(found).resolve()
    # A symlink inside a static folder must not lead out of it.
    if not real.is_file() or not any(real.is_relative_to(root) for root in _static_roots()):
        raise ValueError(f"refused: {path!r} is outside the static folders")
    content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if content_type.startswith("text/"):
        content_type += "; charset=utf-8"
    return URLFetcherResponse(url, real.read_bytes(), {"Content-Type": content_type})


# --- what a paper shows ---------------------------------------------------------------------


@dataclass(frozen=True)
class SheetItem:
    label: str
    prompt: str
    answer: str  # as shown: cut to ANSWER_LIMIT, with break opportunities
    answer_length: int = 0  # of the whole answer, when it was cut; else 0

    @property
    def answer_truncated(self) -> bool:
        return self.answer_length > 0


@dataclass(frozen=True)
class SheetTask:
    number: int
    kind: str
    query: str
    items: list[SheetItem]
    has_prompts: bool
    explanation: SafeString
    explanation_same_as: int | None  # an earlier assignment with the same explanation


@dataclass(frozen=True)
class GridRow:
    code: str
    title: str
    description: str
    kind: str
    maximum: Decimal
    step: Decimal

    @property
    def maximum_text(self) -> str:
        return points_text(self.maximum)

    @property
    def step_text(self) -> str:
        return points_text(self.step)


@dataclass(frozen=True)
class Sheet:
    """A paper as a juror reads it: no system, team, tier, rank, key or score."""

    code: str
    competition: str
    problem_number: int
    problem_title: str
    language: str
    context: str
    tasks: list[SheetTask]
    grid: list[GridRow]
    held_elsewhere: bool = False  # its answers are outside ioleval: the sheet says so instead
    rubric: str = ""  # rubric_stamp of the grid: the rubric this paper is printed with

    @property
    def total_maximum(self) -> Decimal:
        return sum((row.maximum for row in self.grid), Decimal(0))

    @property
    def total_text(self) -> str:
        return points_text(self.total_maximum)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " / ".join(_text(v) for v in value)
    return str(value)


def _sheet_task(row: dict) -> SheetTask:
    task: Task = row["task"]
    items = []
    for item in row["items"]:
        answer = answer_text(_text(item["answer"]).strip())
        items.append(
            SheetItem(
                label=item["label"],
                prompt=breakable_text(item["prompt"]),
                answer=breakable_text(answer.text),
                answer_length=answer.length if answer.truncated else 0,
            )
        )
    explanation = (row["explanation"] or "").strip()
    same_as = row["explanation_same_as"]
    return SheetTask(
        number=task.number,
        kind=task.get_task_type_display(),
        query=breakable_text(task.query),
        items=items,
        has_prompts=row["has_prompts"],
        explanation=(
            SafeString(breakable_html(explanation_html(explanation)))
            if same_as is None
            else SafeString("")
        ),
        explanation_same_as=same_as,
    )


def paper_sheets(papers: Iterable[Paper]) -> list[Sheet]:
    """Return each paper's sheet, in the given order, in a fixed number of queries."""
    papers = list(papers)
    build = sheet_builder(papers)
    return [build(paper) for paper in papers]


def sheet_builder(papers: list[Paper]) -> Callable[[Paper], Sheet]:
    """Load what the papers' sheets need in a fixed number of queries; return a builder.

    Building is per paper, so that a caller can isolate a paper whose text fails to render.
    """
    problem_ids = {p.problem_id for p in papers}
    problems = {
        p.pk: p for p in Problem.objects.filter(pk__in=problem_ids).select_related("competition")
    }
    tasks: dict[int, list[Task]] = defaultdict(list)
    for task in Task.objects.filter(problem_id__in=problem_ids).order_by("problem_id", "number"):
        tasks[task.problem_id].append(task)
    outputs = {
        (o.system_id, o.task_id): o
        for o in Output.objects.filter(
            task__problem_id__in=problem_ids, system_id__in={p.system_id for p in papers}
        ).only(
            "system_id",
            "task_id",
            "source",
            "parsed_items",
            "extracted_items",
            "explanation",
            "scores",
        )
    }
    criteria = current_rubrics(problem_ids)
    stamps = _stamps(criteria)
    problem_of = {t.pk: t.problem_id for problem_tasks in tasks.values() for t in problem_tasks}
    answered = {(system_id, problem_of[task_id]) for system_id, task_id in outputs}
    # Only papers without outputs may be held elsewhere: ask about their systems alone.
    bare = {p.system_id for p in papers if (p.system_id, p.problem_id) not in answered}
    external = external_system_ids(bare) if bare else set()

    def build(paper: Paper) -> Sheet:
        problem = problems[paper.problem_id]
        problem_tasks = tasks[problem.pk]
        rows = paper_answers(
            paper, problem_tasks, [outputs.get((paper.system_id, t.pk)) for t in problem_tasks]
        )
        return Sheet(
            code=paper.code,
            competition=problem.competition.name,
            problem_number=problem.number,
            problem_title=problem.title,
            language=problem.language_label,
            context=breakable_text(problem.context),
            tasks=[_sheet_task(row) for row in rows],
            grid=[
                GridRow(c.code, c.title, c.description, c.get_kind_display(), c.maximum, c.step)
                for c in criteria.get(problem.pk, [])
            ],
            held_elsewhere=answers_held_elsewhere(
                external=paper.system_id in external,
                has_outputs=(paper.system_id, paper.problem_id) in answered,
            ),
            rubric=stamps.get(problem.pk, NO_RUBRIC),
        )

    return build


# --- the rubric a paper is printed with -----------------------------------------------------

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


def _stamps(criteria: dict[int, list]) -> dict[int, str]:
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
    stamps = _stamps(current_rubrics({p.problem_id for p in papers}))
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


def _rubric_note(target: Path) -> Path:
    return target.with_name(f".{target.stem}{RUBRIC_SUFFIX}")


def _rubric_read(target: Path) -> dict:
    try:
        return json.loads(_rubric_note(target).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def papers_stale(out_dir: Path, stamps: dict[str, str]) -> list[StalePaper]:
    """Return the PDFs in out_dir (of these codes) printed with another rubric than stamps."""
    stale = []
    for code, current in stamps.items():
        target = out_dir / f"{code}.pdf"
        if target.exists():
            printed = _rubric_read(target).get("rubric", "")
            if printed != current:
                stale.append(StalePaper(code, printed, current))
    return stale


def papers_replaced(out_dir: Path, codes: Iterable[str]) -> list[StalePaper]:
    """Return the PDFs in out_dir that replaced a stale one, with the rubric they replaced."""
    replaced = []
    for code in codes:
        note = _rubric_read(out_dir / f"{code}.pdf")
        if "replaced" in note:
            replaced.append(StalePaper(code, note["replaced"], note["rubric"]))
    return replaced


# --- rendering ------------------------------------------------------------------------------


_local = threading.local()


def _paper_style() -> tuple[CSS, FontConfiguration]:
    # Parsing the stylesheet and loading its fonts is a third of a paper's rendering time:
    # do it once per thread (and on every call while DEBUG, so that edits show).
    style = getattr(_local, "style", None)
    if style is None or settings.DEBUG:
        fonts = FontConfiguration()
        # A template, not a static file: collectstatic's manifest storage would try to
        # hash the ioleval-static: font URLs in it as if they were relative paths.
        css = CSS(
            string=render_to_string("grading/pdf/paper.css"),
            base_url=None,
            url_fetcher=StaticFetcher(),
            font_config=fonts,
        )
        style = _local.style = (css, fonts)
    return style


def render_pdf(html: str) -> bytes:
    """Render HTML with the paper stylesheet (paper.css), no base URL and the static-only fetcher."""
    css, fonts = _paper_style()
    document = HTML(string=html, base_url=None, url_fetcher=StaticFetcher())
    return document.write_pdf(stylesheets=[css], font_config=fonts)


def sheets_pdf(sheets: list[Sheet], *, title: str) -> bytes:
    """Render sheets into one PDF, each paper starting on a new page."""
    html = render_to_string("grading/pdf/paper.html", {"sheets": sheets, "title": title})
    return render_pdf(html)


def paper_pdf(paper: Paper) -> bytes:
    """Return the PDF of one paper."""
    return sheets_pdf(paper_sheets([paper]), title=f"Paper {paper.code}")


def papers_pdf(papers: Iterable[Paper]) -> bytes:
    """Return one PDF of several papers, each starting on a new page."""
    sheets = paper_sheets(papers)
    return sheets_pdf(sheets, title=f"{len(sheets)} papers")


def packet_pdf(juror, problem: Problem) -> bytes:
    """Return the juror's papers for the problem in one PDF, ordered by code."""
    papers = Paper.objects.filter(problem=problem, assignments__juror=juror).order_by("code")
    sheets = paper_sheets(papers)
    if not sheets:
        raise GradingError(f"{juror} has no papers of problem {problem.number}")
    return sheets_pdf(sheets, title=f"Problem {problem.number}: papers of {juror}")


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
        if current and _rubric_read(target).get("rubric") != stamps[paper.code]:
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
        printed = _rubric_read(target).get("rubric", "")
        if printed != sheet.rubric:
            note["replaced"] = printed
            logger.info("paper %s: replaced (rubric %s, now %s)", paper.code, printed, sheet.rubric)
    # The PDF first: a crash between the two leaves a current PDF taken for stale (rendered
    # again), never a stale one taken for current.
    os.replace(partial, target)
    rubric_note = _rubric_note(target)
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
        _rubric_note(target).unlink(missing_ok=True)


def paper_text(paper: Paper) -> str:
    """Return the paper's answers and explanations in full, as plain text.

    Pages and PDFs cut long model text with a note that points here. Like a sheet, it holds
    no system, team, tier, rank, key or score.
    """
    problem = paper.problem
    title = f"Problem {problem.number}" + (f": {problem.title}" if problem.title else "")
    lines = [f"Paper {paper.code} · {title}"]
    if paper_held_elsewhere(paper):
        return "\n".join([*lines, "", HELD_ELSEWHERE_NOTE]) + "\n"
    lines.append("The answers and explanations of this paper in full, as the system gave them.")
    for row in paper_answers_of(paper):
        task: Task = row["task"]
        lines += ["", "", f"== Assignment {task.number} ({task.get_task_type_display()}) =="]
        lines += ["", "Answers:"]
        for item in row["items"]:
            lines.append(f"{item['number']}. {_text(item['answer']).strip()}")
        lines += ["", "Explanation:", (row["explanation"] or "").strip() or "(none)"]
    return "\n".join(lines) + "\n"
