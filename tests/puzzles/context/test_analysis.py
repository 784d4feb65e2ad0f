"""The pure damage analysis against small invented puzzles, figures computed by hand."""

from __future__ import annotations

import pytest

from puzzles.context.lab.analysis import (
    Example,
    Question,
    analyse,
    analysis_report,
    tokens_normalized,
    tokens_whitespace,
)
from puzzles.context.lab.deletions import greedy_deletion, optimal_deletion

# Puzzle A. Token occurrences (examples counted from 1):
#   ka {1,2,3} (in three examples), mo {1,5}, ti {2,3}, lu {3}, pe {4}, pa {4}, ro {5}
#   Example 4 has two foreign alternatives, "pe" and "pa": its tokens are their union.
#   Singletons: lu (3), pe and pa (4), ro (5)  ->  D = 0, 0, 1, 2, 1
A_EXAMPLES = (
    Example(foreign=("ka mo",), english="the man sleeps"),
    Example(foreign=("ka ti",), english="the man eats"),
    Example(foreign=("ka lu ti",), english="the man eats fish"),
    Example(foreign=("pe", "pa"), english="water"),
    Example(foreign=("ro mo",), english="the dog sleeps"),
)
A_QUESTIONS = (
    # q1 needs ka, lu: lu only in 3 -> damaged by 3; distance 1 ({3}).
    Question(id="q1", direction="to_english", prompt="ka lu", answers=("the man, fish",)),
    # q2 needs two singletons, ro (5) and pe (4) -> damaged by 4 and by 5; distance 1.
    Question(id="q2", direction="to_english", prompt="ro pe", answers=("dog water",)),
    # q3, two accepted answers: {ka, ti} or {ka, mo}; no singleton -> never damaged alone.
    #   Distance: one token per alternative, smallest union: ti {2,3} + ka {1,2,3} = {1,2,3}.
    Question(id="q3", direction="to_foreign", prompt="the man eats", answers=("ka ti", "ka mo")),
    # q4: {lu} or {pa}: deleting 3 kills lu, deleting 4 kills pa, only both damage it.
    #   Distance 2 ({3,4}).
    Question(id="q4", direction="to_foreign", prompt="fish", answers=("lu", "pa")),
    # q5 needs ka {1,2,3} and zz, which is not in the context (cannot be lost): distance 3.
    Question(id="q5", direction="to_english", prompt="ka zz", answers=("man ?",)),
    # q6: {zz} or {ka}; the zz alternative can lose nothing -> no deletion damages q6.
    Question(id="q6", direction="to_foreign", prompt="?", answers=("zz", "ka")),
)
# D_Q: example 3 -> q1; 4 -> q2; 5 -> q2; 1 and 2 -> nothing. max 1: fragile.


@pytest.fixture
def a():
    return analyse(A_EXAMPLES, A_QUESTIONS, tokenizer="whitespace")


def test_coverage_matrix_and_singletons(a):
    assert [r.token for r in a.tokens] == ["ka", "mo", "ti", "lu", "pe", "pa", "ro"]
    assert a.coverage[0] == (1, 1, 1, 0, 0)  # ka: three examples
    assert a.coverage[4] == a.coverage[5] == (0, 0, 0, 1, 0)  # both alternatives of 4
    assert [r.token for r in a.tokens if r.singleton] == ["lu", "pe", "pa", "ro"]
    assert a.tokens[0].questions == ("q1", "q3", "q5", "q6")
    assert a.tokens[3].questions == ("q1", "q4")


def test_base_damage_and_question_damage(a):
    assert [e.d for e in a.examples] == [0, 0, 1, 2, 1]
    assert a.example(4).singletons == ("pe", "pa")
    assert [e.dq for e in a.examples] == [0, 0, 1, 1, 1]
    assert [e.damaged_questions for e in a.examples] == [(), (), ("q1",), ("q2",), ("q2",)]
    assert a.max_dq == 1 and a.fragile


def test_required_tokens_follow_the_direction(a):
    by_id = {q.id: q for q in a.questions}
    assert by_id["q1"].required == (("ka", "lu"),)  # the prompt's
    assert by_id["q3"].required == (("ka", "ti"), ("ka", "mo"))  # each answer's
    assert by_id["q2"].damaged_by == (4, 5)
    assert by_id["q5"].absent == by_id["q6"].absent == ("zz",) and by_id["q1"].absent == ()


def test_deletion_distances(a):
    found = {q.id: (q.distance, q.distance_examples) for q in a.questions}
    assert found == {
        "q1": (1, (3,)),
        "q2": (1, (4,)),
        "q3": (3, (1, 2, 3)),
        "q4": (2, (3, 4)),
        "q5": (3, (1, 2, 3)),
        "q6": (None, ()),
    }
    assert a.smallest_distance == 1
    # The distance's set really damages the question, and no smaller one did (checked by
    # the optimum below for q4).
    assert "q3" in a.damaged_questions((1, 2, 3))
    assert "q3" not in a.damaged_questions((2, 3))


