"""Finding answer items (puzzles/extraction/items.py): JSON, boxes, tables, labelled lists,
plain lines; the cases mutation testing showed no test held."""

from __future__ import annotations

import pytest

from puzzles.extraction.items import _embedded_json, _find_json, _own_line, load_json
from puzzles.extraction.patterns import MAX_EMBEDDED_TRIES

from .extraction_checks import check

Q_DOGS = "Translate into Vashenti:\n\n16. the dogs\n17. the birds"
Q_MATCH = "Match the Vashenti words to their meanings:\n\na) the dogs\nb) the birds"


# --- JSON -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, n, items, explanation",
    [
        pytest.param(
            '{"answers": ["tovak", "mirelu"]}',
            2,
            ["tovak", "mirelu"],
            "",
            id="answers-object-without-explanation",
        ),
        pytest.param(
            'The suffix -ak marks the plural.\n\nAnswer:\n["tovak", "mirelu"]',
            2,
            ["tovak", "mirelu"],
            "The suffix -ak marks the plural.",
            id="answer-section-all-json-not-in-explanation",
        ),
        pytest.param(
            'Some words first.\n\nAnswer:\n{"answers": ["tovak", "mirelu"], '
            '"explanation": "-ak is plural"}',
            2,
            ["tovak", "mirelu"],
            "-ak is plural",
            id="answer-section-object-explanation",
        ),
        pytest.param(
            'The suffix -ak marks the plural, so: ["tovak", "mirelu"]',
            2,
            ["tovak", "mirelu"],
            "The suffix -ak marks the plural, so:",
            id="embedded-list-cut-from-explanation",
        ),
        pytest.param(
            'Here it is: {"answers": ["tovak", "mirelu"], "explanation": "-ak marks the plural"}',
            2,
            ["tovak", "mirelu"],
            "-ak marks the plural",
            id="embedded-object-explanation",
        ),
    ],
)
def test_json_items_and_explanation(text, n, items, explanation):
    check(text, n, items, explanation, "json")


@pytest.mark.parametrize(
    "text, n, items, method",
    [
        pytest.param(
            'Here:\n```json\n["tovak", "mirelu"]\n```\nDone.',
            3,
            ["tovak", "mirelu", ""],
            "json",
            id="fenced-list-shorter-than-n-is-still-the-answer",
        ),
        pytest.param(
            'A draft:\n```json\n["sanu", "mirel"]\n```\nand better:\n'
            '```json\n["tovak", "mirelu"]\n```',
            2,
            ["tovak", "mirelu"],
            "json",
            id="two-fenced-lists-the-last-wins",
        ),
        pytest.param(
            '```json\n["tovak", "mirelu"]\n```\nwhere the stems are\n'
            '```json\n["tov", "mirel", "-ak"]\n```',
            2,
            ["tovak", "mirelu"],
            "json",
            id="fenced-list-of-n-beats-a-later-one",
        ),
        pytest.param(
            'Since [-ak] marks the plural, I give ["tovak", "mirelu"].',
            2,
            ["tovak", "mirelu"],
            "json",
            id="embedded-list-after-a-bracketed-word",
        ),
        pytest.param(
            'Draft: {"answers": ["sanu", "mirel"]}\nFinal: {"answers": ["tovak", "mirelu"]}',
            2,
            ["tovak", "mirelu"],
            "json",
            id="embedded-objects-the-last-wins",
        ),
        pytest.param(
            'The roots ["tov", "mirel", "san"] take -ak.\n\n1. tovak\n2. mirelu',
            2,
            ["tovak", "mirelu"],
            "numbered",
            id="embedded-list-of-wrong-length-is-prose",
        ),
    ],
)
def test_json_choice(text, n, items, method):
    check(text, n, items, method=method)


def test_load_json_strict_refuses_python_repr():
    assert load_json("['tovak', 'mirelu']") == ["tovak", "mirelu"]
    assert load_json("['tovak', 'mirelu']", strict=True) is None
    assert load_json('["tovak", "mirelu"]', strict=True) == ["tovak", "mirelu"]


def test_load_json_reads_python_repr_up_to_20000_chars():
    def python_list(length):
        text = "['" + "a" * (length - 4) + "']"
        assert len(text) == length
        return text

    assert load_json(python_list(20_000)) == ["a" * 19_996]
    assert load_json(python_list(20_001)) is None


@pytest.mark.parametrize(
    "text",
    [
        "As [1] and [3, 7] show, -ak marks the plural.",
        "No list here at all.",
        "A bracket [ that never closes.",
    ],
)
def test_find_json_finds_nothing_in_prose(text):
    assert _find_json(text, 2) is None


def test_embedded_json_gives_up_after_max_tries():
    answer = '["tovak", "mirelu"]'
    assert _embedded_json("[x] " * (MAX_EMBEDDED_TRIES - 1) + answer, 2).items == [
        "tovak",
        "mirelu",
    ]
    assert _embedded_json("[x] " * MAX_EMBEDDED_TRIES + answer, 2) is None
    # A list found before the limit is kept.
    assert _embedded_json(answer + " [x]" * MAX_EMBEDDED_TRIES, 2).items == ["tovak", "mirelu"]


