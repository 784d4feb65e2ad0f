"""Answer extraction from free model text: formats LLMs print, and parity with the parser."""

from __future__ import annotations

import json
import random

import pytest

from puzzles.extraction import Extraction, extract_answer
from puzzles.metrics import parse_prediction

from .extraction_checks import check

# Queries in invented languages, numbered as olympiad queries are: arbitrarily.
Q_16 = (
    "Translate into Vashenti:\n\n"
    "16. You all held me yesterday.\n"
    "17. I called you all a week ago.\n"
    "18. You all are holding me now.\n"
    "19. They met us a week ago."
)
Q_BB = "Translate into Orrish:\n\nBB. (his) son\nCC. green\nDD. fat, grease"
Q_28 = "Translate into English:\n\n28. k:ii (this word has two meanings)\n29. tovak\n30. mirelu"
Q_ROMAN = "Fill in the blanks:\n\n(i) tovak ___\n(ii) ___ mirelu\n(iii) sanu ___\n(iv) ___\n(v) pelo ___\n(vi) ___ ka"
Q_LETTERS = "Match:\n\na) tovak\nb) mirelu\nc) sanu\nd) pelok"
Q_PIPE = "Write in Orrish:\n\n1. [ˈtɔ.vak] | big lake\n2. [miˈɾe.lu] | ribbon seal"
Q_MIXED = "Match the words with the pictures:\n\n34. tovak\n35. mirelu\n\nII. sky\nJJ. red parrot"

ANSWERS_16 = ["kayé tovak", "nümä mirelu", "kayé sanu", "nümä pelok"]


def case(text, n, items, query="", explanation=None, method=None, id=None):
    return pytest.param(text, n, query, items, explanation, method, id=id)


