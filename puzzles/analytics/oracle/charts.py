"""The oracle chart: per task the oracle's score and the member that supplies it, and per
member its share of the oracle's result (matplotlib through `ioleval.charts`). Pure: plain
tuples (or the pure rule's `Oracle`) in, SVG markup out; no Django.

Every bar carries its supplier's name and figure as text, so the colours (one per member,
Okabe-Ito) only repeat what the labels say. Names are untrusted: they pass through
`ioleval.charts.label` and matplotlib escapes them as SVG text."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ioleval.charts import BLUE, GREEN, GREY, ORANGE, VERMILLION, label, no_data_svg

from ..charts import render
from ..stats.oracle import Oracle

TITLE = "Oracle ensemble (upper bound): score per task and the member supplying it"
NO_PREVIEW = "Choose two or more member systems"
NONE_SUPPLIED = "(no output)"
MAX_TASKS = 60  # tasks drawn; the table and the export hold them all
# Okabe-Ito, colour-blind safe; members beyond it cycle (their labels still tell them apart).
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, "#CC79A7", "#56B4E9", "#F0E442", "#000000")
# The score axis runs past 100 % so that the supplier's name fits after the longest bar.
AXIS_END = 170.0


def oracle_task_chart(
    tasks: Sequence[tuple[str, float, str | None]],
    shares: Sequence[tuple[str, float, int]],
    *,
    title: str = TITLE,
) -> str:
    """Draw (task, oracle score 0-1, supplying member or None) as one bar per task, first
    task on top, and (member, share 0-1, tasks supplied) as one bar per member below."""
    if not tasks or not shares:
        return no_data_svg(title, NO_PREVIEW)
    data = (
        tuple((t, float(s), m) for t, s, m in tasks[:MAX_TASKS]),
        tuple((m, float(s), int(n)) for m, s, n in shares),
    )
    task_rows, share_rows = data
    colour = {m: PALETTE[i % len(PALETTE)] for i, (m, _, _) in enumerate(share_rows)}

    def bars(ax, rows: list[tuple[str, float, str, str]], xlabel: str) -> None:
        """Draw (tick label, value 0-1, colour key, text) rows, the first on top."""
        count = len(rows)
        ys = [count - 1 - i for i in range(count)]
        widths = [value * 100 for _, value, _, _ in rows]
        ax.barh(ys, widths, color=[colour.get(key, GREY) for _, _, key, _ in rows], height=0.7)
        for y, width, (_, _, _, text) in zip(ys, widths, rows, strict=True):
            ax.text(width + 1.5, y, text, va="center", ha="left", fontsize=7, color="#222222")
        ax.set_yticks(ys, [tick for tick, _, _, _ in rows])
        ax.set_ylim(-0.6, count - 0.4)
        ax.set_xlim(0, AXIS_END)
        ax.set_xticks(range(0, 101, 20))
        ax.spines["bottom"].set_bounds(0, 100)
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)

    def draw(figure: Figure) -> None:
        top, bottom = figure.subplots(2, 1, height_ratios=[len(task_rows) + 1, len(share_rows) + 1])
        bars(
            top,
            [
                (
                    label(task),
                    score,
                    member or "",
                    f"{label(member) if member else NONE_SUPPLIED} · {score * 100:.1f} %",
                )
                for task, score, member in task_rows
            ],
            "oracle's score on the task (%), labelled with the member that supplies it",
        )
        bars(
            bottom,
            [
                (
                    label(member),
                    share,
                    member,
                    f"{share * 100:.1f} % of the oracle · {n} task{'s' if n != 1 else ''}",
                )
                for member, share, n in share_rows
            ],
            "member's share of the oracle's weighted task scores (%)",
        )

    height = min(1.8 + 0.26 * (len(task_rows) + len(share_rows)), 20.0)
    return render(title, data, (8.0, height), draw)


def oracle_chart(oracle: Oracle | None, *, title: str = TITLE) -> str:
    """Draw a previewed oracle; without one (fewer than two members) an empty-state chart."""
    if oracle is None:
        return no_data_svg(title, NO_PREVIEW)
    return oracle_task_chart(
        [(t.task, t.score, t.member) for t in oracle.tasks],
        [(s.member, s.share, s.tasks_supplied) for s in oracle.shares],
        title=title,
    )
