"""Solver outcomes and judges: scoring, Table 1, paired tests (scipy as oracle), Tables 2, 7, 8.

The small corpus below is worked by hand in the comments."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from puzzles.context.results.judges import (
    PAPER_TABLE_2_CONDITIONS,
    Contradiction,
    Verdict,
    judge_agreement,
    judge_contradictions,
)
from puzzles.context.results.outcomes import (
    Answer,
    PuzzleRun,
    QuestionResult,
    answer_em,
    condition_summaries,
    is_abstention,
    puzzle_runs,
)
from puzzles.context.results.paired import paired_tests
from puzzles.metrics import score_items

KEY = {
    "p1": {"q1": ["ka mo"], "q2": ["the bird", "a bird"]},
    "p2": {"q1": ["ti"], "q2": ["lu"]},
    "p3": {"q1": ["x"]},
}
ROWS = [
    # m, original: p1 1.0 (both right, one by normalisation, one by an alternative),
    # p2 0.5 ("no" is answered and wrong), p3 1.0.
    ("p1", "original", "m", "q1", "Ka mo."),
    ("p1", "original", "m", "q2", "a bird"),
    ("p2", "original", "m", "q1", "ti"),
    ("p2", "original", "m", "q2", "no"),
    ("p3", "original", "m", "q1", "x"),
    # m, random: p1 1.0, p2 1.0; no run of p3.
    ("p1", "random", "m", "q1", "ka mo"),
    ("p1", "random", "m", "q2", "the bird"),
    ("p2", "random", "m", "q1", "ti"),
    ("p2", "random", "m", "q2", "lu"),
    # m, targeted: p1 abstained on both questions (0), p2 0.5 with q2 abstained (empty),
    # p3 0 (answered, wrong).
    ("p1", "targeted", "m", "q1", "N/A"),
    ("p1", "targeted", "m", "q2", " n/a "),
    ("p2", "targeted", "m", "q1", "ti"),
    ("p2", "targeted", "m", "q2", ""),
    ("p3", "targeted", "m", "q1", "y"),
    # m, no context: p1 only q1 answered (right); q2 missing counts as abstained: 0.5.
    ("p1", "no_context", "m", "q1", "ka mo"),
    # k: the same EM on p1 and p2 in both conditions.
    ("p1", "original", "k", "q1", "ka mo"),
    ("p1", "original", "k", "q2", "a cat"),
    ("p2", "original", "k", "q1", "ti"),
    ("p2", "original", "k", "q2", "lu"),
    ("p1", "random", "k", "q1", "ka mo"),
    ("p1", "random", "k", "q2", "a dog"),
    ("p2", "random", "k", "q1", "ti"),
    ("p2", "random", "k", "q2", "lu"),
    # z: the original only, abstaining everywhere.
    ("p3", "original", "z", "q1", "n/a"),
]


@pytest.fixture
def runs():
    return puzzle_runs([Answer(*row) for row in ROWS], KEY)


def _by(rows, model, condition):
    return next(r for r in rows if (r.model, r.condition) == (model, condition))


# --- scoring --------------------------------------------------------------------------


@pytest.mark.parametrize("answer", [None, "", "   ", "N/A", "n/a", " N/a ", "N/A.", '"N/A"'])
def test_abstentions(answer):
    assert is_abstention(answer)
    assert answer_em(answer, ["n/a", "x"]) == 0.0


@pytest.mark.parametrize("answer", ["NA", "N / A", "n/a words", "0", "none"])
def test_not_abstentions(answer):
    assert not is_abstention(answer)


@pytest.mark.parametrize(
    ("answer", "accepted", "em"),
    [
        ("Ka Mo.", ["ka mo"], 1.0),
        ("ka  mo", ["ka mo"], 1.0),
        ("ka", ["ka mo"], 0.0),
        ("a bird", ["the bird", "a bird"], 1.0),
        ("bird", ["the bird", "a bird"], 0.0),
        ("x", ["", "x"], 1.0),
    ],
)
def test_answer_em_is_the_iol2026_exact_match(answer, accepted, em):
    assert answer_em(answer, accepted) == em
    assert score_items([answer], [accepted], "iol2026").item_em == [em]


def test_a_question_without_accepted_answers_is_refused():
    with pytest.raises(ValueError, match="at least one accepted answer"):
        answer_em("x", [])


def test_runs_score_every_question_of_the_key(runs):
    assert [(r.model, r.condition, r.puzzle) for r in runs] == [
        ("k", "original", "p1"),
        ("k", "original", "p2"),
        ("k", "random", "p1"),
        ("k", "random", "p2"),
        ("m", "original", "p1"),
        ("m", "original", "p2"),
        ("m", "original", "p3"),
        ("m", "random", "p1"),
        ("m", "random", "p2"),
        ("m", "targeted", "p1"),
        ("m", "targeted", "p2"),
        ("m", "targeted", "p3"),
        ("m", "no_context", "p1"),
        ("z", "original", "p3"),
    ]
    no_context = runs[12]
    assert no_context.results == (
        QuestionResult("q1", abstained=False, em=1.0),
        QuestionResult("q2", abstained=True, em=0.0),
    )
    assert no_context.em == 0.5 and not no_context.abstained
    assert runs[9].abstained and runs[9].em == 0.0  # m, targeted, p1
    assert not runs[11].abstained and runs[11].em == 0.0  # answered wrong is not abstained


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (("p9", "original", "m", "q1", "x"), "answer 2: unknown puzzle 'p9'"),
        (("p1", "original", "m", "q9", "x"), "answer 2: puzzle 'p1' has no question 'q9'"),
        (("p1", "halved", "m", "q1", "x"), "answer 2: unknown condition 'halved'"),
        (("p1", "original", "m", "q1", "y"), "answer 2: a second answer of 'm'"),
    ],
)
def test_bad_answers_are_refused(row, message):
    with pytest.raises(ValueError, match=message):
        puzzle_runs([Answer("p1", "original", "m", "q1", "x"), Answer(*row)], KEY)


def test_a_puzzle_without_questions_is_refused():
    with pytest.raises(ValueError, match="puzzle 'p0' has no questions"):
        puzzle_runs([], {"p0": {}})


# --- Table 1 --------------------------------------------------------------------------


def test_table_1_by_hand(runs):
    rows = condition_summaries(runs)
    assert [(r.model, r.condition) for r in rows] == [
        ("k", "original"),
        ("k", "random"),
        ("m", "original"),
        ("m", "random"),
        ("m", "targeted"),
        ("m", "no_context"),
        ("z", "original"),
    ]
    original = _by(rows, "m", "original")
    assert original.n_puzzles == 3
    assert original.mean_em == pytest.approx(2.5 / 3)
    assert original.mean_em_attempted == pytest.approx(2.5 / 3)
    assert original.puzzles_abstained == 0
    assert original.puzzles_caused_abstention is None
    assert original.puzzles_answered_in_original is None
    assert original.questions_caused_abstention is None
    assert original.questions_answered_in_original is None
    assert original.note is None

    randomly = _by(rows, "m", "random")
    assert (randomly.n_puzzles, randomly.mean_em, randomly.mean_em_attempted) == (2, 1.0, 1.0)
    # p1's two and p2's two questions were answered in the original ("no" counts).
    assert (randomly.questions_caused_abstention, randomly.questions_answered_in_original) == (
        0,
        4,
    )
    assert (randomly.puzzles_caused_abstention, randomly.puzzles_answered_in_original) == (0, 2)

    targeted = _by(rows, "m", "targeted")
    assert targeted.n_puzzles == 3
    assert targeted.mean_em == pytest.approx(0.5 / 3)
    assert targeted.puzzles_abstained == 1 and targeted.n_attempted == 2
    assert targeted.mean_em_attempted == pytest.approx(0.25)  # p2 0.5 and p3 0
    # p1 q1, p1 q2, p2 q2 abstained here and answered in the original; p3 q1 was answered.
    assert (targeted.questions_caused_abstention, targeted.questions_answered_in_original) == (
        3,
        5,
    )
    # In puzzles (the paper's count): p1 (two caused) and p2 (one) count once each; p3 had
    # a question answered in the original but none abstained here: 2 of 3.
    assert (targeted.puzzles_caused_abstention, targeted.puzzles_answered_in_original) == (2, 3)

    no_context = _by(rows, "m", "no_context")
    assert (no_context.mean_em, no_context.questions_caused_abstention) == (0.5, 1)
    assert no_context.questions_answered_in_original == 2
    assert (no_context.puzzles_caused_abstention, no_context.puzzles_answered_in_original) == (
        1,
        1,
    )

    everything_abstained = _by(rows, "z", "original")
    assert everything_abstained.puzzles_abstained == 1
    assert everything_abstained.mean_em == 0.0
    assert everything_abstained.mean_em_attempted is None
    assert "no mean over attempted" in everything_abstained.note


def test_table_1_says_when_an_original_is_missing():
    runs = puzzle_runs(
        [Answer("p3", "targeted", "m", "q1", "n/a"), Answer("p1", "original", "m", "q1", "x")],
        KEY,
    )
    targeted = _by(condition_summaries(runs), "m", "targeted")
    assert (targeted.questions_caused_abstention, targeted.questions_answered_in_original) == (
        0,
        0,
    )
    assert (targeted.puzzles_caused_abstention, targeted.puzzles_answered_in_original) == (0, 0)
    assert targeted.note.startswith("Every puzzle was abstained on")
    assert "1 puzzle without an original run" in targeted.note


def test_abstaining_in_both_is_not_caused_by_the_deletion():
    runs = puzzle_runs(
        [
            Answer("p2", "original", "m", "q1", "N/A"),
            Answer("p2", "original", "m", "q2", "lu"),
            Answer("p2", "random", "m", "q1", "N/A"),
            Answer("p2", "random", "m", "q2", "N/A"),
        ],
        KEY,
    )
    randomly = _by(condition_summaries(runs), "m", "random")
    # q1 was abstained on in the original already; only q2 counts.
    assert (randomly.questions_caused_abstention, randomly.questions_answered_in_original) == (
        1,
        1,
    )
    assert (randomly.puzzles_caused_abstention, randomly.puzzles_answered_in_original) == (1, 1)
    assert randomly.puzzles_abstained == 1


def test_caused_abstentions_count_puzzles_as_the_paper_does():
    # Three puzzles of three questions; "N/A" abstains, "ok" answers (right or wrong).
    #   a: original answers all three; targeted abstains on q1, q2, q3: 3 caused, 1 puzzle.
    #   b: original answers q1 only; targeted abstains on q1 and q2: q1 caused (q2 was
    #      abstained on in the original already), 1 puzzle.
    #   c: original abstains on every question; targeted abstains too: nothing can be
    #      caused, and c has no question answered in the original.
    # Questions: 3 + 1 = 4 caused of 3 + 1 = 4 answered in the original.
    # Puzzles: a and b, once each: 2 of the 2 with a question answered in the original.
    key = {p: {q: ["ok"] for q in ("q1", "q2", "q3")} for p in ("a", "b", "c")}
    original = {"a": "ok ok ok", "b": "ok N/A N/A", "c": "N/A N/A N/A"}
    targeted = {"a": "N/A N/A N/A", "b": "N/A N/A ok", "c": "N/A N/A N/A"}
    answers = [
        Answer(p, condition, "m", q, text)
        for condition, given in (("original", original), ("targeted", targeted))
        for p, texts in given.items()
        for q, text in zip(("q1", "q2", "q3"), texts.split(), strict=True)
    ]
    row = _by(condition_summaries(puzzle_runs(answers, key)), "m", "targeted")
    assert (row.questions_caused_abstention, row.questions_answered_in_original) == (4, 4)
    assert (row.puzzles_caused_abstention, row.puzzles_answered_in_original) == (2, 2)
    # a and c abstained on entirely: whole-puzzle abstention is another column.
    assert row.puzzles_abstained == 2


# --- paired tests ---------------------------------------------------------------------


def test_paired_tests_by_hand_with_scipy_as_oracle(runs):
    tests = paired_tests(runs)
    assert [(t.model, t.condition) for t in tests] == [
        ("k", "random"),
        ("m", "random"),
        ("m", "targeted"),
        ("m", "no_context"),
    ]
    randomly = _by(tests, "m", "random")
    assert (randomly.n_puzzles, randomly.n_changed) == (2, 1)
    assert (randomly.mean_em_original, randomly.mean_em_variant) == (0.75, 1.0)
    oracle = sps.wilcoxon([1.0, 0.5], [1.0, 1.0])
    assert randomly.wilcoxon_p == pytest.approx(float(oracle.pvalue))
    assert randomly.wilcoxon_statistic == pytest.approx(float(oracle.statistic))
    assert randomly.wilcoxon_note == "1 puzzle with equal EM left out of the ranks."
    # p2 q2 went from wrong to right.
    assert (randomly.n_questions, randomly.lost, randomly.gained) == (4, 0, 1)
    assert randomly.mcnemar_p == pytest.approx(1.0)

    targeted = _by(tests, "m", "targeted")
    assert (targeted.n_puzzles, targeted.n_changed) == (3, 2)
    oracle = sps.wilcoxon([1.0, 0.5, 1.0], [0.0, 0.5, 0.0])
    assert targeted.wilcoxon_p == pytest.approx(float(oracle.pvalue))
    assert targeted.wilcoxon_statistic == pytest.approx(float(oracle.statistic))
    # p1 q1, p1 q2 and p3 q1 lost; nothing gained: two-sided exact p = 2 / 2^3.
    assert (targeted.n_questions, targeted.lost, targeted.gained) == (5, 3, 0)
    assert targeted.mcnemar_p == pytest.approx(0.25)
    assert targeted.mcnemar_p == pytest.approx(sps.binomtest(3, 3, 0.5).pvalue)


def test_one_pair_gives_a_sentence_instead_of_a_wilcoxon_figure(runs):
    no_context = _by(paired_tests(runs), "m", "no_context")
    assert no_context.n_puzzles == 1
    assert no_context.wilcoxon_p is None and no_context.wilcoxon_statistic is None
    assert no_context.wilcoxon_note.startswith("Only one puzzle was run under both")
    # McNemar still has its one discordant question (p1 q2 lost).
    assert (no_context.lost, no_context.gained, no_context.mcnemar_p) == (1, 0, 1.0)


def test_no_change_gives_sentences_instead_of_figures(runs):
    same = _by(paired_tests(runs), "k", "random")
    assert (same.n_puzzles, same.n_changed, same.n_questions) == (2, 0, 4)
    assert same.wilcoxon_p is None
    assert (
        same.wilcoxon_note == "No puzzle's EM differs between original and random; nothing to rank."
    )
    assert same.mcnemar_p is None
    assert same.mcnemar_note.startswith("No question changed correctness")


def test_no_original_at_all():
    runs = puzzle_runs([Answer("p3", "random", "m", "q1", "x")], KEY)
    (test,) = paired_tests(runs)
    assert (test.n_puzzles, test.n_questions) == (0, 0)
    assert test.mean_em_original is None and test.mean_em_variant is None
    assert test.wilcoxon_note.startswith("No puzzle was run under both")
    assert test.mcnemar_note.startswith("No question was answered under both")


def test_exact_wilcoxon_and_mcnemar_by_hand():
    # Five puzzles of five questions; the variant loses 1, 2, 3, 4 and 5 of them: five
    # distinct positive differences, so W = 0 and the exact two-sided p is 2 / 2^5; 15 lost
    # and none gained, so McNemar's exact p is 2 / 2^15.
    key = {f"p{i}": {f"q{j}": ["ok"] for j in range(5)} for i in range(1, 6)}
    answers = [Answer(p, "original", "m", q, "ok") for p in key for q in key[p]]
    answers += [
        Answer(f"p{i}", "targeted", "m", f"q{j}", "ok" if j >= i else "bad")
        for i in range(1, 6)
        for j in range(5)
    ]
    (test,) = paired_tests(puzzle_runs(answers, key))
    assert test.wilcoxon_statistic == 0.0
    assert test.wilcoxon_p == pytest.approx(0.0625)
    assert test.wilcoxon_note is None
    assert (test.lost, test.gained) == (15, 0)
    assert test.mcnemar_p == pytest.approx(2 / 2**15)


def _five_question_runs(counts: list[tuple[int, int]]) -> list[PuzzleRun]:
    """Runs of model m on puzzles of five questions: (right in the original, in the variant)."""
    key = {f"p{i}": {f"q{j}": ["ok"] for j in range(5)} for i in range(len(counts))}
    answers = [
        Answer(f"p{i}", condition, "m", f"q{j}", "ok" if j < right else "no")
        for i, pair in enumerate(counts)
        for condition, right in zip(("original", "targeted"), pair, strict=True)
        for j in range(5)
    ]
    return puzzle_runs(answers, key)


def test_wilcoxon_ties_equal_differences_exactly():
    # EM differences 3/5 - 2/5, 0 - 1/5, 4/5 - 3/5 and 5/5 - 3/5: exactly 1/5, -1/5, 1/5,
    # 2/5, but in floats 0.19999999999999996, -0.2, 0.20000000000000007 and 0.4.
    # Exact: |d| ranks 2, 2, 2, 4; W+ = 2 + 2 + 4 = 8. Of the 16 sign patterns, W+ >= 8 for
    # {2, 2, 4} (three ways) and all four (10): 4/16, so the two-sided p is 2 * 4/16 = 0.5.
    # With float ranks 1, 2, 3, 4 it would be 2 * 3/16 = 0.375.
    counts = [(3, 2), (0, 1), (4, 3), (5, 3)]
    assert 3 / 5 - 2 / 5 != 1 / 5 != 4 / 5 - 3 / 5  # why differences are taken exactly
    (test,) = paired_tests(_five_question_runs(counts))
    assert test.wilcoxon_statistic == 2.0
    assert test.wilcoxon_p == pytest.approx(0.5)
    oracle = sps.wilcoxon([2, -2, 2, 4], method=sps.PermutationMethod(n_resamples=np.inf))
    assert test.wilcoxon_p == pytest.approx(float(oracle.pvalue))


def test_wilcoxon_past_the_enumeration_ties_equal_differences_exactly():
    # 30 puzzles of five questions, the variant one or two right answers down (or one up):
    # magnitudes 1/5 and 2/5 only, so the normal approximation's tie correction sees two
    # groups of ties; scipy, given those exact signed ranks, is the oracle.
    rng = random.Random(4)
    counts = []
    for _ in range(30):
        right = rng.randint(2, 5)
        counts.append((right, right - rng.choice([1, 1, 2, -1])))
    counts = [(o, min(5, max(0, v))) for o, v in counts]
    (test,) = paired_tests(_five_question_runs(counts))
    exact = [Fraction(o - v, 5) for o, v in counts if o != v]
    assert len(exact) > 16
    ranks = sps.rankdata([abs(d) for d in exact])  # Fractions: exact ties
    oracle = sps.wilcoxon(np.where(np.array(exact) > 0, ranks, -ranks), method="approx")
    assert test.wilcoxon_p == pytest.approx(float(oracle.pvalue))
    assert test.wilcoxon_statistic == pytest.approx(float(oracle.statistic))
    assert (
        f"p from the normal approximation ({len(exact)} differences, with ties; exact up to 16)."
        in test.wilcoxon_note
    )


def test_larger_random_corpus_against_scipy():
    rng = random.Random(11)
    key = {f"p{i}": {f"q{j}": ["ok"] for j in range(4)} for i in range(30)}
    answers, before, after, lost, gained = [], [], [], 0, 0
    for puzzle, questions in key.items():
        o = [rng.random() < 0.7 for _ in questions]
        v = [rng.random() < 0.5 for _ in questions]
        for question, right_o, right_v in zip(questions, o, v, strict=True):
            answers.append(Answer(puzzle, "original", "m", question, "ok" if right_o else "no"))
            answers.append(Answer(puzzle, "random", "m", question, "ok" if right_v else "N/A"))
            lost += right_o and not right_v
            gained += right_v and not right_o
        before.append(sum(o) / 4)
        after.append(sum(v) / 4)
    (test,) = paired_tests(puzzle_runs(answers, key))
    oracle = sps.wilcoxon(before, after)
    assert test.n_puzzles == 30
    assert test.n_changed == sum(b != a for b, a in zip(before, after, strict=True))
    assert test.wilcoxon_p == pytest.approx(float(oracle.pvalue))
    assert test.wilcoxon_statistic == pytest.approx(float(oracle.statistic))
    assert (test.lost, test.gained) == (lost, gained)
    assert test.mcnemar_p == pytest.approx(sps.binomtest(lost, lost + gained, 0.5).pvalue)
    assert test.wilcoxon_p < 0.05  # 70 % against 50 % right over 30 puzzles


def test_runs_with_different_questions_are_refused():
    original = PuzzleRun("m", "original", "p", (QuestionResult("a", False, 1.0),))
    variant = PuzzleRun("m", "random", "p", (QuestionResult("b", False, 1.0),))
    with pytest.raises(ValueError, match="do not hold the same questions"):
        paired_tests([original, variant])
    with pytest.raises(ValueError, match="two runs of 'm' on 'p'"):
        paired_tests([original, original])


# --- judges ---------------------------------------------------------------------------

LABELS = {
    ("p1", "original"): False,
    ("p1", "random"): False,
    ("p1", "targeted"): True,
    ("p1", "no_context"): True,
    ("p2", "random"): False,
    ("p2", "targeted"): True,
    ("p3", "targeted"): False,
}
VERDICTS = [
    Verdict("p1", "targeted", "A", "unsolvable"),  # TP
    Verdict("p2", "targeted", "A", "valid"),  # FN
    Verdict("p1", "random", "A", "unsolvable"),  # FP
    Verdict("p2", "random", "A", "valid"),  # TN
    Verdict("p3", "targeted", "A", "valid"),  # TN
    Verdict("p1", "original", "A", "valid"),  # TN
    Verdict("p1", "random", "B", "valid"),  # TN
    Verdict("p2", "random", "B", "valid"),  # TN
    Verdict("p1", "targeted", "C", "valid"),  # FN
    Verdict("p2", "targeted", "C", "valid"),  # FN
    Verdict("p1", "random", "D", "unsolvable"),  # FP
]


def test_table_2_by_hand():
    a, b, c, d = judge_agreement(VERDICTS, LABELS)
    assert (a.judge, a.tp, a.fp, a.fn, a.tn, a.n) == ("A", 1, 1, 1, 3, 6)
    assert (a.precision, a.recall, a.f1, a.note) == (0.5, 0.5, 0.5, None)

    assert (b.tp, b.fp, b.fn, b.tn) == (0, 0, 0, 2)
    assert (b.precision, b.recall, b.f1) == (None, None, None)
    assert "precision, recall and F1 are undefined" in b.note

    assert (c.tp, c.fp, c.fn, c.tn) == (0, 0, 2, 0)
    assert (c.precision, c.recall, c.f1) == (None, 0.0, 0.0)
    assert c.note.startswith("No variant was judged unsolvable")

    assert (d.tp, d.fp, d.fn, d.tn) == (0, 1, 0, 0)
    assert (d.precision, d.recall, d.f1) == (0.0, None, 0.0)
    assert d.note.startswith("No variant is structurally unsolvable")


def paper_table_2_corpus() -> tuple[list[Verdict], dict[tuple[str, str], bool]]:
    """Verdicts of one judge "J" whose targeted verdicts alone give the paper's Table 2.

    The smallest confusion matrix that rounds to the paper's 94.1 / 71.1 / 81.0 (the
    paper's verdicts are not in the repository): 45 fragile puzzles f1..f45 (their targeted
    variant is unsolvable), 10 robust r1..r10. Targeted: f1..f32 judged unsolvable (TP 32),
    f33..f45 valid (FN 13), r1, r2 unsolvable (FP 2), r3..r10 valid (TN 8):
    precision 32/34 = 0.9412, recall 32/45 = 0.7111, F1 2*32/(2*32 + 2 + 13) = 64/79 = 0.8101.
    The same judge also judged every original (always valid: 52 judged valid, 3 unsolvable)
    and every no_context variant (here all unsolvable: 50 judged so, 5 valid)."""
    fragile = [f"f{i}" for i in range(1, 46)]
    robust = [f"r{i}" for i in range(1, 11)]
    labels = {(p, "targeted"): p in fragile for p in fragile + robust}
    labels |= {(p, "original"): False for p in fragile + robust}
    labels |= {(p, "no_context"): True for p in fragile + robust}
    unsolvable = set(fragile[:32]) | set(robust[:2])
    verdicts = [
        Verdict(p, "targeted", "J", "unsolvable" if p in unsolvable else "valid")
        for p in fragile + robust
    ]
    everyone = fragile + robust
    verdicts += [
        Verdict(p, "original", "J", "unsolvable" if i < 3 else "valid")
        for i, p in enumerate(everyone)
    ]
    verdicts += [
        Verdict(p, "no_context", "J", "valid" if i < 5 else "unsolvable")
        for i, p in enumerate(everyone)
    ]
    return verdicts, labels


def test_table_2_on_the_targeted_variant_reproduces_the_papers_figures():
    verdicts, labels = paper_table_2_corpus()
    (j,) = judge_agreement(verdicts, labels, conditions=PAPER_TABLE_2_CONDITIONS)
    assert PAPER_TABLE_2_CONDITIONS == ("targeted",)
    assert (j.tp, j.fp, j.fn, j.tn, j.n, j.conditions) == (32, 2, 13, 8, 55, ("targeted",))
    assert (j.precision, j.recall, j.f1) == (
        pytest.approx(32 / 34),
        pytest.approx(32 / 45),
        pytest.approx(64 / 79),
    )
    # The paper's Table 2, in percent to one decimal.
    assert [round(100 * x, 1) for x in (j.precision, j.recall, j.f1)] == [94.1, 71.1, 81.0]


def test_the_pooled_table_differs_where_other_conditions_were_judged():
    verdicts, labels = paper_table_2_corpus()
    (j,) = judge_agreement(verdicts, labels)
    # targeted TP 32, FP 2, FN 13, TN 8; original FP 3, TN 52; no_context TP 50, FN 5.
    assert (j.tp, j.fp, j.fn, j.tn, j.n) == (82, 5, 18, 60, 165)
    assert j.conditions == ("original", "targeted", "no_context")
    assert (j.precision, j.recall, j.f1) == (
        pytest.approx(82 / 87),
        pytest.approx(82 / 100),
        pytest.approx(164 / 187),
    )
    assert [round(100 * x, 1) for x in (j.precision, j.recall, j.f1)] == [94.3, 82.0, 87.7]
    # With the targeted variant alone judged, pooling changes nothing.
    targeted_only = [v for v in verdicts if v.condition == "targeted"]
    assert judge_agreement(targeted_only, labels) == judge_agreement(
        targeted_only, labels, conditions=PAPER_TABLE_2_CONDITIONS
    )


def test_a_judge_without_a_targeted_verdict_has_no_row_in_table_2():
    rows = judge_agreement(VERDICTS, LABELS, conditions=PAPER_TABLE_2_CONDITIONS)
    # A: p1 TP, p2 FN, p3 TN on the targeted variant; C: p1, p2 FN; B and D judged random only.
    assert [(a.judge, a.tp, a.fp, a.fn, a.tn) for a in rows] == [
        ("A", 1, 0, 1, 1),
        ("C", 0, 0, 2, 0),
    ]
    with pytest.raises(ValueError, match="unknown condition 'halved'"):
        judge_agreement(VERDICTS, LABELS, conditions=("halved",))


def test_f1_is_the_harmonic_mean_when_both_are_defined():
    judged = "uuuvvvu"  # u: judged unsolvable, v: judged valid
    labels = [True, True, False, True, False, False, True]
    verdicts = [
        Verdict(f"p{i}", "targeted", "J", "unsolvable" if v == "u" else "valid")
        for i, v in enumerate(judged)
    ]
    (j,) = judge_agreement(verdicts, {(f"p{i}", "targeted"): lab for i, lab in enumerate(labels)})
    assert (j.tp, j.fp, j.fn, j.tn) == (3, 1, 1, 2)
    assert (j.precision, j.recall) == (0.75, 0.75)
    assert j.f1 == pytest.approx(2 * 0.75 * 0.75 / 1.5)


@pytest.mark.parametrize(
    ("verdicts", "labels", "message"),
    [
        ([Verdict("p1", "random", "A", "maybe")], LABELS, "verdict 1: verdict must be one of"),
        ([Verdict("p1", "halved", "A", "valid")], LABELS, "verdict 1: unknown condition"),
        ([Verdict("p9", "random", "A", "valid")], LABELS, "no structural label"),
        (
            [Verdict("p1", "random", "A", "valid"), Verdict("p1", "random", "A", "unsolvable")],
            LABELS,
            "verdict 2: a second verdict of 'A' on 'p1'",
        ),
    ],
)
def test_bad_verdicts_are_refused(verdicts, labels, message):
    with pytest.raises(ValueError, match=message):
        judge_agreement(verdicts, labels)


def test_tables_7_and_8_by_hand(runs):
    found = judge_contradictions(VERDICTS, runs)
    # Judged unsolvable, EM equal or higher: p1 under random kept 1.0 for m, 0.5 for k.
    assert found.unsolvable_but_held == (
        Contradiction("A", "k", "p1", "random", "unsolvable", 0.5, 0.5),
        Contradiction("A", "m", "p1", "random", "unsolvable", 1.0, 1.0),
        Contradiction("D", "k", "p1", "random", "unsolvable", 0.5, 0.5),
        Contradiction("D", "m", "p1", "random", "unsolvable", 1.0, 1.0),
    )
    # Judged valid, EM fell: p3 under targeted (1 -> 0) for A, p1 under targeted for C.
    # Not listed: A's valid p2 targeted (0.5 -> 0.5), A's valid p2 random (rose), A's
    # unsolvable p1 targeted (fell, as it should), A's verdict on the original, and z (no
    # deletion run).
    assert found.valid_but_fell == (
        Contradiction("A", "m", "p3", "targeted", "valid", 1.0, 0.0),
        Contradiction("C", "m", "p1", "targeted", "valid", 1.0, 0.0),
    )


def test_contradictions_without_runs_are_empty():
    found = judge_contradictions(VERDICTS, [])
    assert found.unsolvable_but_held == () and found.valid_but_fell == ()


def test_the_pure_modules_load_without_django():
    code = (
        "import sys\n"
        "import puzzles.context.results.outcomes, puzzles.context.results.paired\n"
        "import puzzles.context.results.judges, puzzles.context.lab.analysis\n"
        "import puzzles.context.lab.prompts, puzzles.context.lab.variants\n"
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr or "django was imported"


@pytest.mark.parametrize("n", [2, 5, 9, 12, 13])
def test_wilcoxon_enumeration_is_scipys_permutation_distribution(n):
    """Tied EMs (thirds) at up to 13 pairs: scipy's default enumerates the sign patterns
    through a general permutation test; ours enumerates them directly, with the same p."""
    import numpy as np

    from puzzles.context.results.paired import wilcoxon_signed_rank

    rng = np.random.default_rng(n)
    before = rng.choice([0, 1 / 3, 2 / 3, 1], n)
    after = rng.choice([0, 1 / 3, 2 / 3, 1], n)
    if np.all(before == after):
        after[0] = 1 - before[0] or 1.0
    statistic, p, exact = wilcoxon_signed_rank(list(before), list(after))
    oracle = sps.wilcoxon(before, after)
    assert exact
    assert p == pytest.approx(float(oracle.pvalue))
    assert statistic == pytest.approx(float(oracle.statistic))


def test_wilcoxon_past_enumeration_uses_scipys_exact_or_normal():
    import numpy as np

    from puzzles.context.results.paired import wilcoxon_signed_rank

    distinct_before = list(np.arange(20) / 7.0 + 0.01)
    distinct_after = [b - (i + 1) * 0.013 * (-1) ** i for i, b in enumerate(distinct_before)]
    _, p, exact = wilcoxon_signed_rank(distinct_before, distinct_after)
    assert exact
    assert p == pytest.approx(
        float(sps.wilcoxon(distinct_before, distinct_after, method="exact").pvalue)
    )
    rng = np.random.default_rng(1)
    tied_before, tied_after = rng.choice([0, 0.5, 1], 60), rng.choice([0, 0.5, 1], 60)
    _, p, exact = wilcoxon_signed_rank(list(tied_before), list(tied_after))
    assert not exact
    assert p == pytest.approx(float(sps.wilcoxon(tied_before, tied_after, method="approx").pvalue))
