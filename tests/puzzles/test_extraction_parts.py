"""Extraction, part by part: headings and sections, tagged blocks and reasoning traces,
echoed sources and emphasis, LaTeX, and what is left for the explanation.

Written against the survivors of the first mutation run (issue 7): each test pins a
behaviour a reader of the reply would notice if it changed.
"""

from __future__ import annotations

import pytest

from puzzles.extraction.latex import latex_plain
from puzzles.extraction.traces import read_reply

from .extraction_checks import check

Q_2 = "Translate into Vashenti:\n\n16. You all held me.\n17. I called you all."
Q_NUMBERS = "Write in Vashenti numerals:\n\n16. 7\n17. 9"
NOTES = "The suffix -ak marks the plural."


# --- Sections and headings ------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading",
    ["Final Answer:", "**Final answers**", "### FINAL ANSWER", "Final translations:"],
)
def test_final_answer_section_wins_over_a_later_answer_section(heading):
    text = f"{heading}\n1. tovak\n2. mirelu\n\nSolution:\nFirst, {NOTES}\nThen mi- marks you all."
    check(text, 2, ["tovak", "mirelu"])


def test_answer_block_wins_over_a_drafted_final_answer():
    text = (
        "Final answer:\n1. sanu\n2. lemi\nWait, -ak marks the plural. Let me redo it.\n"
        "<answer>\n1. tovak\n2. mirelu\n</answer>"
    )
    check(text, 2, ["tovak", "mirelu"])


@pytest.mark.parametrize(
    "text, n, items",
    [
        pytest.param("### Final answer: tovak", 1, ["tovak"], id="answer-on-the-heading-line"),
        pytest.param("## Answers: tovak, mirelu", 1, ["tovak, mirelu"], id="hashes-then-rest"),
        pytest.param("## The answer is below\n\ntovak", 1, ["tovak"], id="heading-not-sentence"),
    ],
)
def test_markdown_heading_opens_an_answer_section(text, n, items):
    check(text, n, items, explanation="")


def test_markdown_heading_naming_translations_anywhere_opens_the_answers():
    text = (
        "## Vashenti translations\n1. tovak\n2. mirelu\n\n"
        "## How I found them\n1. -ak marks the plural\n2. mi- marks you all"
    )
    check(text, 2, ["tovak", "mirelu"], "1. -ak marks the plural\n2. mi- marks you all")


def test_markdown_headings_without_a_keyword_leave_their_text_to_the_explanation():
    text = (
        f"## Step 1\n{NOTES}\n## Step 2\nThe prefix mi- marks you all.\n\n"
        "Answers:\n1. tovak\n2. mirelu"
    )
    check(text, 2, ["tovak", "mirelu"], f"{NOTES}\nThe prefix mi- marks you all.")


@pytest.mark.parametrize(
    "intro, opens",
    [
        pytest.param("My Vashenti translations of the sentences：", True, id="fullwidth-colon"),
        pytest.param("These would be my Vashenti translations of both sentences:", True, id="9"),
        pytest.param(
            "These would be my Vashenti translations of both given sentences:", True, id="10"
        ),
        pytest.param(
            "These would then be my Vashenti translations of both given sentences:",
            False,
            id="11-words-is-prose",
        ),
        pytest.param("Translations of sentences 16 and 17:", False, id="number-is-prose"),
    ],
)
def test_short_line_ending_in_a_colon_introduces_the_answers(intro, opens):
    text = f"{NOTES}\n{intro}\n1. tovak\n2. mirelu"
    explanation = NOTES if opens else f"{NOTES}\n{intro}"
    check(text, 2, ["tovak", "mirelu"], explanation)


def test_headings_inside_code_fences_do_not_open_sections():
    text = (
        "Answer:\n1. tovak\n2. mirelu\n\nAn earlier draft, kept for reference:\n"
        "```\nAnswer: sanu\n```"
    )
    check(text, 2, ["tovak", "mirelu"], "An earlier draft, kept for reference:\nAnswer: sanu")


def test_explanation_sections_are_joined_by_a_blank_line():
    text = (
        "Explanation: -ak marks the plural.\n\nAnswer:\n1. tovak\n2. mirelu\n\n"
        "Reasoning: mi- marks you all."
    )
    check(text, 2, ["tovak", "mirelu"], "-ak marks the plural.\n\nmi- marks you all.")