@pytest.mark.parametrize(
    "text, own",
    [
        ("[1, 2]", True),
        ("  [1, 2]  \n", True),
        ("a\nb\n[1, 2]", True),
        ("[1, 2]\nnext line\nmore", True),
        ("see [1, 2]\nmore", False),
        ("x [1, 2]", False),
        ("notes\nx [1, 2]", False),
        ("a\n[1, 2] b", False),
        ("[1, 2] x", False),
    ],
)
def test_own_line(text, own):
    start = text.index("[")
    assert _own_line(text, start, text.index("]") + 1) is own


def test_list_of_numbers_on_its_own_line_is_the_answer():
    check("The order is:\n[3, 1]\nas the prefixes show.", 2, ["3", "1"], method="json")
    check("The order, as in [3, 1], is odd.\n\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"])


# --- LaTeX boxes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            r"$\boxed{\text{the dogs} = \text{tovak}}$ and "
            r"$\boxed{\text{the birds} = \text{mirelu}}$",
            id="one-box-per-item",
        ),
        pytest.param(
            r"$\boxed{\text{the dogs} = \text{tovak} \\ \text{the birds} = \text{mirelu}}$",
            id="one-box-holding-the-list",
        ),
    ],
)
def test_boxed_items_lose_the_echoed_source(text):
    check(text, 2, ["tovak", "mirelu"], method="boxed", query=Q_DOGS)


def test_empty_box_is_not_the_answer():
    check("$\\boxed{}$\n\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"], method="numbered")


def test_one_box_holding_the_list_keeps_the_text_before_it():
    text = "The suffix -ak marks the plural.\n\n$\\boxed{tovak, mirelu}$"
    check(text, 2, ["tovak", "mirelu"], "The suffix -ak marks the plural.\n\ntovak, mirelu")


# --- tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, query, method",
    [
        pytest.param(
            "| # | Answer\n|---|---\n| 1 | tovak\n| 2 | mirelu",
            "",
            "numbered",
            id="rows-without-closing-pipe",
        ),
        pytest.param(
            "| # | English | Vashenti |\n|---|---|---|\n"
            "| 1 | the dogs | tovak |\n| 2 | the birds | mirelu |",
            "",
            "numbered",
            id="answer-in-last-of-three-cells",
        ),
        pytest.param(
            "| English | Gloss | Vashenti |\n|---|---|---|\n"
            "| the dogs | dog-PL | tovak |\n| the birds | bird-PL | mirelu |",
            "",
            "numbered",
            id="no-label-column",
        ),
        pytest.param(
            "| 17. | mirelu |\n| 16. | tovak |", Q_DOGS, "labelled", id="dotted-labels-mapped"
        ),
    ],
)
def test_tables(text, query, method):
    check(text, 2, ["tovak", "mirelu"], method=method, query=query)


@pytest.mark.parametrize(
    "row",
    [pytest.param("| | |", id="empty-row"), pytest.param("|", id="stray-pipe")],
)
def test_table_row_without_content_is_not_an_item(row):
    text = f"| the dogs | tovak |\n{row}\n| the birds | mirelu |"
    check(text, 2, ["tovak", "mirelu"], method="numbered", n_found=2)


def test_a_leading_pipe_alone_is_a_click_not_a_table():
    check("Answers:\n|xam\n!kwa", 2, ["|xam", "!kwa"], method="answer_section")


def test_upper_case_roman_labels_in_a_table_are_mapped():
    query = "Translate into Vashenti:\n\nIX. the dogs\nX. the birds"
    check("| X | mirelu |\n| IX | tovak |", 2, ["tovak", "mirelu"], method="labelled", query=query)


def test_compact_table_of_letters():
    check("|1|B|\n|2|X|", 2, ["B", "X"], method="numbered")


def test_one_column_of_letters_is_read_in_order():
    # The answers are letters, not labels, even when they are the query's labels.
    check("| Answer |\n|---|\n| b |\n| a |", 2, ["b", "a"], query=Q_MATCH)


