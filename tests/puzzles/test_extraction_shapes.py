"""Extraction of the reply shapes current models print: LaTeX boxes, reasoning traces,
tagged blocks, bullets of every glyph, word labels; and the gaps mutation testing found."""

from __future__ import annotations

import pytest

from puzzles.extraction import extract_answer
from puzzles.extraction.latex import find_boxes, latex_plain, plain_if_latex
from puzzles.extraction.traces import read_reply
from puzzles.models import Output, Task
from puzzles.services.scoring import output_prepare, output_scores

from .extraction_checks import check

Q_16 = (
    "Translate into Vashenti:\n\n"
    "16. You all held me yesterday.\n"
    "17. I called you all a week ago.\n"
    "18. You all are holding me now."
)


# --- LaTeX boxes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, n, items, explanation",
    [
        pytest.param(
            r"So 1 is $\boxed{tovak}$ and 2 is $\boxed{mirelu}$.",
            2,
            ["tovak", "mirelu"],
            "So 1 is tovak and 2 is mirelu.",
            id="one-box-per-item-in-prose",
        ),
        pytest.param(
            "1. $\\boxed{tovak}$\n2. $\\boxed{mirelu}$",
            2,
            ["tovak", "mirelu"],
            "",
            id="one-box-per-labelled-line",
        ),
        pytest.param(
            "First guess $\\boxed{sanu}$, but -ak is plural.\n\n$\\boxed{tovak}$ $\\boxed{mirelu}$",
            2,
            ["tovak", "mirelu"],
            None,
            id="more-boxes-than-items-last-n",
        ),
        pytest.param(
            r"Final: $\boxed{1.\ \text{tovak} \\ 2.\ \text{mirelu} \\ 3.\ \text{sanu}}$",
            3,
            ["tovak", "mirelu", "sanu"],
            None,
            id="one-box-with-line-breaks",
        ),
        pytest.param(
            r"$$\boxed{\begin{array}{l} 1.\ \text{tovak} \\ 2.\ \text{mirelu} \end{array}}$$",
            2,
            ["tovak", "mirelu"],
            "",
            id="one-box-holding-an-array",
        ),
        pytest.param(
            r"\boxed{tovak; mirelu, sanu}",
            2,
            ["tovak", "mirelu, sanu"],
            "",
            id="one-box-split-at-semicolons-first",
        ),
        pytest.param(r"\boxed{tovak, mirelu}", 2, ["tovak", "mirelu"], "", id="one-box-commas"),
        pytest.param(
            "Reasoning here.\n\n" r"The final answer is $\boxed{\text{kay\'e tovak}}$.",
            1,
            ["kayé tovak"],
            None,
            id="single-item-accent-in-text-command",
        ),
        pytest.param(
            "Final Answer: The final answer is $\\boxed{mirelu}$. I hope it is correct.",
            1,
            ["mirelu"],
            "The final answer is mirelu. I hope it is correct.",
            id="minerva-style-sentence",
        ),
        pytest.param(r"\boxed{\v{c}a\u{a}}", 1, ["čaă"], "", id="tex-accents-compose-nfc"),
    ],
)
def test_latex_boxes(text, n, items, explanation):
    check(text, n, items, explanation, "boxed")


def test_boxes_only_in_the_explanation_are_found_there():
    text = "Explanation: -ak pluralizes, giving $\\boxed{tovak}$ and $\\boxed{mirelu}$."
    check(text, 2, ["tovak", "mirelu"], method="boxed")


def test_one_boxed_aside_does_not_replace_a_list():
    text = "1. tovak\n2. mirelu\n\nThe key: $\\boxed{-ak}$ marks the plural."
    check(text, 2, ["tovak", "mirelu"], "The key: $\\boxed{-ak}$ marks the plural.", "numbered")


def test_an_unclosed_box_is_not_an_answer():
    result = check("1. tovak\n2. mirelu \\boxed{sanu", 2, ["tovak", "mirelu \\boxed{sanu"])
    assert result.method == "numbered"
    assert find_boxes("\\boxed{" * 5000) == []