def test_explanation_keeps_indentation_and_loses_trailing_spaces():
    text = (
        "Answers:\n1. tovak\n2. mirelu\n\nExplanation:\nTwo affixes:   \n"
        "  - -ak marks the plural   \n  - mi- marks you all"
    )
    explanation = "Two affixes:\n  - -ak marks the plural\n  - mi- marks you all"
    check(text, 2, ["tovak", "mirelu"], explanation)


def test_leftover_explanation_keeps_indentation_and_loses_trailing_spaces():
    text = (
        "Two affixes:   \n  - -ak marks the plural   \n  - mi- marks you all\n\n"
        "Answers:\n1. tovak\n2. mirelu"
    )
    explanation = "Two affixes:\n  - -ak marks the plural\n  - mi- marks you all"
    check(text, 2, ["tovak", "mirelu"], explanation)


def test_explanation_loses_chatter_and_runs_of_blank_lines():
    text = (
        f"Answers:\n1. tovak\n2. mirelu\n\n{NOTES}\n\n\n\nThe prefix mi- marks you all.\n"
        "Good luck with the rest!"
    )
    check(text, 2, ["tovak", "mirelu"], f"{NOTES}\n\nThe prefix mi- marks you all.")


# --- Where the answers are looked for --------------------------------------------------------


def test_a_list_in_the_body_is_preferred_to_a_list_in_the_explanation():
    text = "1. tovak\n2. mirelu\n\nExplanation:\n1. -ak marks the plural\n2. mi- marks you all"
    check(text, 2, ["tovak", "mirelu"], "1. -ak marks the plural\n2. mi- marks you all")


def test_plain_lines_in_the_body_are_preferred_to_explanation_prose():
    text = "tovak\nmirelu\n\nExplanation:\n-ak marks the plural."
    check(text, 2, ["tovak", "mirelu"], "-ak marks the plural.", method="lines")


def test_whole_json_list_counts_every_element_before_cutting():
    result = check('["tovak", "mirelu", "sanu"]', 2, ["tovak", "mirelu"], "", "json")
    assert result.n_items_found == 3


def test_python_list_with_comment_lines_is_read_whole():
    # A comment line that reads like a heading ("# Reasoning: ...") used to cut the list.
    text = "[\n  # Reasoning: -ak is the plural suffix\n  'tovak',\n  'mirelu',\n]"
    check(text, 2, ["tovak", "mirelu"], "", "json")


# --- Tagged blocks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, explanation",
    [
        pytest.param(
            "<answer>\n1. tovak\n2. mirelu\n</answer>\n<explanation>-ak is plural.</explanation>",
            "-ak is plural.",
            id="explanation-after-answer",
        ),
        pytest.param(
            f"{NOTES}\n<answer>\n1. tovak\n2. mirelu\n</answer>\nGood luck!",
            NOTES,
            id="answer-block-in-prose",
        ),
        pytest.param(
            f"Step one.\n<answer>\n1. tovak\n2. mirelu\n</answer>\n{NOTES}",
            f"Step one.\n\n{NOTES}",
            id="prose-on-both-sides",
        ),
        pytest.param(
            f"<reasoning>{NOTES}</reasoning>\n1. tovak\n2. mirelu", NOTES, id="reasoning-block-only"
        ),
    ],
)
def test_tagged_blocks_give_answer_and_explanation(text, explanation):
    check(text, 2, ["tovak", "mirelu"], explanation)


def test_answer_block_lines_are_kept_whole():
    text = "<answer>\n1. tovak sanu\n2. mirelu lemi\n</answer>"
    check(text, 2, ["tovak sanu", "mirelu lemi"], "")


# --- Reasoning traces ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, visible, trace",
    [
        pytest.param("<think>plan</think>tovak", "tovak", "plan", id="closed"),
        pytest.param(
            "<think>first</think>tovak <think>second</think>", "tovak ", "first\nsecond", id="two"
        ),
        pytest.param("<think>a\n<think>b", "", "a\nb", id="reopened-never-closed"),
        pytest.param("<think>plan<|im_end|></think>tovak", "tovak", "plan", id="format-token"),
        pytest.param(
            "<|channel|>analysis<|message|>plan A<|end|>"
            "<|channel|>commentary<|message|>plan B<|end|>"
            "<|channel|>final<|message|>tovak",
            "tovak",
            "plan A\nplan B",
            id="harmony-channels",
        ),
        pytest.param(
            "<|channel|>analysis<|message|>plan A<|end|>"
            "<|channel|>final<|message|><think>plan B</think>tovak",
            "tovak",
            "plan A\n\nplan B",
            id="harmony-then-think",
        ),
    ],
)
def test_reasoning_trace_is_set_apart(text, visible, trace):
    reply = read_reply(text)
    assert (reply.text, reply.trace) == (visible, trace)