# --- labelled lists -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, n, items, method, query",
    [
        pytest.param(
            "Answer:\n16. tovak\nThat is my guess.",
            2,
            ["tovak", ""],
            "numbered",
            "",
            id="lone-numbered-line-in-answer-section",
        ),
        pytest.param(
            "tovak\nmirelu\n\n1. -ak marks the plural.",
            2,
            ["tovak", "mirelu"],
            "lines",
            "",
            id="lone-numbered-note-outside-a-section-is-prose",
        ),
        pytest.param(
            "Some reasoning.\n\n1. tovak", 1, ["tovak"], "numbered", "", id="single-item-numbered"
        ),
        pytest.param(
            "i) -ak marks the plural\nii) mi- marks the past\nA. tovak\nB. mirelu",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="roman-notes-then-lettered-answers",
        ),
        pytest.param(
            "1. -ak marks the plural\n2. mi- marks the past\nA. tovak\nB. mirelu",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="numbered-notes-then-lettered-answers",
        ),
        pytest.param(
            "1. tovak\n2. mirelu\n- -ak marks the plural",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="bullet-note-after-numbered-answers",
        ),
        pytest.param(
            "1. tovak\n2. mirelu\n\na) -ak marks the plural",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="lettered-note-after-numbered-answers",
        ),
        pytest.param(
            "a) sanu\nb) mirel\n\nOn second thought:\na) tovak\nb) mirelu",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="letters-restart-the-last-list-wins",
        ),
        pytest.param(
            "1. sanu\n01. tovak\n02. mirelu",
            2,
            ["tovak", "mirelu"],
            "numbered",
            "",
            id="same-number-zero-padded-restarts",
        ),
        pytest.param(
            "1. -ak marks the plural\n2. mi- marks the past\n17. mirelu\n16. tovak",
            2,
            ["tovak", "mirelu"],
            "labelled",
            Q_DOGS,
            id="half-the-labels-are-the-querys",
        ),
        pytest.param(
            "1. tovak\n2. mirelu\n16. (see above)",
            2,
            ["tovak", "mirelu"],
            "numbered",
            Q_DOGS,
            id="a-third-of-the-labels-are-the-querys",
        ),
        pytest.param(
            "1. the dogs = tovak\n2. the birds = mirelu",
            2,
            ["tovak", "mirelu"],
            "numbered",
            Q_DOGS,
            id="numbered-items-lose-the-echoed-source",
        ),
        pytest.param(
            "NB. -ak marks the plural here.\n\ntovak",
            1,
            ["tovak"],
            "lines",
            "",
            id="nb-is-not-a-label",
        ),
        pytest.param(
            "oops. sanu was wrong.\n\ntovak", 1, ["tovak"], "lines", "", id="a-word-is-not-a-label"
        ),
    ],
)
def test_labelled_lists(text, n, items, method, query):
    check(text, n, items, method=method, query=query)


# --- plain lines ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, n, items, explanation",
    [
        pytest.param(
            "Draft: sanu\n---\ntovak", 1, ["tovak"], "Draft: sanu", id="rule-ends-a-paragraph"
        ),
        pytest.param("Sure!\ntovak", 1, ["tovak"], "", id="chatter-line-dropped"),
        pytest.param(
            "The suffix -ak marks plural.\n\nAnswer:\ntovak",
            1,
            ["tovak"],
            "The suffix -ak marks plural.",
            id="answer-section-single-item",
        ),
        pytest.param(
            "For the plural forms:\ntovak\nmirelu",
            2,
            ["tovak", "mirelu"],
            "For the plural forms:",
            id="intro-line-ending-in-colon",
        ),
        pytest.param(
            "Vashenti forms：\ntovak\nmirelu",
            2,
            ["tovak", "mirelu"],
            "Vashenti forms：",
            id="intro-line-ending-in-fullwidth-colon",
        ),
        pytest.param("Okay\nthe dogs", 2, ["Okay", "the dogs"], "", id="n-lines-are-all-answers"),
        pytest.param(
            "The -ak suffix marks the plural.\n\ntovak\nmirelu",
            2,
            ["tovak", "mirelu"],
            "The -ak suffix marks the plural.",
            id="trailing-paragraph-of-n-lines",
        ),
        pytest.param(
            "Here:\n- tovak\n- mirelu\n\n1. -ak marks plural",
            2,
            ["tovak", "mirelu"],
            None,
            id="bullets-before-a-lone-numbered-note",
        ),
    ],
)
def test_plain_lines(text, n, items, explanation):
    check(text, n, items, explanation)


def test_plain_lines_lose_the_echoed_source():
    check("the dogs = tovak\nthe birds = mirelu", 2, ["tovak", "mirelu"], query=Q_DOGS)


def test_counts_all_lines_found():
    check("tovak\nmirelu\nsanu", 2, ["tovak", "mirelu"], method="lines", n_found=3)


@pytest.mark.parametrize(
    "text, n, explanation",
    [
        pytest.param("<answer></answer>", 1, "", id="empty-answer-block"),
        pytest.param(
            "The suffix -ak marks the plural.\n\nAnswer:\nI could not decide between:",
            2,
            "The suffix -ak marks the plural.",
            id="answer-section-of-intro-lines",
        ),
    ],
)
def test_nothing_found(text, n, explanation):
    check(text, n, [""] * n, explanation, n_found=0)


@pytest.mark.parametrize(
    "section",
    [
        '["tovak", "mirelu", "sanu"]',
        "['tovak', 'mirelu', 'sanu']",
        '{"answers": ["tovak", "mirelu", "sanu"]}',
    ],
)
def test_an_answer_section_that_is_one_list_is_read_whole_whatever_its_length(section):
    # Only a list inside prose must have the task's item count; a section that is nothing
    # but a list is the answer list, cut to the items asked for.
    text = f"Explanation: -ak is the plural.\n\nAnswer:\n{section}"
    check(text, 2, ["tovak", "mirelu"], method="json", n_found=3)