def test_multi_example_deletion(a):
    # Deleting 3 and 4: q1 (lu), q2 (pe), q4 (lu and pa both gone).
    assert a.damaged_questions([3, 4]) == ("q1", "q2", "q4")
    # Deleting 2 and 3 removes ti, so q3's first answer, but not its second.
    assert a.damaged_questions([2, 3]) == ("q1",)
    assert a.damaged_questions([]) == ()


def test_greedy_and_optimum_agree_on_a(a):
    # Step 1: 3, 4, 5 each damage one question; the lowest index, 3, wins.
    # Step 2: with 3 deleted, adding 1 -> 1, 2 -> 1, 4 -> 3 (q1, q2, q4), 5 -> 2.
    greedy = greedy_deletion(a, 2)
    assert greedy.deleted == (3, 4) and greedy.damage == 3
    search = optimal_deletion(a, 2)
    assert not search.skipped and search.combinations == 10
    assert search.best.deleted == (3, 4) and search.best.damaged_questions == ("q1", "q2", "q4")


def test_greedy_falls_short_of_the_optimum():
    # a {1}; b, c {2,3}. Alone, only example 1 damages anything (q1), so greedy takes it
    # first and then cannot damage q2..q4 with one more; deleting 2 and 3 damages three.
    examples = (Example(foreign=("a",)), Example(foreign=("b c",)), Example(foreign=("c b",)))
    questions = (
        Question(id="q1", direction="to_english", prompt="a"),
        Question(id="q2", direction="to_english", prompt="b"),
        Question(id="q3", direction="to_english", prompt="c"),
        Question(id="q4", direction="to_foreign", prompt="x", answers=("b", "c")),
    )
    result = analyse(examples, questions)
    greedy = greedy_deletion(result, 2)
    assert greedy.deleted == (1, 2) and greedy.damaged_questions == ("q1",)
    best = optimal_deletion(result, 2).best
    assert best.deleted == (2, 3) and best.damaged_questions == ("q2", "q3", "q4")


def test_the_exhaustive_search_says_when_it_is_skipped(a):
    search = optimal_deletion(a, 2, cap=9)  # C(5, 2) = 10 subsets
    assert search.skipped and search.best is None and search.combinations == 10
    with pytest.raises(ValueError):
        greedy_deletion(a, 6)


# Puzzle L: the tokenizers differ on "Leo", "leo" and "leo." and keep "mi=ta" whole.
L_EXAMPLES = (
    Example(foreign=("Leo sana",)),
    Example(foreign=("leo mi",)),
    Example(foreign=("sana mi=ta",)),
    Example(foreign=("mi=ta leo.",)),
)
L_QUESTIONS = (
    Question(id="a", direction="to_english", prompt="Leo mi=ta"),
    Question(id="b", direction="to_foreign", prompt="?", answers=("sana leo.",)),
)


def test_whitespace_tokens_are_the_papers():
    # Leo {1}, sana {1,3}, leo {2}, mi {2}, mi=ta {3,4}, leo. {4}
    # Singletons: Leo (1); leo, mi (2); leo. (4)  ->  D = 1, 2, 0, 1
    # a needs Leo {1}, mi=ta -> damaged by 1; b needs sana, leo. {4} -> damaged by 4.
    result = analyse(L_EXAMPLES, L_QUESTIONS, tokenizer="whitespace")
    assert [r.token for r in result.tokens] == ["Leo", "sana", "leo", "mi", "mi=ta", "leo."]
    assert [e.d for e in result.examples] == [1, 2, 0, 1]
    assert [e.damaged_questions for e in result.examples] == [("a",), (), (), ("b",)]
    assert result.fragile and result.max_dq == 1


def test_normalized_tokens_make_the_same_puzzle_robust():
    # leo {1,2,4}, sana {1,3}, mi {2}, mi=ta {3,4}: one singleton, mi (2) -> D = 0, 1, 0, 0.
    # a needs leo, mi=ta; b needs sana, leo: none a singleton -> D_Q all 0: robust.
    result = analyse(L_EXAMPLES, L_QUESTIONS, tokenizer="normalized")
    assert [r.token for r in result.tokens] == ["leo", "sana", "mi", "mi=ta"]
    assert [e.d for e in result.examples] == [0, 1, 0, 0]
    assert [e.dq for e in result.examples] == [0, 0, 0, 0]
    assert not result.fragile and result.max_dq == 0
    # Still damageable by deleting two examples: mi=ta lives in 3 and 4.
    assert result.smallest_distance == 2
    assert analysis_report(result, puzzle="leo") == {
        "puzzle": "leo",
        "tokenizer": "normalized",
        "fragile": False,
        "max_dq": 0,
        "examples": [
            {"index": j, "d": d, "dq": 0, "damaged_questions": []}
            for j, d in zip((1, 2, 3, 4), (0, 1, 0, 0), strict=True)
        ],
    }


def test_normalized_tokenizer():
    assert tokens_normalized("«Leo», mi=ta! — ŊA.") == ("leo", "mi=ta", "ŋa")
    assert tokens_normalized("Cafe\u0301 STRASSE don't") == ("café", "strasse", "don't")
    assert tokens_normalized("Straße (ka)") == ("strasse", "ka")
    assert tokens_whitespace("«Leo», mi=ta!  —") == ("«Leo»,", "mi=ta!", "—")


