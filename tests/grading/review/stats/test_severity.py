"""Juror severity: the cell + juror additive model against numpy's least squares with dummy
columns, a pair's difference by hand, what the data cannot tell, and the paper bootstrap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from grading.review.stats import JurorEffect, effect_sentence, juror_effects
from grading.review.stats._common import Bootstrap
from grading.review.stats.severity import (
    ALONE,
    GROUP,
    PAIR,
    juror_effects_of_many,
    laplacian_solve,
)


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


# --- sentences in full, what the parameters reach, edge cases ---------------------------------


def test_a_juror_alone_in_full():
    alone = JurorEffect("D", ALONE, (), None, None, 0, 0)
    assert effect_sentence(alone) == (
        "shares no cell with another juror, so the data cannot tell this juror's severity "
        "from the quality of the papers they marked"
    )


def test_a_clear_effect_below_the_group_in_full():
    boot = Bootstrap((-0.08, -0.02), 10_000, skipped=1_000, skipped_share=0.1, mc_error=0.001)
    effect = JurorEffect("A", GROUP, ("B", "C"), -0.05, (-0.08, -0.02), 4, 2, boot, 6)
    assert effect_sentence(effect, scale=20) == (
        "marks 0.050 of a criterion's maximum (1.0 points on a paper of 20.0) below the "
        "average of the 3 jurors linked by shared papers (4 shared cells; 95% interval -0.080 "
        "to -0.020; 10% of the resampled juries left these jurors unlinked and were left "
        "out): more severe than the average juror"
    )


def test_a_clear_effect_above_the_other_of_a_pair_in_full():
    boot = Bootstrap((0.02, 0.18), 10_000, skipped=500, skipped_share=0.05, mc_error=0.001)
    effect = JurorEffect("A", PAIR, ("B",), 0.1, (0.02, 0.18), 3, 3, boot, 6)
    # 5% left out exactly is not over 5%: not said.
    assert effect_sentence(effect) == (
        "marks 0.100 of a criterion's maximum above B on the cells they share (3 shared cells; "
        "95% interval +0.020 to +0.180): more lenient than B; with only the two of them on "
        "these papers, only the difference between them is identified, not which of them is "
        "off"
    )


def test_effects_within_half_a_thousandth_are_like_the_others():
    near = JurorEffect("A", GROUP, ("B", "C"), 0.0004, (-0.01, 0.01), 1, 1, None, 0)
    assert effect_sentence(near) == (
        "marks like the average of the 3 jurors linked by shared papers (1 shared cell; 95% "
        "interval -0.010 to +0.010): no clear difference"
    )
    # 0.0005 itself shows as 0.001 at three decimals: above.
    half = JurorEffect("A", GROUP, ("B", "C"), 0.0005, (-0.01, 0.01), 1, 1, None, 0)
    assert effect_sentence(half).startswith("marks 0.001 of a criterion's maximum above")


def test_no_interval_with_and_without_a_reason():
    why = JurorEffect("A", GROUP, ("B", "C"), -0.2, None, 2, 2, note="No interval: too few.")
    assert effect_sentence(why) == (
        "marks 0.200 of a criterion's maximum below the average of the 3 jurors linked by "
        "shared papers (2 shared cells); no interval (too few), so no verdict"
    )
    bare = JurorEffect("A", GROUP, ("B", "C"), -0.2, None, 2, 2)
    assert effect_sentence(bare).endswith("(2 shared cells); no interval, so no verdict")


def _pair(papers: int, gap=lambda p: 0.1 * (p % 3)):
    """A and B on one cell of each paper, A above B by gap(p)."""
    rows = []
    for p in range(papers):
        rows += [(p, (p, 0), "A", 0.5 + gap(p)), (p, (p, 0), "B", 0.5)]
    return rows


def test_the_defaults_are_10000_resamples_with_seed_2026():
    rows = _pair(12)  # 12 papers: drawn, not enumerated
    default = juror_effects(rows)
    assert default == juror_effects(rows, resamples=10_000, seed=2026)
    assert default[0].boot.resamples == 10_000 and not default[0].boot.exact
    assert default != juror_effects(rows, resamples=10_000, seed=2027)
    assert juror_effects_of_many([rows]) == [default]


def test_the_resamples_and_seed_asked_are_the_ones_drawn():
    rows = _pair(12)
    (a, _b) = juror_effects(rows, resamples=300, seed=5)
    assert a.boot.resamples == 300
    assert (a, _b) == juror_effects(rows, resamples=300, seed=5)  # the seed, not the clock
    assert (a, _b) != juror_effects(rows, resamples=300, seed=6)


def test_one_resample_asked_enumerates_few_papers_and_notes_too_few():
    a, _ = juror_effects(_pair(6), resamples=1)
    assert a.boot.exact and a.ci is not None and a.boot_units == 6
    assert a.method == (
        "95% exact bootstrap over 6 papers (all 462 distinct resamples, weighted by their "
        "probability)"
    )
    few, _ = juror_effects(_pair(3), resamples=1)
    assert few.note == "No interval: 3 papers are too few for a bootstrap, which needs at least 5."


def test_without_resamples_there_is_no_interval_and_no_note():
    for papers in (3, 6):
        a, _ = juror_effects(_pair(papers), resamples=0)
        assert a.ci is None and a.boot is None and a.note is None


def test_a_bootstrap_that_cannot_vary_says_so():
    # A is 0.1 above B on every paper: every resample gives a difference of 0.1.
    a, _ = juror_effects(_pair(6, gap=lambda p: 0.1), resamples=100)
    assert a.effect == pytest.approx(0.1) and a.ci is None
    assert a.note == "Every resample gives 0.1, so the bootstrap gives no interval."


def test_no_marks_no_jurors_and_a_lone_juror_first():
    assert juror_effects([]) == ()
    rows = [(99, (99, 0), "D", 0.5), *_pair(3)]  # D, first to appear, shares no cell
    d, a, b = juror_effects(rows, resamples=0)
    assert d.kind == ALONE and (a.kind, b.kind) == (PAIR, PAIR)
    assert a.effect == pytest.approx(0.1)


def test_a_juror_linked_to_nobody_in_a_resample_gives_nan():
    # Three jurors; juror 1 shares no cell (its row and column are 0): not linked.
    c = np.array([[1.0, 0.0, -1.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 1.0]])[:, :, None]
    q = np.array([[0.1], [0.0], [-0.1]])
    assert np.isnan(laplacian_solve(c, q)).all()
    # Linked (a triangle): b solves C b = q with sum 0, by hand b = (0.1/3, 0, -0.1/3).
    tri = np.array([[2.0, -1.0, -1.0], [-1.0, 2.0, -1.0], [-1.0, -1.0, 2.0]])[:, :, None]
    assert laplacian_solve(tri, q)[:, 0] == pytest.approx([0.1 / 3, 0.0, -0.1 / 3])
