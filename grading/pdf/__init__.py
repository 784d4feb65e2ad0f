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

One module per concern, each importing only those before it: `fetch` (what WeasyPrint may
fetch), `stamps` (the rubric a paper is printed with), `sheets` (what a paper shows, and its
full text), `render` (WeasyPrint: a paper, papers, a packet) and `folder` (a batch written
to a folder). Callers import from the package.
"""

from .fetch import (
    STATIC_SCHEME,
    StaticFetcher,
    url_fetcher,
)
from .folder import (
    ATTEMPTS_SUFFIX,
    ERROR_SUFFIX,
    MAX_RENDER_ATTEMPTS,
    competition_papers,
    paper_filename,
    papers_clear,
    papers_failed,
    papers_last_written,
    papers_write,
)
from .render import (
    packet_pdf,
    paper_pdf,
    papers_pdf,
    render_pdf,
    sheets_pdf,
)
from .sheets import (
    GridRow,
    Sheet,
    SheetItem,
    SheetTask,
    paper_sheets,
    paper_text,
    sheet_builder,
)
from .stamps import (
    NO_RUBRIC,
    RUBRIC_SUFFIX,
    StalePaper,
    papers_replaced,
    papers_stale,
    rubric_stamp,
    rubric_stamps,
)

__all__ = [
    "ATTEMPTS_SUFFIX",
    "ERROR_SUFFIX",
    "GridRow",
    "MAX_RENDER_ATTEMPTS",
    "NO_RUBRIC",
    "RUBRIC_SUFFIX",
    "STATIC_SCHEME",
    "Sheet",
    "SheetItem",
    "SheetTask",
    "StalePaper",
    "StaticFetcher",
    "competition_papers",
    "packet_pdf",
    "paper_filename",
    "paper_pdf",
    "paper_sheets",
    "paper_text",
    "papers_clear",
    "papers_failed",
    "papers_last_written",
    "papers_pdf",
    "papers_replaced",
    "papers_stale",
    "papers_write",
    "render_pdf",
    "rubric_stamp",
    "rubric_stamps",
    "sheet_builder",
    "sheets_pdf",
    "url_fetcher",
]
