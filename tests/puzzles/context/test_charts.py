"""The corpus chart: an SVG element fit for the page, deterministic, text drawn literally."""

from __future__ import annotations

import re

from puzzles.context.lab.charts import max_dq_bars


def test_the_bars_are_an_accessible_deterministic_svg():
    svg = max_dq_bars({0: 3, 2: 5})
    assert svg.startswith("<svg") and 'role="img"' in svg and 'width="100%"' in svg
    assert "<title>Puzzles by max D_Q</title>" in svg
    assert "<?xml" not in svg and "<style" not in svg and ' id="figure_1"' not in svg
    assert svg == max_dq_bars({0: 3, 2: 5})
    # Every value from 0 to the largest is a tick, the empty 1 included; counts label bars.
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert {"0", "1", "2", "3", "5"} <= set(texts)


def test_a_title_is_escaped_and_not_read_as_math():
    svg = max_dq_bars({1: 1}, title='<b>$x$ & "y"')
    assert "<title>&lt;b&gt;$x$ &amp; &quot;y&quot;</title>" in svg
    assert "<b>" not in svg


def test_no_puzzles_is_a_small_no_data_chart():
    svg = max_dq_bars({})
    assert "No puzzles" in svg and svg.startswith("<svg")