CASES = [
    # --- section headings, both orders -------------------------------------------------
    case(
        "Answer:\n1. tovak\n2. mirelu\n\nExplanation: -ak marks the plural.",
        2,
        ["tovak", "mirelu"],
        explanation="-ak marks the plural.",
        method="numbered",
        id="answer-then-explanation",
    ),
    case(
        "Explanation:\nThe prefix mi- marks the past.\nStress is final.\n\nAnswers:\ntovak\nmirelu",
        2,
        ["tovak", "mirelu"],
        explanation="The prefix mi- marks the past.\nStress is final.",
        method="answer_section",
        id="explanation-then-answers",
    ),
    case(
        "## Reasoning\nVerbs agree with the object.\n\n## Answer\n- tovak\n- mirelu\n- sanu",
        3,
        ["tovak", "mirelu", "sanu"],
        explanation="Verbs agree with the object.",
        id="markdown-headings-bullets",
    ),
    case(
        "Let me work through this.\nThe suffix -lu is a dual.\n\nFINAL ANSWERS:\n1. tovaklu\n2. mireluk",
        2,
        ["tovaklu", "mireluk"],
        explanation="Let me work through this.\nThe suffix -lu is a dual.",
        id="final-answers-block-leading-prose-is-explanation",
    ),
    case(
        "Answer: tovak\nAnswer: mirelu\n\nFinal answer(s):\n1. sanu\n2. pelok",
        2,
        ["sanu", "pelok"],
        id="final-section-preferred",
    ),
    case(
        "**Final Answer:** mirelu tovak\n\n**Reasoning:** Word order is SOV.",
        1,
        ["mirelu tovak"],
        explanation="Word order is SOV.",
        method="answer_section",
        id="bold-inline-answer-heading",
    ),
    case(
        "Answers (Vashenti):\n1) tovak\n2) mirelu",
        2,
        ["tovak", "mirelu"],
        id="heading-with-parenthetical",
    ),
    # --- markdown noise --------------------------------------------------------------------
    case(
        "**1.** tovak\n**2.** *mirelu*\n**3.** `sanu`\n4. __pelok__",
        4,
        ["tovak", "mirelu", "sanu", "pelok"],
        method="numbered",
        id="bold-labels-italic-code",
    ),
    case(
        "**Answers:**\n\n1. **tovak** \n\n2. **mirelu**   \n\n3. sanu_NS\n",
        3,
        ["tovak", "mirelu", "sanu_NS"],
        id="blank-line-noise-and-underscore-kept",
    ),
    case(
        "# Solution\n\n```\ntovak\nmirelu\n```\n",
        2,
        ["tovak", "mirelu"],
        id="plain-fence-in-solution",
    ),
    # --- JSON ------------------------------------------------------------------------------
    case(
        'Here is my reasoning: -ak is plural.\n\n```json\n[\n  "tovak",\n  "mirelu"\n]\n```',
        2,
        ["tovak", "mirelu"],
        explanation="Here is my reasoning: -ak is plural.",
        method="json",
        id="fenced-json-after-prose",
    ),
    case(
        'Answer: ["tovak", "mirelu", "sanu"]',
        3,
        ["tovak", "mirelu", "sanu"],
        method="json",
        id="one-line-json-after-answer",
    ),
    case(
        '{"answers": ["tovak", "mirelu"], "explanation": "Plural in -ak."}',
        2,
        ["tovak", "mirelu"],
        explanation="Plural in -ak.",
        method="json",
        id="json-object",
    ),
    case(
        '```json\n{"Answer": "mirelu tovak", "reasoning": "SOV order"}\n```',
        1,
        ["mirelu tovak"],
        explanation="SOV order",
        method="json",
        id="fenced-json-object-string-answer",
    ),
    case("[3, 1, null, 2]", 4, ["3", "1", "", "2"], method="json", id="json-numbers-null"),
    case("['tovak', 'mirelu']", 2, ["tovak", "mirelu"], method="json", id="python-list-repr"),
    case(
        'I compared [1] with the data.\nSo the answer is ["tovak", "mirelu"] as shown.',
        2,
        ["tovak", "mirelu"],
        method="json",
        id="embedded-json-of-right-length",
    ),
    # --- labels echoed from the query ------------------------------------------------------
    case(
        "16. kayé tovak\n17. nümä mirelu\n18. kayé sanu\n19. nümä pelok",
        4,
        ANSWERS_16,
        query=Q_16,
        method="labelled",
        id="query-labels-16-19",
    ),
    case(
        "19. nümä pelok\n16. kayé tovak\n18. kayé sanu\n17. nümä mirelu",
        4,
        ANSWERS_16,
        query=Q_16,
        method="labelled",
        id="out-of-order-labels-mapped",
    ),
    case(
        "16. kayé tovak\n18. kayé sanu\n19. nümä pelok",
        4,
        ["kayé tovak", "", "kayé sanu", "nümä pelok"],
        query=Q_16,
        id="skipped-label-leaves-gap",
    ),
    case(
        "BB. tp:oo\nCC. mbóó nté\nDD. kêlu",
        3,
        ["tp:oo", "mbóó nté", "kêlu"],
        query=Q_BB,
        id="double-letter-labels",
    ),
    case(
        "BB. (his) son → tp:oo\nCC. green = mbóó nté\nDD. fat, grease: kêlu",
        3,
        ["tp:oo", "mbóó nté", "kêlu"],
        query=Q_BB,
        id="echoed-source-with-separators",
    ),
    case(
        "28. k:ii — banana tree\n29. tovak = fish trap\n30. mirelu - red parrot",
        3,
        ["banana tree", "fish trap", "red parrot"],
        query=Q_28,
        id="echo-with-colon-inside-source",
    ),
    case(
        "k:ii → banana tree\ntovak → fish trap\nmirelu → red parrot",
        3,
        ["banana tree", "fish trap", "red parrot"],
        query=Q_28,
        id="unlabelled-arrows",
    ),
    case(
        "CC. green: k:ii\nBB. son: tp:oo",
        3,
        ["tp:oo", "k:ii", ""],
        query=Q_BB,
        id="colon-in-answer-kept",
    ),
    case(
        "(i) sanu\n(ii) kolo\n(iii) pem\n(iv) tiri\n(v) wak\n(vi) dun",
        6,
        ["sanu", "kolo", "pem", "tiri", "wak", "dun"],
        query=Q_ROMAN,
        method="labelled",
        id="roman-numerals",
    ),
    case(
        "iv) tiri\ni) sanu\nii) kolo",
        6,
        ["sanu", "kolo", "", "tiri", "", ""],
        query=Q_ROMAN,
        id="roman-out-of-order",
    ),
    case(
        "a) 3\nb) 1\nc) 4\nd) 2",
        4,
        ["3", "1", "4", "2"],
        query=Q_LETTERS,
        id="letters",
    ),
    case(
        "(b) 1\n(a) 3\n(d) 2\n(c) 4",
        4,
        ["3", "1", "4", "2"],
        query=Q_LETTERS,
        id="parenthesised-letters-out-of-order",
    ),
    case(
        "1. [ˈtɔ.vak] | big lake → tovak\n2. ribbon seal: mirelu",
        2,
        ["tovak", "mirelu"],
        query=Q_PIPE,
        id="echoed-ipa-and-gloss",
    ),
    case(
        "1. [tovak] -> big lake\n2. [mirelu] -> ribbon seal",
        2,
        ["big lake", "ribbon seal"],
        id="bracketed-source-arrow-without-query",
    ),
    case(
        "34. JJ\n35. II",
        2,
        ["JJ", "II"],
        query=Q_MIXED,
        id="query-with-two-label-runs",
    ),
    case(
        "1. kayé tovak\n2. nümä mirelu\n3. kayé sanu\n4. nümä pelok",
        4,
        ANSWERS_16,
        query=Q_16,
        method="numbered",
        id="renumbered-from-one-taken-in-order",
    ),
    case(
        "A. tovak\nB. mirelu",
        2,
        ["tovak", "mirelu"],
        id="capital-letter-labels",
    ),
    case(
        "16.\nkayé tovak\n17.\nnümä mirelu",
        4,
        ["kayé tovak", "nümä mirelu", "", ""],
        query=Q_16,
        id="label-on-its-own-line",
    ),
    case(
        "The steps:\n1. Find the root.\n2. Add -ak.\n\nFinal answer:\n1. tovak\n2. mirelu\n3. sanu",
        3,
        ["tovak", "mirelu", "sanu"],
        explanation="The steps:\n1. Find the root.\n2. Add -ak.",
        id="numbered-reasoning-before-final-answer",
    ),
    case(
        "Step 1. Roots.\n1. First, roots.\n2. Then suffixes.\n\n1. tovak\n2. mirelu\n3. sanu",
        3,
        ["tovak", "mirelu", "sanu"],
        method="numbered",
        id="last-run-of-right-length",
    ),
    case(
        "16. **kayé tovak** (you all held me yesterday)\n17. nümä mirelu (I called you all a week ago)",
        4,
        ["kayé tovak", "nümä mirelu", "", ""],
        query=Q_16,
        id="echoed-source-in-trailing-brackets",
    ),
    case(
        "1 - C\n2 - A\n3 → D\n4: B",
        4,
        ["C", "A", "D", "B"],
        method="numbered",
        id="matching-pairs-with-dashes",
    ),
    # --- tables --------------------------------------------------------------------------------
    case(
        "Reasoning: ka- marks 2pl.\n\n| # | Answer |\n|---|---|\n| 17 | nümä mirelu |\n| 16 | kayé tovak |",
        4,
        ["kayé tovak", "nümä mirelu", "", ""],
        query=Q_16,
        explanation="ka- marks 2pl.",
        method="labelled",
        id="markdown-table-with-labels",
    ),
    case(
        "| Source | Translation |\n|:--|:--|\n| big lake | **tovak** |\n| ribbon seal | mirelu |",
        2,
        ["tovak", "mirelu"],
        explanation="",
        id="markdown-table-last-cell",
    ),
    # --- chatter, padding and cutting --------------------------------------------------------
    case(
        "Sure! Here are the answers:\n\ntovak\nmirelu\nsanu\n\nI hope this helps!",
        3,
        ["tovak", "mirelu", "sanu"],
        explanation="",
        id="leading-and-trailing-chatter",
    ),
    case(
        "tovak\n\nmirelu\n\nsanu",
        3,
        ["tovak", "mirelu", "sanu"],
        method="lines",
        id="blank-lines-between-items",
    ),
    case(
        "Answers:\ntovak\nmirelu\n\nBoth follow the plural rule.",
        2,
        ["tovak", "mirelu"],
        explanation="Both follow the plural rule.",
        id="trailing-prose-paragraph-becomes-explanation",
    ),
    case(
        "1. tovak\n2. mirelu",
        4,
        ["tovak", "mirelu", "", ""],
        id="fewer-items-padded",
    ),
    case(
        "1. tovak\n2. mirelu\n3. sanu\n4. pelok",
        2,
        ["tovak", "mirelu"],
        id="more-items-cut",
    ),
    case(
        "Let me solve this.\n\nReasoning: ka- marks 2pl and -é the past.\n\n16. kayé tovak\n17. nümä mirelu",
        4,
        ["kayé tovak", "nümä mirelu", "", ""],
        query=Q_16,
        explanation="Let me solve this.\nka- marks 2pl and -é the past.",
        id="unheaded-answers-after-reasoning-section",
    ),
    # --- single-item tasks ---------------------------------------------------------------------
    case(
        "Explanation:\nColour terms are reduplicated nouns.\n1. mbóó mbóó is red.\n2. kpaapî is yellow.",
        1,
        ["Colour terms are reduplicated nouns.\n1. mbóó mbóó is red.\n2. kpaapî is yellow."],
        id="explanation-only-single-item",
    ),
    case(
        "## Answer\n\nColours are named after **objects**; a *doubled* noun means its colour.\n",
        1,
        ["Colours are named after objects; a doubled noun means its colour."],
        method="answer_section",
        id="paragraph-answer",
    ),
    case("17. mirelu tovak", 1, ["mirelu tovak"], query="17. ikwa tovani", id="single-labelled"),
    case("The answer is: mirelu tovak", 1, ["mirelu tovak"], id="the-answer-is"),
]


