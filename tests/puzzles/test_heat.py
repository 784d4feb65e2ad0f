"""The leaderboard's heat-map cells keep their figures readable (WCAG 1.4.3, 4.5:1)."""

from __future__ import annotations

import colorsys
import re

from puzzles.templatetags.puzzles_tags import heat


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(style: str) -> float:
    hue, saturation, lightness, ink = re.fullmatch(
        r"background: hsl\((\d+), (\d+)%, (\d+)%\); color: (#[0-9a-f]{3})", style
    ).groups()
    # The browser rounds hsl() to 8-bit channels before painting.
    background = tuple(
        round(c * 255) / 255
        for c in colorsys.hls_to_rgb(int(hue) / 360, int(lightness) / 100, int(saturation) / 100)
    )
    text = tuple(int(d * 2, 16) / 255 for d in ink[1:])
    light, dark = sorted((_luminance(background), _luminance(text)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_heat_cell_reaches_aa_contrast():
    ratios = {value: _contrast(heat(value / 1000)) for value in range(1001)}
    worst = min(ratios, key=ratios.get)
    assert ratios[worst] >= 4.5, (worst / 1000, heat(worst / 1000), ratios[worst])


def test_a_missing_figure_is_a_white_cell_with_black_ink():
    assert heat(None) == "background: hsl(215, 70%, 100%); color: #000"