def test_math_delimiters_leave_items_read_as_lines():
    check("1. $tovak$\n2. \\(mirelu\\)\n3. costs $5", 3, ["tovak", "mirelu", "costs $5"])


def test_latex_plain_and_boxes():
    assert [b.content for b in find_boxes(r"a \boxed{x{y}z} b \fbox{w} \boxed{a\}b}")] == [
        "x{y}z",
        "w",
        r"a\}b",
    ]
    assert latex_plain(r"$\boxed{\textbf{kay\'{e}}}$\quad \mathrm{x}\_1 \& y") == "kayé x_1 & y"
    assert plain_if_latex("a ~ b") == "a ~ b"  # linguists' alternation, not a TeX tie
    assert plain_if_latex("$x$") == "x"


# --- reasoning traces and tagged blocks --------------------------------------------------


def test_a_think_block_never_supplies_answers_nor_explanation():
    text = "<think>\nMaybe:\n1. wrong\n2. guesses\n</think>\n\n1. tovak\n2. mirelu"
    check(text, 2, ["tovak", "mirelu"], explanation="", method="numbered")


def test_a_dangling_close_tag_makes_all_before_it_trace():
    text = "Okay, so 1. is maybe sanu\n2. pelok?\n</think>\n\nAnswers:\n1. tovak\n2. mirelu"
    check(text, 2, ["tovak", "mirelu"], explanation="")


def test_a_reply_that_is_all_trace_is_read_from_the_trace():
    check("<think>\nThe answers:\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"])


def test_several_trace_blocks_and_a_trace_after_the_answers():
    text = "<think>a</think><thinking>b</thinking>1. tovak\n2. mirelu\n\n<think>late</think>"
    check(text, 2, ["tovak", "mirelu"], explanation="")
    text = "<|begin_of_thought|>1. x\n2. y<|end_of_thought|>\n<|begin_of_solution|>\n1. tovak\n2. mirelu\n<|end_of_solution|>"
    check(text, 2, ["tovak", "mirelu"], explanation="")


def test_harmony_channels_read_only_the_final_channel():
    text = (
        "<|channel|>analysis<|message|>1. x\n2. y<|end|>"
        "<|start|>assistant<|channel|>final<|message|>1. tovak\n2. mirelu<|return|>"
    )
    check(text, 2, ["tovak", "mirelu"], explanation="")


def test_answer_tags_win_and_reasoning_tags_are_the_explanation():
    text = (
        "Draft:\n1. sanu\n2. pelok\n\n<reasoning>-ak is the plural.</reasoning>\n"
        "<answer>\n1. tovak\n2. mirelu\n</answer>"
    )
    result = check(text, 2, ["tovak", "mirelu"])
    assert result.explanation.startswith("-ak is the plural.")


def test_read_reply_splits_without_rescanning():
    reply = read_reply("<answer>" * 3000 + "x")
    assert reply.answer is None and reply.text.endswith("x")
    reply = read_reply("</answer>" + "<answer>" * 3000)
    assert reply.answer is None
    reply = read_reply("<think>" * 3000)
    assert reply.text == ""
    assert extract_answer("<think>" * 3000 + "</think>" * 3000 + "1. a\n2. b", 2).items == [
        "a",
        "b",
    ]


# --- bullets and labels ------------------------------------------------------------------------


@pytest.mark.parametrize("glyph", ["-", "*", "+", "•", "–", "—", "◦", "▪", "‣", "●", "►", "➤"])
def test_bullets_of_every_glyph_never_leak(glyph):
    check(f"{glyph} tovak\n{glyph} mirelu", 2, ["tovak", "mirelu"], method="numbered")


@pytest.mark.parametrize(
    "text",
    [
        "- [x] tovak\n- [ ] mirelu",
        "1. • tovak\n2. • mirelu",
        "- 1. tovak\n- 2. mirelu",
        "* **1.** tovak\n* **2.** mirelu",
    ],
)
def test_bullets_with_labels_and_boxes(text):
    check(text, 2, ["tovak", "mirelu"])