@pytest.mark.parametrize("text, n, query, items, explanation, method", CASES)
def test_formats(text, n, query, items, explanation, method):
    check(text, n, items, explanation, method, query)


@pytest.mark.parametrize("text", [None, "", "   ", "\n\n\t \n"])
def test_empty_text(text):
    assert extract_answer(text, 3) == Extraction(["", "", ""], "", 0, "empty")


def test_counts_found_items_before_padding_and_cutting():
    assert extract_answer("1. tovak\n2. mirelu", 4).n_items_found == 2
    assert extract_answer("1. a\n2. b\n3. c\n4. d", 2).n_items_found == 4
    assert extract_answer("19. nümä pelok\n16. kayé tovak", 4, Q_16).n_items_found == 2


def test_quotes_are_left_for_normalize():
    assert extract_answer("1. \"tovak\"\n2. 'mirelu'", 2).items == ['"tovak"', "'mirelu'"]


@pytest.mark.parametrize(
    "pred",
    [
        '["tovak", "mirelu", "sanu"]',
        '  [" tovak ", null, 3, 2.5, true]\n',
        '["1. tovak", "Answer: mirelu", "**sanu**", "k:ii → banana"]',
        "[]",
        '[["tovak", "tovaki"], "mirelu"]',
        '["ˈtɔ.vak ɮ ʁ ɣ ː", "[miˈɾe.lu]"]',
    ],
)
@pytest.mark.parametrize("n", [1, 3, 5])
def test_clean_json_list_matches_parse_prediction(pred, n):
    result = extract_answer(pred, n)
    assert result.items == parse_prediction(pred, n).items
    assert result.method == "json"


