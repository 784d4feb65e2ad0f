"""A plain, straightforward implementation of the IOL-AI 2026 scoring rule (FORMAT.md).

This is the baseline that `score_board.py` times against the app's scoring. It is written
from the rule in ../shared/data/iolai-2026/FORMAT.md alone, deliberately without caching
or shortcuts: every item of every row of every system is parsed, normalised and compared
afresh, and chrF builds one Counter per n-gram order per string. It imports nothing from
the app and needs no database.

Run it directly to check it against the 46 official records:

    .venv/bin/python benchmarks/naive_iol2026.py
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "iolai-2026"
ORDER = 6
BETA = 2.0


@dataclass(frozen=True)
class KeyRow:
    """One task of the answer key: accepted alternatives per item, weight and split."""

    id: str
    alternatives: list[list[str]]
    weight: float
    split: str


def read_answer_key(directory: Path = DATA_DIR) -> list[KeyRow]:
    """Read task/solution.csv: one KeyRow per task, in task-id order."""
    rows: list[KeyRow] = []
    with (directory / "task" / "solution.csv").open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            answer = json.loads(row["answer"])
            alternatives = [
                [str(a) for a in (item if isinstance(item, list) else [item])] for item in answer
            ]
            points = row["points"].strip()
            rows.append(
                KeyRow(
                    id=row["id"].strip(),
                    alternatives=alternatives,
                    weight=float(points) if points else 1.0,
                    split=row["split"].strip(),
                )
            )
    rows.sort(key=lambda r: r.id)
    return rows


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = text.strip()
    if len(text) >= 2 and text[0] in ('"', "'") and text[0] == text[-1]:
        text = text[1:-1].strip()
    text = text.lower()
    text = re.sub(r"\s+", " ", text)
    while text.endswith("."):
        text = text[:-1]
    return text.strip()


def parse(pred: str | None, n: int) -> list[str]:
    """Split a prediction string into exactly n items."""
    items: list[str] = []
    if pred is not None and pred.strip():
        # The stripped string is both the JSON candidate and the text split into lines.
        text = pred.strip()
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, list):
            for element in value:
                items.append("" if element is None else str(element).strip())
        else:
            for line in text.split("\n"):
                line = re.sub(r"^\d+[.)]\s*", "", line).strip()
                if line != "":
                    items.append(line)
    while len(items) < n:
        items.append("")
    return items[:n]


def exact_match(pred_norm: str, gold_norm: str) -> float:
    """EM of two normalised items."""
    return 1.0 if gold_norm != "" and pred_norm == gold_norm else 0.0


def chrf(pred_norm: str, gold_norm: str) -> float:
    """The competition's chrF of two normalised items: mean per-order P and R, beta 2."""
    hyp = pred_norm.replace(" ", "")
    ref = gold_norm.replace(" ", "")
    if hyp == "" and ref == "":
        return 1.0
    if hyp == "" or ref == "":
        return 0.0
    precisions: list[float] = []
    recalls: list[float] = []
    for n in range(1, ORDER + 1):
        hyp_grams = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        ref_grams = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        matches = sum((hyp_grams & ref_grams).values())
        hyp_total = sum(hyp_grams.values())
        ref_total = sum(ref_grams.values())
        if hyp_total > 0:
            precisions.append(matches / hyp_total)
        if ref_total > 0:
            recalls.append(matches / ref_total)
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    if p == 0 and r == 0:
        return 0.0
    b2 = BETA**2
    return (1 + b2) * p * r / (b2 * p + r)


def score_row(pred: str | None, key: KeyRow) -> tuple[float, float]:
    """Return (EM, chrF) of one row: means over items of the best alternative."""
    items = parse(pred, len(key.alternatives))
    ems: list[float] = []
    chrfs: list[float] = []
    for item, alternatives in zip(items, key.alternatives, strict=True):
        # Each string is normalised once per row; nothing is remembered across rows.
        pred_norm = normalise(item)
        golds = [normalise(g) for g in (alternatives or [""])]
        ems.append(max(exact_match(pred_norm, g) for g in golds))
        chrfs.append(max(chrf(pred_norm, g) for g in golds))
    n = len(ems)
    return (sum(ems) / n if n else 0.0, sum(chrfs) / n if n else 0.0)


def combine(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """(weight, em, chrf) rows -> (score, EM, chrF): weighted means, sqrt, 4 decimals."""
    total = sum(w for w, _, _ in rows)
    if total <= 0:
        return (0.0, 0.0, 0.0)
    em = 0.0
    ch = 0.0
    for w, e, c in rows:
        em += w * e
        ch += w * c
    em /= total
    ch /= total
    return (round(math.sqrt(em * ch), 4), round(em, 4), round(ch, 4))


def score_system(preds: dict[str, str], key: list[KeyRow]) -> dict[str, float]:
    """Score one system's predictions {task id: pred}; a missing row counts as empty."""
    all_rows: list[tuple[float, float, float]] = []
    public_rows: list[tuple[float, float, float]] = []
    private_rows: list[tuple[float, float, float]] = []
    for task in key:
        em, ch = score_row(preds.get(task.id, ""), task)
        all_rows.append((task.weight, em, ch))
        (public_rows if task.split == "public" else private_rows).append((task.weight, em, ch))
    score, em, ch = combine(all_rows)
    public_score, _, _ = combine(public_rows)
    private_score, _, _ = combine(private_rows)
    return {
        "score": score,
        "exact_match": em,
        "chrf": ch,
        "public_score": public_score,
        "private_split_score": private_score,
    }


def score_board(systems: dict[str, dict[str, str]], key: list[KeyRow]) -> dict[str, dict]:
    """Score every system: {name: {score, exact_match, chrf, public_score, ...}}."""
    return {name: score_system(preds, key) for name, preds in systems.items()}


def read_submissions(directory: Path = DATA_DIR) -> list[tuple[str, dict[str, str], dict]]:
    """Return (folder name, {task id: pred}, official metrics) of every archived record."""
    records = []
    for folder in sorted(p for p in (directory / "submissions").iterdir() if p.is_dir()):
        predictions = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        preds = {
            str(r["id"]).strip(): ("" if r["pred"] is None else str(r["pred"])) for r in predictions
        }
        records.append((folder.name, preds, metrics))
    return records


FIGURES = ("score", "exact_match", "chrf", "public_score", "private_split_score")


def check_official(directory: Path = DATA_DIR) -> list[str]:
    """Return the mismatches between this implementation and the official figures."""
    key = read_answer_key(directory)
    problems = []
    for name, preds, metrics in read_submissions(directory):
        ours = score_system(preds, key)
        for figure in FIGURES:
            if figure in metrics and round(metrics[figure], 4) != ours[figure]:
                problems.append(f"{name} {figure}: official {metrics[figure]} naive {ours[figure]}")
    return problems


if __name__ == "__main__":
    mismatches = check_official()
    for line in mismatches:
        print(line)
    print("naive rule vs official records:", "MISMATCH" if mismatches else "all identical")
    sys.exit(1 if mismatches else 0)
