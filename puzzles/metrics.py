"""Scoring rules as pure functions: normalisation, parsing, exact match, chrF, aggregation.

Nothing here touches the ORM. `iol2026` reproduces the IOL-AI 2026 competition rule
(docs/commands.md); `sacrebleu` swaps in sacrebleu's sentence chrF with the same exact
match, parsing and aggregation.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

METRICS = ("iol2026", "sacrebleu")
CHRF_ORDER = 6
CHRF_BETA = 2.0

_WHITESPACE = re.compile(r"\s+")
_LINE_NUMBER = re.compile(r"^\d+[.)]\s*")


@lru_cache(maxsize=200_000)
def normalize(text: str) -> str:
    """Return the competition's normal form of an answer item."""
    text = unicodedata.normalize("NFC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    text = _WHITESPACE.sub(" ", text.lower())
    return text.rstrip(".").strip()


@dataclass(frozen=True)
class ParsedPrediction:
    """A prediction string split into the expected number of items, with format flags."""

    items: list[str]
    n_items_parsed: int
    clean_json_list: bool
    empty: bool

    @property
    def item_count_matches(self) -> bool:
        return self.n_items_parsed == len(self.items)

    def flags(self) -> dict[str, object]:
        return {
            "empty": self.empty,
            "clean_json_list": self.clean_json_list,
            "n_items_parsed": self.n_items_parsed,
            "item_count_matches": self.item_count_matches,
        }


def parse_prediction(text: str | None, n_items: int) -> ParsedPrediction:
    """Split a submitted prediction string into n items as the competition did.

    The whole string is stripped first, and that stripped string is both what is tried as
    JSON and what is split into lines: whitespace before the first numbered line does not
    keep its number, while an indented later line keeps it (` 2. b` -> `2. b`).
    """
    if text is None or not text.strip():
        return ParsedPrediction([""] * n_items, 0, False, True)
    stripped = text.strip()
    items: list[str] | None = None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, list):
        items = ["" if v is None else _json_item_text(v).strip() for v in value]
        clean = True
    else:
        clean = False
        items = []
        for line in stripped.split("\n"):
            line = _LINE_NUMBER.sub("", line).strip()
            if line:
                items.append(line)
    n_parsed = len(items)
    items = (items + [""] * n_items)[:n_items]
    return ParsedPrediction(items, n_parsed, clean, False)


def _json_item_text(value: object) -> str:
    # The competition used Python's str() on decoded JSON elements.
    return str(value)


def items_as_prediction(items: Sequence[str]) -> str:
    """Return items in the competition's submission format (a JSON list)."""
    return json.dumps(list(items), ensure_ascii=False)


# --- chrF -----------------------------------------------------------------------------


def _ngram_counts(text: str, n: int) -> Counter[str]:
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


@lru_cache(maxsize=200_000)
def _profile(text: str) -> tuple[Counter[str], ...]:
    """Return the character n-gram multisets of a space-free string, orders 1..6."""
    return tuple(_ngram_counts(text, n) for n in range(1, CHRF_ORDER + 1))


def _fscore(precision: float, recall: float) -> float:
    if precision == 0 and recall == 0:
        return 0.0
    b2 = CHRF_BETA**2
    return (1 + b2) * precision * recall / (b2 * precision + recall)


@lru_cache(maxsize=500_000)
def chrf_iol(hypothesis: str, reference: str) -> float:
    """Return the competition's chrF (0-1) of one item: means of per-order P and R."""
    hyp = hypothesis.replace(" ", "")
    ref = reference.replace(" ", "")
    if not hyp and not ref:
        return 1.0
    if not hyp or not ref:
        return 0.0
    hyp_profile, ref_profile = _profile(hyp), _profile(ref)
    precisions: list[float] = []
    recalls: list[float] = []
    for n in range(1, CHRF_ORDER + 1):
        h, r = hyp_profile[n - 1], ref_profile[n - 1]
        matches = sum((h & r).values()) if h and r else 0
        if h:
            precisions.append(matches / (len(hyp) - n + 1))
        if r:
            recalls.append(matches / (len(ref) - n + 1))
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return _fscore(p, r)


