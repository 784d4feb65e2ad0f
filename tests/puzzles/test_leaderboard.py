"""The leaderboard: pure aggregation and ranking, then the selector over the demo."""

from __future__ import annotations

import math

import pytest

from puzzles.demo import RAW_SYSTEM
from puzzles.leaderboard import (
    BOARD_COLUMNS,
    Cell,
    SystemInfo,
    TaskInfo,
    board_rows,
    rank_changes,
    rank_rows,
)
from puzzles.selectors import leaderboard

TASKS = [
    TaskInfo(id=1, external_id="t1", weight=1.0, split="public"),
    TaskInfo(id=2, external_id="t2", weight=1.0, split="private"),
    TaskInfo(id=3, external_id="t3", weight=0.0, split="public"),  # explanation-only, 0 points
]
PERFECT = Cell(
    em=1.0,
    chrf=1.0,
    item_count_matches=True,
    clean_json_list=True,
    empty=False,
    has_explanation=True,
)


def _rows(cells, systems=None, rank_by="all"):
    systems = systems or [SystemInfo(id=i, name=n) for i, n in ((1, "A"), (2, "B"), (3, "C"))]
    return {
        r.system: r for r in board_rows(tasks=TASKS, systems=systems, cells=cells, rank_by=rank_by)
    }


# --- board_rows -------------------------------------------------------------------------


def test_missing_outputs_count_as_empty():
    rows = _rows({(1, 1): PERFECT})
    a, c = rows["A"], rows["C"]
    # A answered t1 perfectly and nothing else: t2 (private, 1 point) counts 0.
    assert (a.overall.exact_match, a.overall.chrf, a.overall.score) == (0.5, 0.5, 0.5)
    assert a.public.score == 1.0  # t3 weighs 0, so only t1 counts
    assert a.private.score == 0.0
    assert a.empty_predictions == 2
    assert a.task_scores == {"t1": 1.0, "t2": 0.0, "t3": 0.0}
    # C has no outputs at all.
    assert (c.overall.score, c.public.score, c.private.score) == (0.0, 0.0, 0.0)
    assert c.empty_predictions == 3
    assert (c.line_format_match_rate, c.clean_format_rate, c.explanation_rate) == (0.0, 0.0, 0.0)


def test_zero_weight_task_does_not_move_the_score():
    with_t3 = _rows({(1, 1): PERFECT, (1, 3): Cell(em=0.0, chrf=0.0, empty=False)})["A"]
    without = _rows({(1, 1): PERFECT})["A"]
    assert with_t3.overall == without.overall
    assert with_t3.empty_predictions == without.empty_predictions - 1


def test_weighted_aggregation_and_task_scores():
    cells = {(1, 1): Cell(em=0.5, chrf=0.8, empty=False), (1, 2): Cell(em=1.0, chrf=1.0)}
    a = _rows(cells)["A"]
    assert a.overall.exact_match == 0.75
    assert a.overall.chrf == 0.9
    assert a.overall.score == round(math.sqrt(0.75 * 0.9), 4)
    assert a.task_scores["t1"] == round(math.sqrt(0.5 * 0.8), 4)
    assert a.public.as_tuple() == (round(math.sqrt(0.4), 4), 0.5, 0.8)
    assert a.private.as_tuple() == (1.0, 1.0, 1.0)


def test_rates_are_fractions_of_all_tasks():
    cells = {
        (1, 1): PERFECT,
        (1, 2): Cell(item_count_matches=True, empty=False, has_explanation=True),
        (1, 3): Cell(clean_json_list=True, empty=False),
    }
    a = _rows(cells)["A"]
    assert a.line_format_match_rate == round(2 / 3, 4) == 0.6667
    assert a.clean_format_rate == 0.6667
    assert a.explanation_rate == 0.6667
    assert a.empty_predictions == 0


def test_no_tasks_gives_zero_rates():
    rows = board_rows(tasks=[], systems=[SystemInfo(1, "A")], cells={})
    assert rows[0].line_format_match_rate == 0.0
    assert rows[0].overall.score == 0.0
    assert rows[0].rank == 1


def test_as_dict_follows_the_board_columns():
    row = _rows({(1, 1): PERFECT}, systems=[SystemInfo(1, "A", team="Team A", tier="open")])["A"]
    record = row.as_dict()
    assert tuple(record) == BOARD_COLUMNS
    assert record["team"] == "Team A"
    assert record["tier"] == "open"
    assert record["rank"] == 1
    assert record["score"] == row.overall.score
    assert record["public_score"] == row.public.score
    assert record["private_split_chrf"] == row.private.chrf