def test_trace_beside_tagged_blocks_is_kept():
    reply = read_reply("<think>plan</think>\n<answer>tovak</answer>")
    assert (reply.trace, reply.answer) == ("plan", "tovak")


def test_trace_opened_after_the_answers_and_cut_off_is_not_read():
    text = "1. tovak\n2. mirelu\n<think>Actually maybe\n1. sanu\n2. lemi"
    check(text, 2, ["tovak", "mirelu"], "")


# --- Echoed sources, arrows, emphasis ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, query, items",
    [
        pytest.param(
            '16. "You all held me" = tovak\n17. [I called you all] = mirelu',
            Q_2,
            ["tovak", "mirelu"],
            id="echo-in-quotes-or-brackets",
        ),
        pytest.param(
            "16. You all  held me: tovak\n17. I called   you all: mirelu",
            Q_2,
            ["tovak", "mirelu"],
            id="echo-with-extra-spaces",
        ),
        pytest.param("16. 7 = sanu\n17. 9 = lemi", Q_NUMBERS, ["sanu", "lemi"], id="one-char"),
        pytest.param(
            "16. 7             = sanu\n17. 1,234,567     = lemi",
            "Write in Vashenti numerals:\n\n16. 7\n17. 1,234,567",
            ["sanu", "lemi"],
            id="aligned-column",
        ),
        pytest.param(
            "16. C(You all held me.)\n17. A(I called you all.)",
            Q_2,
            ["C", "A"],
            id="letter-with-echo-glued-on",
        ),
        pytest.param(
            "16. (You all held me.)\n17. (I called you all.)",
            Q_2,
            ["(You all held me.)", "(I called you all.)"],
            id="only-the-echo-is-kept",
        ),
        pytest.param("16. tovak (?)\n17. mirelu (!)", Q_2, ["tovak (?)", "mirelu (!)"], id="marks"),
        pytest.param("16. → tovak\n17. → mirelu", Q_2, ["tovak", "mirelu"], id="leading-arrow"),
        pytest.param("Answers:\n→ tovak\n→ mirelu", "", ["tovak", "mirelu"], id="arrow-lines"),
    ],
)
def test_items_lose_echoed_sources_and_arrows(text, query, items):
    check(text, 2, items, query=query)


@pytest.mark.parametrize(
    "source, brackets, echoed",
    [
        pytest.param("12", 6, True, id="decoration-up-to-the-bound"),  # 14 = 2 * 2 + 10
        pytest.param("123", 7, False, id="decoration-past-the-bound"),  # 17 > 2 * 3 + 10
    ],
)
def test_echo_may_carry_as_many_marks_as_its_source_has_characters_plus_ten(
    source, brackets, echoed
):
    echo = "[" * brackets + source + "]" * brackets
    query = f"Write in Vashenti numerals:\n\n16. {source}\n17. 9"
    item = f"{echo} = sanu"
    check(f"16. {item}\n17. lemi", 2, ["sanu" if echoed else item, "lemi"], query=query)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("**1. tovak\n2. mirelu**", id="bold-across-lines"),
        pytest.param("1. _tovak_\n2. _mirelu_", id="underscore-italics"),
        pytest.param("1. __tovak__\n2. *mirelu*", id="underscore-bold-star-italics"),
    ],
)
def test_items_lose_markdown_emphasis(text):
    check(text, 2, ["tovak", "mirelu"])


# --- LaTeX -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "latex, plain",
    [
        pytest.param(r"$\boxed{k^{w}ala}$", "k^{w}ala", id="box-with-inner-braces"),
        pytest.param(r"$\mathbf{\text{tovak}}$", "tovak", id="nested-wrappers"),
        pytest.param(r"\boxed{1. tovak \\ 2. mirelu}", "1. tovak\n2. mirelu", id="line-breaks"),
    ],
)
def test_latex_becomes_the_text_a_reader_sees(latex, plain):
    assert latex_plain(latex) == plain


def test_nested_latex_wrappers_leave_the_item():
    check(r"16. $\mathbf{\text{tovak}}$" + "\n17. mirelu", 2, ["tovak", "mirelu"])