@lru_cache(maxsize=1)
def _sacrebleu_chrf():
    from sacrebleu.metrics import CHRF

    return CHRF(char_order=CHRF_ORDER, word_order=0, beta=int(CHRF_BETA))


@lru_cache(maxsize=500_000)
def chrf_sacrebleu(hypothesis: str, reference: str) -> float:
    """Return sacrebleu's sentence chrF (0-1) of one item, with the same empty-string rule."""
    if not hypothesis.strip() and not reference.strip():
        return 1.0
    if not hypothesis.strip() or not reference.strip():
        return 0.0
    return _sacrebleu_chrf().sentence_score(hypothesis, [reference]).score / 100.0


CHRF_FUNCTIONS: dict[str, Callable[[str, str], float]] = {
    "iol2026": chrf_iol,
    "sacrebleu": chrf_sacrebleu,
}


# --- items, rows, aggregates ----------------------------------------------------------


def exact_match(prediction: str, gold: str) -> float:
    """Return 1.0 when the normalised strings are equal and the gold is not empty."""
    gold_norm = normalize(gold)
    return 1.0 if gold_norm and normalize(prediction) == gold_norm else 0.0


@dataclass
class RowScore:
    """One output's scores: means over items, and the per-item figures."""

    em: float
    chrf: float
    item_em: list[float] = field(default_factory=list)
    item_chrf: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "em": self.em,
            "chrf": self.chrf,
            "item_em": self.item_em,
            "item_chrf": self.item_chrf,
        }


def score_items(
    items: Sequence[str], answer_key: Sequence[Sequence[str]], metric: str = "iol2026"
) -> RowScore:
    """Score predicted items against a key of accepted alternatives per item.

    Both EM and chrF compare normalised strings; with alternatives each is the maximum.
    """
    chrf = CHRF_FUNCTIONS[metric]
    item_em: list[float] = []
    item_chrf: list[float] = []
    for index, alternatives in enumerate(answer_key):
        pred = items[index] if index < len(items) else ""
        pred_norm = normalize(pred)
        golds = alternatives or [""]
        item_em.append(max(_em_normalized(pred_norm, g) for g in golds))
        item_chrf.append(max(chrf(pred_norm, normalize(g)) for g in golds))
    n = len(item_em)
    return RowScore(
        em=sum(item_em) / n if n else 0.0,
        chrf=sum(item_chrf) / n if n else 0.0,
        item_em=item_em,
        item_chrf=[round(c, 6) for c in item_chrf],
    )


def _em_normalized(pred_norm: str, gold: str) -> float:
    gold_norm = normalize(gold)
    return 1.0 if gold_norm and pred_norm == gold_norm else 0.0


@dataclass(frozen=True)
class Aggregate:
    """Weighted figures over a set of rows."""

    exact_match: float
    chrf: float
    score: float
    n_rows: int

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.score, self.exact_match, self.chrf)


def aggregate(rows: Iterable[tuple[float, float, float]]) -> Aggregate:
    """Combine (weight, em, chrf) rows: weighted means, GM = sqrt(EM x chrF), 4 decimals."""
    total_weight = em_sum = chrf_sum = 0.0
    n = 0
    for weight, em, chrf in rows:
        total_weight += weight
        em_sum += weight * em
        chrf_sum += weight * chrf
        n += 1
    if total_weight <= 0:
        return Aggregate(0.0, 0.0, 0.0, n)
    em = em_sum / total_weight
    chrf = chrf_sum / total_weight
    return Aggregate(round(em, 4), round(chrf, 4), round(math.sqrt(em * chrf), 4), n)


def geometric_mean(em: float, chrf: float) -> float:
    """Return GM = sqrt(EM x chrF)."""
    return math.sqrt(max(em, 0.0) * max(chrf, 0.0))