def test_unknown_tokenizer_and_direction_are_refused():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        analyse(A_EXAMPLES, A_QUESTIONS, tokenizer="bpe")
    with pytest.raises(ValueError, match="direction"):
        analyse(A_EXAMPLES, (Question(id="x", direction="sideways", prompt="ka"),))


@pytest.mark.parametrize("name", ["analysis", "distance", "deletions"])
def test_the_analysis_modules_are_pure(name):
    import ast
    import importlib
    from pathlib import Path

    module = importlib.import_module(f"puzzles.context.lab.{name}")
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not any(name.startswith(("django", "puzzles", "grading")) for name in imported)


@pytest.mark.parametrize("work", [None, 1])
@pytest.mark.parametrize("seed", range(6))
def test_the_exact_optimum_is_every_subsets_best(seed, work, monkeypatch):
    """The search skips questions k deletions cannot reach: the best damage is unchanged,
    also when distance searches stopped early (work 1) and their distances are bounds."""
    import random
    from itertools import combinations

    from puzzles.context.lab import analysis as module
    from puzzles.context.lab.analysis import analyse
    from puzzles.context.lab.deletions import greedy_deletion, greedy_deletions, optimal_deletion
    from tests.puzzles.context.random_puzzles import random_puzzle

    if work is not None:
        monkeypatch.setattr(module, "DISTANCE_SEARCH_WORK", work)
    spec = random_puzzle(random.Random(seed), slug=f"p{seed}", n_examples=12, n_questions=10)
    analysis = analyse(spec.examples, spec.questions)
    assert analysis.distances_exact or work == 1
    for k in (1, 2, 3):
        best = max(
            len(analysis.damaged_questions(chosen))
            for chosen in combinations(range(1, analysis.n_examples + 1), k)
        )
        assert optimal_deletion(analysis, k).best.damage == best
        # Greedy's k-th step extends its (k-1)-th; each step takes the most damaging example.
        assert greedy_deletions(analysis, 3)[k - 1] == greedy_deletion(analysis, k)
        before = set(greedy_deletion(analysis, k - 1).deleted) if k > 1 else set()
        after = greedy_deletion(analysis, k)
        assert before < set(after.deleted)
        assert after.damage == max(
            len(analysis.damaged_questions(sorted(before | {j})))
            for j in range(1, analysis.n_examples + 1)
            if j not in before
        )


def _smallest_union(alternatives) -> int | None:
    """The smallest union of one mask per alternative, by trying every choice."""
    from itertools import product

    if not alternatives or any(not alt for alt in alternatives):
        return None
    return min(_or(choice).bit_count() for choice in product(*alternatives))


def _or(masks) -> int:
    union = 0
    for m in masks:
        union |= m
    return union


@pytest.mark.parametrize("seed", range(200))
def test_the_distance_search_finds_thesmallest_damaging_set(seed):
    import random

    from puzzles.context.lab.distance import indices_of, smallest_damaging_set

    rng = random.Random(seed)
    examples = rng.randint(1, 10)
    alternatives = tuple(
        tuple(
            _or(1 << rng.randrange(examples) for _ in range(rng.randint(1, 3)))
            for _ in range(rng.randint(1, 4))
        )
        for _ in range(rng.randint(1, 5))
    )
    found, exact = smallest_damaging_set(alternatives)
    assert exact
    assert len(found) == _smallest_union(alternatives)
    # It damages the question: each alternative loses a token whose examples are all in it.
    gone = sum(1 << (j - 1) for j in found)
    assert all(any(m & ~gone == 0 for m in alt) for alt in alternatives)
    assert found == indices_of(gone)


def test_the_distance_search_stops_and_says_its_distance_is_an_upper_bound():
    import random

    from puzzles.context.lab.distance import DISTANCE_SEARCH_WORK, smallest_damaging_set

    # Ten accepted answers of ten words, each word in two of 40 examples: a hitting-set
    # instance the pruned search could spend 10^10 steps on.
    rng = random.Random(7)
    alternatives = tuple(
        tuple((1 << rng.randrange(40)) | (1 << rng.randrange(40)) for _ in range(10))
        for _ in range(10)
    )
    found, exact = smallest_damaging_set(alternatives, work=DISTANCE_SEARCH_WORK)
    assert not exact
    gone = sum(1 << (j - 1) for j in found)
    assert all(any(m & ~gone == 0 for m in alt) for alt in alternatives)
    # The same instance with room enough is searched to the end, and no larger.
    exact_found, done = smallest_damaging_set(alternatives, work=10**9)
    assert done and len(exact_found) <= len(found)
    # Disjoint answers (each word in its own example) are settled at once by the bound.
    disjoint = tuple(tuple(1 << (10 * a + w) for w in range(10)) for a in range(10))
    found, exact = smallest_damaging_set(disjoint)
    assert exact and len(found) == 10