def _garbage(rng: random.Random) -> str:
    pieces = [
        "```",
        "```json\n[",
        "[",
        "]",
        "{",
        '"',
        "Answer:",
        "## Explanation",
        "**",
        "__",
        "*",
        "`",
        "1.",
        "(iv)",
        "BB.",
        "→",
        " - ",
        "\n",
        "\n\n",
        "9" * 5000,
        "1e999",
        "ɮ ʁ ɣ ː ˈ ɨ",
        "tovak",
        "null",
        ",",
        ":",
        "|",
        "—",
        "Final answers:",
        "-",
        "\x00",
        "\u200b",
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))


def test_never_raises_on_garbage():
    rng = random.Random(2026)
    texts = [_garbage(rng) for _ in range(60)] + [
        '```json\n["tovak", ',
        "[" * 5000,
        "{" * 5000 + "}",
        "[" + "9" * 6000 + "]",
        "Answer:",
        "## Answer\n\n## Explanation\n",
        "**",
        "(",
        "1.",
        "ɮ ʁ ɣ ː ˈ ɨ\n" * 50,
        "['unterminated",
    ]
    for text in texts:
        for n in (0, 1, 4):
            result = extract_answer(text, n, query=text[:200])
            assert len(result.items) == n
            assert all(isinstance(item, str) for item in result.items)
            assert isinstance(result.explanation, str)


def test_real_clean_submissions_unchanged(iolai_dir):
    checked = 0
    for path in sorted(iolai_dir.glob("submissions/*/predictions.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            n, pred = row["n_expected_items"], row["pred"]
            parsed = parse_prediction(pred, n)
            result = extract_answer(pred, n, row.get("source", ""))
            assert len(result.items) == n
            if parsed.clean_json_list:
                assert result.items == parsed.items, (path.parent.name, row["id"])
                checked += 1
    assert checked > 600
