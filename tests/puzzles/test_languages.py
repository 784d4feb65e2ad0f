"""Readable language names: codes through pycountry, the name a problem's first sentence uses."""

from __future__ import annotations

import pytest

from puzzles.languages import (
    language_code,
    language_label,
    language_name,
    language_named_in,
    language_tags,
)


@pytest.mark.parametrize(
    "text,tags",
    [
        ("['esu_Latn']", ["esu_Latn"]),
        ("['esu_Latn', 'yle_Latn']", ["esu_Latn", "yle_Latn"]),
        ("esu_Latn, yle_Latn", ["esu_Latn", "yle_Latn"]),
        ("['xvl']", ["xvl"]),
        ("en", ["en"]),
        ("Velmari (invented)", []),
        ("", []),
        ("[]", []),
    ],
)
def test_language_tags(text, tags):
    assert language_tags(text) == tags


def test_language_code_drops_the_script():
    assert language_code("esu_Latn") == "esu"
    assert language_code("skf") == "skf"


@pytest.mark.parametrize(
    "code,name",
    [
        ("esu", "Central Yupik"),
        ("yle", "Yele"),
        ("iqu", "Iquito"),
        ("eng", "English"),
        ("en", "English"),
        # Special codes and the local-use range name no language.
        ("mis", None),
        ("und", None),
        ("mul", None),
        ("zxx", None),
        ("qaa", None),
        ("zzz", None),
    ],
)
def test_language_name(code, name):
    assert language_name(code) == name


@pytest.mark.parametrize(
    "language,name,label",
    [
        ("esu_Latn", "", "Central Yupik (esu)"),
        ("esu_Latn, yle_Latn", "", "Central Yupik (esu), Yele (yle)"),
        ("mis_Latn", "", "mis"),
        ("mis_Latn", "Komnzo", "Komnzo (mis)"),
        ("esu_Latn", "Yup'ik", "Yup'ik (esu)"),
        ("esu_Latn, esu_Cyrl", "", "Central Yupik (esu)"),
        ("Velmari (invented)", "", "Velmari (invented)"),
        ("Velmari (invented)", "Velmari", "Velmari"),
        ("", "", ""),
    ],
)
def test_language_label(language, name, label):
    assert language_label(language, name=name) == label


ENGLISH = frozenset({"English"})


@pytest.mark.parametrize(
    "context,name",
    [
        ("Here are some words in Velmari with their translations:\n\n1. sorel", "Velmari"),
        ("Here are phrases in Old Tiruvan and their English translations:\n1. a", "Old Tiruvan"),
        ("Here are some sentences in English and their Oskrunic translations:", "Oskrunic"),
        ("Here is the family tree of a family of Kelvani speakers. Names: Ana", "Kelvani"),
        ("Translate into Velmari, then explain:", "Velmari"),
        ("Here are words in Bo'ra'i: a list\n", "Bo'ra'i"),
        # Only the first sentence counts: later capitalized names are not the language.
        ("Here are some words in Velmari. They are spoken in Norton Bay.", "Velmari"),
        # The working language alone, two names, or none: no name.
        ("Here are some sentences in English:", None),
        ("Here are words in Velmari and their Oskrunic translations:", None),
        ("Here are some words with their translations:", None),
        ("1. sorel: house", None),
        ("", None),
    ],
)
def test_language_named_in_the_first_sentence(context, name):
    assert language_named_in(context, exclude=ENGLISH) == name


def test_language_named_in_keeps_the_working_language_unless_excluded():
    assert language_named_in("Here are some sentences in English:") == "English"
