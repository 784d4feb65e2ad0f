"""The mean EM chart of the context lab's results page: pure, deterministic, safe to inline."""

from __future__ import annotations

import re

from puzzles.context.results.charts import mean_em_bars
from puzzles.context.results.outcomes import ConditionSummary


def _row(model: str, condition: str, em: float) -> ConditionSummary:
    return ConditionSummary(model, condition, 2, em, 0, em, None, None, None, None)


ROWS = [
    _row("m<b>", "original", 0.8),
    _row("m<b>", "no_context", 0.1),
    _row("m2", "original", 0.6),
    _row("m2", "targeted", 0.35),
]


def test_the_chart_draws_every_bar_in_condition_order_and_escapes_names():
    svg = mean_em_bars(ROWS)
    assert svg.startswith("<svg") and 'role="img"' in svg
    assert "<title>Mean EM per model and condition</title>" in svg
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    # Bar labels, with "n/a" for the model without a run under a condition.
    for value in ("0.80", "0.10", "0.60", "0.35", "n/a"):
        assert value in texts, value
    assert texts.count("n/a") == 2  # m<b> has no targeted run, m2 no no_context run
    ticks = [t for t in texts if t in ("original", "targeted", "no context", "random")]
    assert ticks == ["original", "targeted", "no context"]  # no random run: no group
    assert "m&lt;b&gt;" in svg and "m<b>" not in svg


def test_the_chart_is_deterministic_and_has_no_style_attribute_or_script():
    svg = mean_em_bars(ROWS)
    assert svg == mean_em_bars(list(reversed(ROWS)))
    assert " style=" not in svg and "<script" not in svg and "<style" not in svg
    assert mean_em_bars(ROWS[:2]) != svg


def test_no_rows_give_a_no_data_chart():
    svg = mean_em_bars([])
    assert "No solver answers yet" in svg and svg.startswith("<svg")