# --- ranking ----------------------------------------------------------------------------


def test_ties_share_a_rank_and_the_next_rank_skips():
    cells = {(1, 1): PERFECT, (2, 1): PERFECT, (3, 2): Cell(em=0.5, chrf=0.5)}
    systems = [SystemInfo(1, "Zed"), SystemInfo(2, "Abe"), SystemInfo(3, "Mid")]
    rows = board_rows(tasks=TASKS, systems=systems, cells=cells)
    assert [(r.system, r.rank) for r in rows] == [("Abe", 1), ("Zed", 1), ("Mid", 3)]


def test_equal_scores_share_rank_even_when_exact_match_differs():
    # sqrt(1.0 * 0.36) == sqrt(0.6 * 0.6) == 0.6: same score, different EM.
    cells = {(1, 1): Cell(em=1.0, chrf=0.36), (2, 1): Cell(em=0.6, chrf=0.6)}
    systems = [SystemInfo(1, "HighEM"), SystemInfo(2, "LowEM")]
    tasks = TASKS[:1]
    rows = board_rows(tasks=tasks, systems=systems, cells=cells)
    assert rows[0].overall.score == rows[1].overall.score == 0.6
    assert [r.system for r in rows] == ["HighEM", "LowEM"]  # EM breaks the order...
    assert [r.rank for r in rows] == [1, 1]  # ...but not the rank


def test_public_and_private_rankings_differ():
    cells = {(1, 1): PERFECT, (2, 2): PERFECT, (2, 1): Cell(em=0.2, chrf=0.2)}
    public = board_rows(
        tasks=TASKS, systems=[SystemInfo(1, "A"), SystemInfo(2, "B")], cells=cells, rank_by="public"
    )
    private = board_rows(
        tasks=TASKS,
        systems=[SystemInfo(1, "A"), SystemInfo(2, "B")],
        cells=cells,
        rank_by="private",
    )
    assert [(r.system, r.rank) for r in public] == [("A", 1), ("B", 2)]
    assert [(r.system, r.rank) for r in private] == [("B", 1), ("A", 2)]


def test_rank_rows_reranks_by_another_split():
    cells = {(1, 1): PERFECT, (2, 2): PERFECT, (2, 1): Cell(em=0.2, chrf=0.2)}
    rows = board_rows(tasks=TASKS, systems=[SystemInfo(1, "A"), SystemInfo(2, "B")], cells=cells)
    assert [(r.system, r.rank) for r in rows] == [("B", 1), ("A", 2)]  # 0.6 overall beats 0.5
    rows = rank_rows(rows, rank_by="public")
    assert [(r.system, r.rank) for r in rows] == [("A", 1), ("B", 2)]


def test_unknown_split_is_refused():
    with pytest.raises(KeyError):
        board_rows(tasks=TASKS, systems=[SystemInfo(1, "A")], cells={}, rank_by="secret")


# --- rank_changes -----------------------------------------------------------------------


def test_rank_changes_lists_score_and_rank_moves_only():
    systems = [SystemInfo(1, "A"), SystemInfo(2, "B"), SystemInfo(3, "C")]
    before = board_rows(
        tasks=TASKS, systems=systems, cells={(1, 1): PERFECT, (2, 1): Cell(em=0.5, chrf=0.5)}
    )
    after = board_rows(
        tasks=TASKS,
        systems=[*systems, SystemInfo(4, "New")],
        cells={(1, 1): PERFECT, (2, 1): PERFECT, (2, 2): PERFECT},
    )
    changes = {c["system"]: c for c in rank_changes(before, after)}
    # C stays third (tied at 0 with New, which was not on the old board and is not listed).
    assert [(r.system, r.rank) for r in after][2:] == [("C", 3), ("New", 3)]
    assert set(changes) == {"A", "B"}
    assert changes["B"] == {
        "system": "B",
        "score_before": before[1].overall.score,
        "score_after": 1.0,
        "rank_before": 2,
        "rank_after": 1,
    }
    assert changes["A"]["score_before"] == changes["A"]["score_after"] == 0.5
    assert (changes["A"]["rank_before"], changes["A"]["rank_after"]) == (1, 2)


def test_rank_changes_of_identical_boards_is_empty():
    cells = {(1, 1): PERFECT}
    assert rank_changes(list(_rows(cells).values()), list(_rows(cells).values())) == []