@pytest.mark.parametrize("word", ["Answer ", "answer ", "Item ", "Question ", "Q", "No. ", "#"])
def test_word_labels_map_to_the_query(word):
    text = f"{word}17: nümä mirelu\n{word}16: kayé tovak"
    check(text, 3, ["kayé tovak", "nümä mirelu", ""], method="labelled", query=Q_16)


def test_one_numbered_answer_heading_per_item():
    text = "Answer 16:\nkayé tovak\n\nAnswer 17:\nnümä mirelu\n\nAnswer 18:\nkayé sanu"
    check(text, 3, ["kayé tovak", "nümä mirelu", "kayé sanu"], query=Q_16)


def test_an_answer_sentence_opens_an_answer_section():
    check("Example 3 shows the object prefix.\n\nSo the answer is tovak.", 1, ["tovak."])
    check("The answers are as follows:\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"], "")
    # "I think the answer is ..." in prose does not cut the reply.
    check(
        "I think the answer is clear from example 3.\n\n1. tovak\n2. mirelu",
        2,
        ["tovak", "mirelu"],
        "I think the answer is clear from example 3.",
    )


# --- the gaps mutation testing found -------------------------------------------------------------


def test_a_citation_in_prose_is_not_the_answer_list():
    check("As shown in [1], -ak marks the plural.\n\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"])
    check("Examples [3, 7] show the plural.\n\n1. tovak\n2. mirelu", 2, ["tovak", "mirelu"])
    check("See [2].\n\nmirelu", 1, ["mirelu"])


def test_a_list_of_numbers_on_its_own_line_is_the_answer():
    check("The numbers are:\n[47, 312]\nas computed.", 2, ["47", "312"], method="json")


def test_of_two_answer_sections_the_last_is_read():
    text = "Answer:\n1. sanu\n2. pelok\n\nWait, let me reconsider.\n\nAnswer:\n1. tovak\n2. mirelu"
    check(text, 2, ["tovak", "mirelu"])


def test_a_rule_under_a_list_keeps_its_last_item():
    check("Answers:\n1. tovak\n2. mirelu\n---\nExplanation: -ak.", 2, ["tovak", "mirelu"], "-ak.")
    check("1. tovak\n2. mirelu\n---\nThe suffix is plural.", 2, ["tovak", "mirelu"])


def test_a_trailing_paragraph_is_a_single_items_answer():
    text = "Example 2 has the prefix.\n\nExample 5 confirms it.\n\nkayé tovak"
    check(text, 1, ["kayé tovak"], "Example 2 has the prefix.\n\nExample 5 confirms it.", "lines")
    # In an answer section the whole section is the answer, paragraphs and all.
    check("Answer:\nkayé\n\ntovak", 1, ["kayé\ntovak"], method="answer_section")


# --- end to end: a boxed reply behind a trace scores as the competition would have wanted ---


def test_a_boxed_reply_behind_a_trace_scores_full_marks():
    task = Task(query=Q_16, answer_key=[["kayé tovak"], ["nümä mirelu"], ["kayé sanu"]])
    raw = (
        "<think>16 might be nümä sanu...</think>\n"
        r"16. $\boxed{\text{kay\'e tovak}}$" + "\n"
        r"17. $\boxed{\text{n\"um\"a mirelu}}$" + "\n"
        r"18. $\boxed{\text{kay\'e sanu}}$"
    )
    output = Output(raw_text=raw, source=Output.Source.MODEL_TEXT)
    output_prepare(output=output, task=task)
    assert output.extracted_items == ["kayé tovak", "nümä mirelu", "kayé sanu"]
    assert output.explanation == ""
    scores = output_scores(
        parsed_items=output.parsed_items,
        extracted_items=output.extracted_items,
        answer_key=task.answer_key,
    )
    assert scores["iol2026"]["extracted"]["em"] == 1.0
    assert scores["iol2026"]["parsed"]["em"] == 0.0
