"""Format failures of one output, before and after answer extraction (no Django).

Before: the raw text as the competition's parser reads it (`metrics.parse_prediction`: a
whole JSON list, else one answer per line with its leading number cut), which is also the
reading the stored "parsed" score comes from. After: the extractor's items
(`extraction.extract_answer`, stored as the output's extracted items). The families:

- empty: no text at all; after, no item extracted;
- wrong_count: a reading that yields another number of items than the task has;
- labels: an item that still carries its label (`(b) kayé`, `Q3: kayé`, a table row) or
  the echoed source item (`kaya → kayé`);
- markdown: emphasis, code, headings, bullets, fences or table rows;
- json_one_line: a JSON list or object on one line that the reading takes as one item
  (a reply that is wholly a clean JSON list is read correctly and is no failure);
- text_around: chatter, headings or answer sentences around the answers
  ("Sure! Here are the answers:", "Answer:", "So the answer is ...").

The line patterns are the extractor's own (`extraction.patterns`), so both sides agree on
what a label, a bullet or a heading is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from puzzles.extraction.items import _parse_list_line, load_json
from puzzles.extraction.patterns import (
    ANSWER_SENTENCE,
    ARROW,
    BOLD,
    BULLET,
    CHATTER,
    CODE,
    FENCE,
    HEADING_LINE,
    MD_HEADING,
)
from puzzles.metrics import _LINE_NUMBER, parse_prediction

FAMILIES = ("empty", "wrong_count", "labels", "markdown", "json_one_line", "text_around")
FAMILY_LABELS = {
    "empty": "empty",
    "wrong_count": "wrong item count",
    "labels": "item labels echoed",
    "markdown": "markdown",
    "json_one_line": "JSON on one line",
    "text_around": "text around the answers",
}
STAGES = ("before", "after")
# Where an output's format_flags keep its detected families (the services store them as the
# output is prepared or rescored): {"raw": [...], "extracted": [...], "items": n_items,
# "rules": RULES}. Raise RULES when the detection changes: the next rescore then detects
# every output afresh, and the pages detect until it has.
FLAGS_KEY = "failures"
RULES = 1


@dataclass(frozen=True)
class Failures:
    """The families one output shows before and after extraction."""

    before: frozenset[str]
    after: frozenset[str]

    def stage(self, name: str) -> frozenset[str]:
        return self.before if name == "before" else self.after


def naive_lines(raw_text: str | None, n_items: int) -> tuple[list[str], bool]:
    """Return the items the competition's parser reads from the text (not padded) and
    whether the text was a clean JSON list."""
    parsed = parse_prediction(raw_text, n_items)
    if parsed.empty:
        return [], False
    if parsed.clean_json_list:
        return parsed.items[: parsed.n_items_parsed], True
    # The lines parse_prediction counted, their leading numbers cut by its own pattern.
    cut = (_LINE_NUMBER.sub("", line).strip() for line in (raw_text or "").strip().split("\n"))
    return [line for line in cut if line], False


def _labelled(item: str) -> bool:
    parsed = _parse_list_line(item.strip())
    return (parsed is not None and parsed[0] is not None) or bool(ARROW.search(item))


def _markdown(item: str) -> bool:
    text = item.strip()
    return bool(
        BOLD.search(text)
        or CODE.search(text)
        or MD_HEADING.match(text)
        or FENCE.match(text)
        or BULLET.match(text)
        or (text.startswith("|") and text.count("|") >= 2)
    )


def _json_value(item: str) -> bool:
    text = item.strip()
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return False
    value = load_json(text[min(starts) :])
    return isinstance(value, dict) or (isinstance(value, list) and len(value) > 1)


def _prose(item: str) -> bool:
    text = item.strip()
    return bool(
        CHATTER.match(text)
        or HEADING_LINE.match(text)
        or ANSWER_SENTENCE.match(text)
        or (text.endswith((":", "：")) and not _labelled(text))
    )


def _families(items: Sequence[str], *, n_items: int, empty: bool, count: int) -> set[str]:
    if empty:
        return {"empty"}
    found = set()
    if count != n_items:
        found.add("wrong_count")
    for name, test in (
        ("labels", _labelled),
        ("markdown", _markdown),
        ("json_one_line", _json_value),
        ("text_around", _prose),
    ):
        if any(test(item) for item in items if item.strip()):
            found.add(name)
    return found


def format_failures(raw_text: str | None, n_items: int, extracted_items: Sequence[str]) -> Failures:
    """Return the format failures the raw text shows before and after extraction."""
    lines, _clean = naive_lines(raw_text, n_items)
    before = _families(lines, n_items=n_items, empty=not lines, count=len(lines))
    kept = [item for item in extracted_items if item.strip()]
    after = _families(kept, n_items=n_items, empty=not kept, count=len(kept))
    return Failures(frozenset(before), frozenset(after))


def failures_flags(failures: Failures, n_items: int) -> dict:
    """Return the failures as stored under format_flags[FLAGS_KEY], with the item count they
    were detected against."""
    return {
        "raw": sorted(failures.before),
        "extracted": sorted(failures.after),
        "items": n_items,
        "rules": RULES,
    }


def failures_stored(flags: dict | None, n_items: int) -> Failures | None:
    """Return the failures stored in an output's format_flags, or None when there are none or
    they were detected against another item count (the answer key changed since) or by
    other rules."""
    stored = (flags or {}).get(FLAGS_KEY)
    if not isinstance(stored, dict) or (stored.get("items"), stored.get("rules")) != (
        n_items,
        RULES,
    ):
        return None
    return Failures(frozenset(stored.get("raw") or ()), frozenset(stored.get("extracted") or ()))


@dataclass(frozen=True)
class SystemTasks:
    """One system's outputs' failures, one per task it answered (missing tasks: empty)."""

    system_id: int
    failures: Sequence[Failures]
    n_tasks: int


def prevalence(entry: SystemTasks) -> dict[str, dict[str, float]]:
    """Return {stage: {family: share of the competition's tasks showing it}} for a system;
    a task without an output counts as empty at both stages."""
    missing = entry.n_tasks - len(entry.failures)
    shares: dict[str, dict[str, float]] = {}
    for stage in STAGES:
        counts = dict.fromkeys(FAMILIES, 0)
        for failures in entry.failures:
            for family in failures.stage(stage):
                counts[family] += 1
        counts["empty"] += missing
        shares[stage] = {
            f: round(counts[f] / entry.n_tasks, 4) if entry.n_tasks else 0.0 for f in FAMILIES
        }
    return shares
