"""Charts of the result review as inline SVG strings, drawn by matplotlib on the server.

Plain data in (dataclasses below, or mappings / objects with the same field names), SVG
markup out, ready to be put into a page or the PDF report as it is: no XML prolog, a
`role="img"` root with an `aria-label` and a `<title>`, `width="100%"` and a viewBox, text
kept as `<text>` (searchable, small). Nothing here imports Django or the ORM.

Thread safety: pyplot is never imported (no global figure registry, no GUI backend); each
chart is its own `Figure` on an explicit SVG canvas. matplotlib's rcParams are one global
dict, read both while a figure is built and while it is saved (`svg.*`), so the style is
applied with `rc_context` inside one process-wide lock: Django request threads and Celery
workers never see each other's settings, and charts of one process render one at a time.

Untrusted text (system names, criterion codes, problem titles) is drawn literally: mathtext
is off (`text.parse_math`), so `$x$` stays two dollar signs; matplotlib escapes `<`, `>`,
`&` and quotes; control characters, which XML forbids, are replaced by spaces.

Output is deterministic: no date, no creator metadata, and the salt of matplotlib's
content-derived ids (clip paths, markers, hatches) is derived from the chart and its data,
so the same input gives the same bytes while two different charts on one page do not share
ids. The `id`s matplotlib puts on every group ("figure_1", "axes_1", ...) are dropped: they
would repeat in a page with several charts and nothing refers to them. Styles become
presentation attributes (`fill="#fff"`, not `style="fill: #fff"`) and matplotlib's `*{...}`
style sheet becomes attributes of the root: a page's strict `style-src` cannot block them,
nothing leaks onto the rest of the page, and WeasyPrint draws the same markup inline in the
PDF report without a warning per property.
"""

from .criteria import agreement_bars, difficulty_scatter
from .divergence import divergence_bars
from .placement import placement_histogram
from .scatter import jury_vs_auto_scatter
from .style import (
    LABEL_CHARS,
    MEDALS,
    NAMED,
    PALETTE,
    Agreement,
    CriterionDifficulty,
    Divergence,
    SystemScore,
    no_data_svg,
)

__all__ = [
    "LABEL_CHARS",
    "MEDALS",
    "NAMED",
    "PALETTE",
    "Agreement",
    "CriterionDifficulty",
    "Divergence",
    "SystemScore",
    "agreement_bars",
    "difficulty_scatter",
    "divergence_bars",
    "jury_vs_auto_scatter",
    "no_data_svg",
    "placement_histogram",
]
