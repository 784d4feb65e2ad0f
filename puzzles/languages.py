"""Readable language names: ISO 639 codes through pycountry, and the name a problem's data uses.

Pure functions, no Django: the importer, the models' labels and the tests call them.
"""

from __future__ import annotations

import re
from functools import cache

import pycountry

# A language tag as the IOL-AI data writes it: ISO 639-3 code with an optional ISO 15924
# script ("esu_Latn", "eng"), or the two-letter ISO 639-1 code some files use ("en").
_TAG = re.compile(r"^([a-z]{2,3})(?:[_-][A-Z][a-z]{3})?$")
# Separators of a list of tags: "['esu_Latn', 'yle_Latn']", "esu_Latn, yle_Latn".
_LIST_SEPARATORS = re.compile(r"[\s,\[\]'\"]+")
# Words around the language's name in a problem's first sentence ("Here are some words in
# Central Alaskan Yup'ik ...", "... sentences in English and their Komnzo translations",
# "... a family of Sakurabiat speakers").
_BEFORE_NAME = frozenset({"in", "into"})
_AFTER_NAME = frozenset({"translations", "speakers"})
_WORD_EDGES = '.,;:!?()[]"“”'


def language_tags(text: str) -> list[str]:
    """Return the language tags a field holds, or [] when it is not a list of tags."""
    parts = [p for p in _LIST_SEPARATORS.split(text) if p]
    if not parts or not all(_TAG.match(p) for p in parts):
        return []
    return parts


def language_code(tag: str) -> str:
    """Return the language code of a tag without its script: 'esu_Latn' -> 'esu'."""
    match = _TAG.match(tag)
    return match.group(1) if match else tag


@cache
def language_name(code: str) -> str | None:
    """Return the ISO 639 reference name of a code, or None for unknown and special codes.

    Special codes (mis uncoded, mul, und, zxx) and the local-use range qaa-qtz name no
    language, so they get no name here.
    """
    if len(code) == 2:
        found = pycountry.languages.get(alpha_2=code)
    else:
        found = pycountry.languages.get(alpha_3=code)
    if found is None or getattr(found, "type", "") == "S":
        return None
    return found.name


def language_label(language: str, *, name: str = "") -> str:
    """Return a language as readers see it: 'Central Yupik (esu)', 'Komnzo (mis)'.

    `language` is a problem's language field (tags, or free text such as 'Velmari
    (invented)', shown as it is); `name`, when given, replaces the reference names.
    """
    tags = language_tags(language)
    if not tags:
        return name or language
    codes = list(dict.fromkeys(language_code(t) for t in tags))
    if name:
        return f"{name} ({', '.join(codes)})"
    return ", ".join(
        f"{language_name(code)} ({code})" if language_name(code) else code for code in codes
    )


def language_named_in(context: str, *, exclude: frozenset[str] = frozenset()) -> str | None:
    """Return the language a problem's first sentence names, or None when it names not one.

    The rule: in the first sentence of the context, a run of capitalized words after "in"
    or "into", or before "translations" or "speakers", is a language name; names in
    `exclude` (the working language) do not count; exactly one other name must remain.
    """
    first_line = context.strip().split("\n", 1)[0]
    sentence = re.split(r"(?<=[.:])\s", first_line, maxsplit=1)[0]
    words = sentence.split()
    found: list[str] = []
    for index, word in enumerate(words):
        bare = word.strip(_WORD_EDGES).lower()
        if bare in _BEFORE_NAME:
            found.append(_capitalized_run(words[index + 1 :]))
        elif bare in _AFTER_NAME:
            found.append(_capitalized_run(words[:index][::-1], backwards=True))
    names = {n for n in found if n and n not in exclude}
    return names.pop() if len(names) == 1 else None


def _capitalized_run(words: list[str], *, backwards: bool = False) -> str:
    # Punctuation between two words ends the name: "in Iquito, and ...", "(from Iquito".
    outer, inner = (-1, 0) if backwards else (0, -1)
    run: list[str] = []
    for word in words:
        bare = word.strip(_WORD_EDGES)
        if word[outer] in _WORD_EDGES or not bare or not bare[0].isupper():
            break
        run.append(bare)
        if word[inner] in _WORD_EDGES:
            break
    return " ".join(run[::-1] if backwards else run)
