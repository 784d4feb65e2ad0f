"""Automatic minus jury by problem and system: grouped horizontal bars."""

from __future__ import annotations

import math
from collections.abc import Iterable

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .style import (
    BLACK,
    NAMED,
    PALETTE,
    WIDTH,
    _get,
    _label,
    _number,
    _rectangles,
    _render,
    no_data_svg,
)

_BAR = 0.075  # inches per bar
_GROUP_GAP = 0.12  # inches between systems


def divergence_bars(
    rows: Iterable,
    *,
    title: str = "Automatic minus jury, per problem and system",
) -> str:
    """Draw automatic minus jury (both 0-100) as grouped horizontal bars, one group per system.

    `rows`: `problem`, `system`, `difference` (automatic minus jury, points of 100). Colour
    tells the problem; the sign is told without colour too: bars where the jury is higher
    are hatched, and the axis says which side is which. Systems and problems keep the order
    in which they first appear.
    """
    cells: dict[tuple[str, str], float] = {}
    systems: list[str] = []
    problems: list[str] = []
    for row in rows:
        value = _number(_get(row, "difference"))
        if value is None:
            continue
        system, problem = _label(_get(row, "system", "")), _label(_get(row, "problem", ""))
        if system not in systems:
            systems.append(system)
        if problem not in problems:
            problems.append(problem)
        cells[(system, problem)] = value
    if not cells:
        return no_data_svg(title)
    everyone = len(systems)
    if everyone > NAMED:
        gap: dict[str, float] = {}
        for (system, _), value in cells.items():
            gap[system] = max(gap.get(system, 0.0), abs(value))
        kept = set(sorted(systems, key=lambda s: (-gap[s], s))[:NAMED])
        systems = [s for s in systems if s in kept]
        cells = {key: v for key, v in cells.items() if key[0] in kept}
    n_sys, n_prob = len(systems), len(problems)
    height = 1.3 + 0.35 * math.ceil(n_prob / 6) + n_sys * (n_prob * _BAR + _GROUP_GAP)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="y", visible=False)
        bar = 0.8 / n_prob
        for j, problem in enumerate(problems):
            colour = PALETTE[j % len(PALETTE)]
            extra = "" if j < len(PALETTE) else ".."  # colours repeat past eight problems
            bars = [
                (i - 0.4 + bar * (j + 0.5), cells[(system, problem)])
                for i, system in enumerate(systems)
                if (system, problem) in cells
            ]
            # One call per problem and sign: a call per bar is most of the rendering time.
            for negative in (False, True):
                chosen = [(y, v) for y, v in bars if (v < 0) is negative]
                if chosen:
                    half = bar * 0.46
                    _rectangles(
                        ax,
                        [(0.0, y - half, v, 2 * half) for y, v in chosen],
                        facecolor=colour,
                        edgecolor="#333333",
                        linewidth=0.4,
                        hatch=("////" if negative else "") + extra or None,
                    )
        ax.axvline(0, color=BLACK, linewidth=0.8)
        ax.set_yticks(range(n_sys), systems, parse_math=False)
        ax.set_ylim(n_sys - 0.5, -0.5)
        reach = max(10.0, max(abs(v) for v in cells.values()) * 1.08)
        ax.set_xlim(-min(reach, 105.0), min(reach, 105.0))
        ax.set_xlabel(
            "\u2190 jury higher (hatched)    automatic \u2212 jury, points of 100"
            "    automatic higher \u2192"
        )
        handles = [
            Patch(
                facecolor=PALETTE[j % len(PALETTE)],
                edgecolor="#333333",
                hatch=".." if j >= len(PALETTE) else None,
                label=problem,
            )
            for j, problem in enumerate(problems)
        ]
        handles.append(Patch(facecolor="white", edgecolor="#333333", label="automatic higher"))
        handles.append(
            Patch(facecolor="white", edgecolor="#333333", hatch="////", label="jury higher")
        )
        legend = figure.legend(
            handles=handles, loc="outside upper center", ncols=min(len(handles), 6)
        )
        for text in legend.get_texts():
            text.set_parse_math(False)
        if n_sys < everyone:
            ax.set_title(
                f"the {n_sys} systems with the largest gaps, of {everyone}", fontsize=8, loc="left"
            )

    data = (tuple(systems), tuple(problems), tuple(sorted(cells.items())), everyone)
    return _render(title, data, (WIDTH, height), draw)


# --- 3. placement among the contestants ------------------------------------------------------