# --- the selector on the demo -----------------------------------------------------------


def _by_name(rows):
    return {r.system: r for r in rows}


def test_raw_text_system_scores_better_extracted_than_parsed(demo_competition):
    _, parsed = leaderboard(demo_competition, stage="parsed")
    _, extracted = leaderboard(demo_competition, stage="extracted")
    _, official = leaderboard(demo_competition)
    raw_parsed, raw_extracted = _by_name(parsed)[RAW_SYSTEM], _by_name(extracted)[RAW_SYSTEM]
    assert raw_extracted.overall.score > raw_parsed.overall.score
    assert raw_extracted.overall.exact_match > raw_parsed.overall.exact_match
    assert raw_extracted.rank < raw_parsed.rank
    # Free model text is officially scored after extraction.
    assert _by_name(official)[RAW_SYSTEM].overall == raw_extracted.overall
    # Submissions in the competition's format score the same either way.
    for name in ("Ensemble-3", "Frontier-A", "Frontier-B", "Team Lexicon", "OpenModel-7B"):
        assert _by_name(parsed)[name].overall == _by_name(extracted)[name].overall
        assert _by_name(official)[name].overall == _by_name(parsed)[name].overall


def test_tier_filter(demo_competition):
    _, everyone = leaderboard(demo_competition)
    _, frontier = leaderboard(demo_competition, tiers=["frontier"])
    assert {r.system for r in frontier} == {"Frontier-A", "Frontier-B", RAW_SYSTEM}
    assert all(r.tier == "frontier" for r in frontier)
    # Ranks are within the filtered board.
    assert [r.rank for r in frontier] == [1, 2, 3]
    for row in frontier:
        assert row.overall == _by_name(everyone)[row.system].overall
    _, two = leaderboard(demo_competition, tiers=["baseline", "open"])
    assert {r.system for r in two} == {"Baseline-echo", "OpenModel-7B"}
    _, none = leaderboard(demo_competition, tiers=["other"])
    assert none == []
    _, unfiltered = leaderboard(demo_competition, tiers=[])
    assert len(unfiltered) == len(everyone) == 8  # the demo's oracle is on the organizers' board


def test_demo_ranking_by_private_split(demo_competition):
    _, rows = leaderboard(demo_competition, rank_by="private")
    scores = [r.private.score for r in rows]
    assert scores == sorted(scores, reverse=True)
    # Frontier-B is behind Frontier-A overall but ahead on the private split.
    by = _by_name(rows)
    assert by["Frontier-B"].rank < by["Frontier-A"].rank


def test_selector_refuses_unknown_metric_and_stage(demo_competition):
    with pytest.raises(ValueError, match="unknown metric"):
        leaderboard(demo_competition, metric="bleu")
    with pytest.raises(ValueError, match="unknown stage"):
        leaderboard(demo_competition, stage="raw")


def test_selector_sacrebleu_changes_chrf_not_exact_match(demo_competition):
    _, iol = leaderboard(demo_competition)
    _, sb = leaderboard(demo_competition, metric="sacrebleu")
    iol, sb = _by_name(iol), _by_name(sb)
    assert all(iol[s].overall.exact_match == sb[s].overall.exact_match for s in iol)
    assert any(iol[s].overall.chrf != sb[s].overall.chrf for s in iol)


def test_board_sort_by_column_task_and_tier():
    from puzzles.leaderboard import BoardRow, board_sort
    from puzzles.metrics import Aggregate

    def row(i, name, tier, score, task):
        figures = Aggregate(exact_match=score, chrf=score, score=score, n_rows=1)
        return BoardRow(
            i, name, "", tier, figures, figures, figures, 1.0, 1.0, 0, 1.0, {"t1": task}, i
        )

    a, b, c = (
        row(1, "A", "open", 0.9, 0.1),
        row(2, "B", "baseline", 0.5, 0.7),
        row(3, "C", "open", 0.7, 0.4),
    )
    board = [a, b, c]
    assert board_sort(board, sort="score") == [b, c, a]
    assert board_sort(board, sort="-score") == [a, c, b]
    assert board_sort(board, sort="-task_t1") == [b, c, a]
    assert board_sort(board, sort="task_t9") == board  # no such task: every row scores 0
    assert board_sort(board, sort="nonsense") == board
    assert board_sort(board, sort="-score", group=True) == [b, a, c]  # stable within a tier
    assert board == [a, b, c]  # the input is left as it was
