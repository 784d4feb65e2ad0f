"""Juror severity: the cell + juror additive model against numpy's least squares with dummy
columns, a pair's difference by hand, what the data cannot tell, and the paper bootstrap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from grading.review.stats import JurorEffect, effect_sentence, juror_effects
from grading.review.stats.severity import ALONE, GROUP, PAIR


def lstsq_effects(rows, jurors):
    """Fit mark = cell + juror by numpy.linalg.lstsq with one dummy column per cell and per
    juror, on cells with two or more marks, and return the juror effects centred to sum 0
    (the model's juror effects are identified only up to a constant)."""
    count = {}
    for _, cell, _, _ in rows:
        count[cell] = count.get(cell, 0) + 1
    rows = [r for r in rows if count[r[1]] >= 2]
    cells = sorted({r[1] for r in rows}, key=str)
    design = np.zeros((len(rows), len(cells) + len(jurors)))
    y = np.zeros(len(rows))
    for i, (_, cell, juror, value) in enumerate(rows):
        design[i, cells.index(cell)] = 1
        design[i, len(cells) + jurors.index(juror)] = 1
        y[i] = value
    fit = np.linalg.lstsq(design, y, rcond=None)[0]
    effects = fit[len(cells) :]
    return effects - effects.mean()


def rotating_jury(seed: int, papers: int = 12, criteria: int = 3, severity=None):
    """Three jurors in rotating pairs (A-B, B-C, A-C), two per paper: linked through shared
    papers though no paper has all three."""
    severity = severity or {"A": 0.1, "B": 0.0, "C": -0.1}
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(papers):
        pair = [("A", "B"), ("B", "C"), ("A", "C")][p % 3]
        for c in range(criteria):
            truth = rng.uniform(0, 1)
            for juror in pair:
                rows.append((p, (p, c), juror, truth + severity[juror] + rng.normal(0, 0.05)))
    return rows


@pytest.mark.parametrize("seed", range(4))
def test_effects_are_the_least_squares_fit_of_cell_plus_juror(seed):
    rng = np.random.default_rng(seed)
    jurors = ["A", "B", "C", "D"]
    rows = []
    for p in range(10):
        # an unbalanced design: two, three or four jurors per paper, some marks missing
        chosen = list(rng.choice(jurors, size=rng.integers(2, 5), replace=False))
        for c in range(3):
            for juror in chosen:
                if rng.random() < 0.85:
                    rows.append((p, (p, c), juror, float(rng.integers(0, 5)) / 4))
    got = juror_effects(rows, resamples=0)
    order = [e.rater for e in got]
    assert all(e.kind == GROUP for e in got)
    np.testing.assert_allclose([e.effect for e in got], lstsq_effects(rows, order), atol=1e-10)


def test_three_jurors_in_rotating_pairs_are_identified():
    rows = rotating_jury(0)
    a, b, c = juror_effects(rows, resamples=2_000)
    np.testing.assert_allclose(
        [a.effect, b.effect, c.effect], lstsq_effects(rows, ["A", "B", "C"]), atol=1e-10
    )
    assert a.kind == GROUP and set(a.peers) == {"B", "C"}
    assert (a.cells, a.papers) == (24, 8)
    assert a.clear and a.effect > 0 and c.clear and c.effect < 0
    assert effect_sentence(a).endswith("more lenient than the average juror")
    assert "average of the 3 jurors linked by shared papers" in effect_sentence(a)


def test_two_jurors_only_their_difference_by_hand():
    # A marks every shared cell 0.2 above B, but for one cell where both gave 0.5; the
    # difference is the mean of A - B over the shared cells: (0.2 * 3 + 0) / 4 = 0.15.
    rows = []
    for p, (a, b) in enumerate([(0.7, 0.5), (0.4, 0.2), (1.0, 0.8), (0.5, 0.5)]):
        rows += [(p, (p, "x"), "A", a), (p, (p, "x"), "B", b)]
    got_a, got_b = juror_effects(rows, resamples=0)
    assert (got_a.kind, got_a.peers, got_b.peers) == (PAIR, ("B",), ("A",))
    assert got_a.effect == pytest.approx(0.15) and got_b.effect == pytest.approx(-0.15)
    sentence = effect_sentence(got_a)
    assert sentence.startswith(
        "marks 0.150 of a criterion's maximum above B on the cells they share"
    )
    assert "only the difference between them is identified, not which of them is off" in sentence


def test_a_juror_who_shares_no_cell_cannot_be_told():
    rows = rotating_jury(1) + [(99, (99, 0), "D", 0.5), (98, (98, 0), "D", 0.25)]
    *_, d = juror_effects(rows, resamples=200)
    assert d == JurorEffect("D", ALONE, (), None, None, 0, 0)
    assert effect_sentence(d).startswith("shares no cell with another juror, so the data cannot")


def test_separate_groups_are_measured_apart():
    rows = []  # A and B share papers 0-3, C and D papers 10-13; the pairs never meet
    for p in range(4):
        rows += [(p, (p, 0), "A", 0.5 + p / 10), (p, (p, 0), "B", 0.3 + p / 10)]
        rows += [(10 + p, (10 + p, 0), "C", 0.2), (10 + p, (10 + p, 0), "D", 0.6)]
    a, b, c, d = juror_effects(rows, resamples=0)
    assert (a.peers, b.peers, c.peers, d.peers) == (("B",), ("A",), ("D",), ("C",))
    assert a.effect == pytest.approx(0.2) and c.effect == pytest.approx(-0.4)


def test_the_interval_is_the_exact_paper_bootstrap_of_the_fit():
    # Five papers: every one of the 5^5 ordered draws of papers, each fitted by lstsq.
    rows = rotating_jury(2, papers=5, criteria=2)
    got = juror_effects(rows, resamples=10_000)
    assert all(e.boot.exact for e in got)
    by_paper = {p: [r for r in rows if r[0] == p] for p in range(5)}
    estimates = []
    for draw in itertools.product(range(5), repeat=5):
        drawn = []
        for copy, p in enumerate(draw):  # each copy of a paper is a paper of its own
            drawn += [(copy, (copy, cell), j, v) for _, cell, j, v in by_paper[p]]
        jurors = sorted({r[2] for r in drawn})
        if jurors != ["A", "B", "C"] or not _linked(drawn):
            estimates.append(None)
            continue
        estimates.append(lstsq_effects(drawn, jurors))
    for i, effect in enumerate(got):
        kept = sorted(e[i] for e in estimates if e is not None)
        low = kept[math.ceil(0.025 * len(kept)) - 1]
        high = kept[math.ceil(0.975 * len(kept)) - 1]
        assert effect.ci == pytest.approx((low, high), abs=1e-9)


def _linked(rows) -> bool:
    """Whether the jurors of rows are linked by shared cells (a plain graph search)."""
    cells = {}
    for _, cell, juror, _ in rows:
        cells.setdefault(cell, set()).add(juror)
    jurors = {r[2] for r in rows}
    seen, todo = set(), [next(iter(jurors))]
    while todo:
        j = todo.pop()
        if j in seen:
            continue
        seen.add(j)
        todo += [o for group in cells.values() if j in group for o in group]
    return seen == jurors


def test_points_on_a_whole_paper():
    rows = []
    for p, (a, b) in enumerate([(0.75, 0.5), (0.5, 0.25), (1.0, 0.75)]):
        rows += [(p, (p, "x"), "A", a), (p, (p, "x"), "B", b)]
    a, _ = juror_effects(rows, resamples=0)
    assert "0.250 of a criterion's maximum (5.0 points on a paper of 20.0)" in effect_sentence(
        a, scale=20
    )


def test_resamples_that_unlink_the_jurors_are_left_out_and_counted():
    # A chain A-B (two papers), B-C (three): a resample without one link's papers unlinks them.
    rows = []
    for p, (one, two) in enumerate([("A", "B")] * 2 + [("B", "C")] * 3):
        rows += [(p, (p, 0), one, 0.5 + p / 20), (p, (p, 0), two, 0.25 + p / 40)]
    a, b, c = juror_effects(rows, resamples=10_000)
    assert a.boot.exact and a.boot.skipped > 0
    # unlinked: no A-B paper (all five draws among the B-C ones) or no B-C paper
    assert a.boot.skipped_share == pytest.approx(0.6**5 + 0.4**5)  # 8.8%, over 5%: said
    assert "of the resampled juries left these jurors unlinked and were left out" in (
        effect_sentence(a)
    )


def test_too_few_papers_for_an_interval_and_an_effect_of_nothing():
    rows = []
    for p in range(3):
        rows += [(p, (p, "x"), "A", 0.5), (p, (p, "x"), "B", 0.5)]
    a, _ = juror_effects(rows, resamples=10_000)
    assert a.ci is None and a.note.endswith(
        "3 papers are too few for a bootstrap, which needs at least 5."
    )
    assert effect_sentence(a) == (
        "marks like B on the cells they share (3 shared cells); no interval (3 papers are too "
        "few for a bootstrap, which needs at least 5), so no verdict; with only the two of "
        "them on these papers, only the difference between them is identified, not which of "
        "them is off"
    )
