"""The competition's reading of a submission, rebuilt from pandas alone, and submissions to test it.

This is a test oracle, not app code: it imports nothing from ioleval. `competition_figures`
reads a submission CSV the way the IOL-AI 2026 scorer did (`pandas.read_csv` with
`dtype=str`, every other option at its default, missing cells turned into ""; ids compared
stripped and without leading zeros; of several rows with one id the last wins; ids that name
no task ignored) and scores it by the rule in ../shared/data/iolai-2026/FORMAT.md.

`submission_variants` builds perturbed submission files, deterministically, from the 46
archived records: pandas' missing-value tokens, whitespace and numbering around lines, CRLF,
quoting, a BOM, blank lines, JSON lists in several layouts, raw model replies in the styles
current models answer in, and the id mistakes ioleval refuses (each with the file an
organizer gets by following ioleval's message). `import_and_compare` is the one part that
runs ioleval: it imports the variants as an organizer would and compares the board.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

# --- the competition's reading and rule -----------------------------------------------------


@dataclass(frozen=True)
class KeyTask:
    """One row of task/solution.csv: accepted alternatives per item, weight, split."""

    key: str
    external_id: str
    alternatives: list[list[str]]
    weight: float
    split: str


def answer_key(data_dir: Path) -> list[KeyTask]:
    """Read task/solution.csv as the scorer did (all text, missing cells empty)."""
    frame = pd.read_csv(data_dir / "task" / "solution.csv", dtype=str).fillna("")
    tasks = []
    for record in frame.to_dict("records"):
        multi = record["eval_type"] == "multi"
        items = json.loads(record["answer"])
        tasks.append(
            KeyTask(
                key=_id_key(record["id"]),
                external_id=record["id"].strip(),
                alternatives=[[str(a) for a in item] if multi else [str(item)] for item in items],
                weight=float(record["points"]) if record["points"].strip() else 1.0,
                split=record["split"].strip().lower(),
            )
        )
    return tasks


def _id_key(value: str) -> str:
    return value.strip().lstrip("0") or "0"


def read_submission(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Return ({id key: pred}, {id key: explanation}) as the competition read the file."""
    frame = pd.read_csv(path, dtype=str).fillna("")
    preds: dict[str, str] = {}
    explanations: dict[str, str] = {}
    for record in frame.to_dict("records"):
        key = _id_key(record["id"])
        preds[key] = record["pred"]  # a later row with the same id replaces an earlier one
        explanations[key] = record.get("explanation", "")
    return preds, explanations


def parse(pred: str, n: int) -> tuple[list[str], int, bool]:
    """Return (n items, items parsed before padding, whether it was a JSON list)."""
    text = pred.strip()
    if not text:
        return [""] * n, 0, False
    items: list[str]
    try:
        value = json.loads(text)
    except Exception:  # the scorer caught everything here
        value = None
    if isinstance(value, list):
        items = [("" if v is None else str(v)).strip() for v in value]
        clean = True
    else:
        items = []
        for line in text.split("\n"):
            line = re.sub(r"^\d+[.)]\s*", "", line).strip()
            if line:
                items.append(line)
        clean = False
    return (items + [""] * n)[:n], len(items), clean


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1].strip()
    return " ".join(text.lower().split()).rstrip(".").strip()


def chrf(hyp: str, ref: str) -> float:
    hyp, ref = hyp.replace(" ", ""), ref.replace(" ", "")
    if not hyp and not ref:
        return 1.0
    if not hyp or not ref:
        return 0.0
    precisions, recalls = [], []
    for n in range(1, 7):
        h = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        r = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        common = sum((h & r).values())
        if h:
            precisions.append(common / sum(h.values()))
        if r:
            recalls.append(common / sum(r.values()))
    if not precisions or not recalls:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    return 0.0 if p == r == 0 else 5 * p * r / (4 * p + r)


def _weighted(rows: list[tuple[float, float, float]]) -> dict[str, float]:
    total = sum(w for w, _, _ in rows)
    if total == 0:
        return {"score": 0.0, "exact_match": 0.0, "chrf": 0.0}
    em = sum(w * e for w, e, _ in rows) / total
    ch = sum(w * c for w, _, c in rows) / total
    return {
        "score": round(math.sqrt(em * ch), 4),
        "exact_match": round(em, 4),
        "chrf": round(ch, 4),
    }


def competition_figures(path: Path, key: list[KeyTask]) -> dict[str, float]:
    """Score a submission file as the competition did; rates on a 0-1 scale as ioleval's."""
    preds, explanations = read_submission(path)
    rows: dict[str, list[tuple[float, float, float]]] = {"all": [], "public": [], "private": []}
    line_matches = clean = explained = 0
    for task in key:
        items, n_parsed, is_list = parse(preds.get(task.key, ""), len(task.alternatives))
        ems, chrfs = [], []
        for item, golds in zip(items, task.alternatives, strict=True):
            pred_norm = normalise(item)
            ems.append(max(float(pred_norm == normalise(g) != "") for g in golds))
            chrfs.append(max(chrf(pred_norm, normalise(g)) for g in golds))
        row = (task.weight, sum(ems) / len(ems), sum(chrfs) / len(chrfs))
        rows["all"].append(row)
        rows[task.split].append(row)
        line_matches += n_parsed == len(task.alternatives)
        clean += is_list
        explained += bool(explanations.get(task.key, "").strip())
    overall, public, private = (_weighted(rows[s]) for s in ("all", "public", "private"))
    n = len(key)
    return {
        **overall,
        "public_score": public["score"],
        "private_split_score": private["score"],
        # FORMAT.md gives percentages (4 decimals); ioleval shows the same on a 0-1 scale.
        "line_format_match_rate": round(round(100 * line_matches / n, 4) / 100, 4),
        "clean_format_rate": round(round(100 * clean / n, 4) / 100, 4),
        "explanation_rate": round(round(100 * explained / n, 4) / 100, 4),
    }


FIGURES = (
    "score",
    "exact_match",
    "chrf",
    "public_score",
    "private_split_score",
    "line_format_match_rate",
    "clean_format_rate",
    "explanation_rate",
)

# --- perturbed submissions ------------------------------------------------------------------

NA_TOKENS = sorted(pd._libs.parsers.STR_NA_VALUES)
NEAR_NA = [" NA", "NA ", "na", "none", "N/a", "NaN.", "'None'", "[null]", "NONE", "Null", " "]
NUMBERINGS = ["{n}. ", "{n}) ", "{n}.", "{n})\t", "{n}.  ", ""]
MODEL_STYLES = (
    "think",
    "bold_heading",
    "bullets",
    "fenced_json",
    "boxed",
    "answer_label",
    "reasons",
    "semicolons",
    "quoted_lines",
    "rule",
    "table",
    "bold_numbers",
)


@dataclass
class Variant:
    """One perturbed submission: its file, and what ioleval must do with it."""

    name: str
    text: str
    bom: bool = False
    perturbations: list[str] = field(default_factory=list)
    # For a file ioleval refuses: words its message must hold, the line it names, and the
    # file an organizer gets by doing what the message says.
    refused_with: str = ""
    refused_line: int = 0
    fixed_text: str = ""

    def write(self, path: Path, text: str | None = None) -> Path:
        body = self.text if text is None else text
        path.write_bytes((b"\xef\xbb\xbf" if self.bom else b"") + body.encode("utf-8"))
        return path


@dataclass
class Record:
    """One archived submission: per task id, the items the competition parsed, explanation."""

    name: str
    preds: dict[str, str]
    items: dict[str, list[str]]
    explanations: dict[str, str]


def archived_records(data_dir: Path) -> list[Record]:
    records = []
    for folder in sorted(p for p in (data_dir / "submissions").iterdir() if p.is_dir()):
        rows = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
        records.append(
            Record(
                name=folder.name,
                preds={str(r["id"]): r["pred"] or "" for r in rows},
                items={str(r["id"]): list(r["predicted_items"]) for r in rows},
                explanations={str(r["id"]): r.get("explanation") or "" for r in rows},
            )
        )
    return records


def _lines(rng: random.Random, items: list[str]) -> str:
    """Items as numbered or plain lines, with the whitespace and endings people leave."""
    numbering = rng.choice(NUMBERINGS)
    newline = rng.choice(["\n", "\n", "\r\n", "\r"])
    out = []
    for n, item in enumerate(items, start=1):
        indent = rng.choice(["", "", "", " ", "  ", "\t"])
        out.append(indent + numbering.format(n=n) + item + rng.choice(["", "", " ", "\t"]))
        if rng.random() < 0.1:
            out.append(rng.choice(["", "   "]))
    text = newline.join(out)
    return rng.choice(["", "", " ", "\n", " \n  ", "\r\n"]) + text + rng.choice(["", "\n", "\n\n"])


def _model_reply(rng: random.Random, style: str, items: list[str]) -> str:
    """A raw model reply holding the items, in one of the styles current models answer in."""
    numbered = "\n".join(f"{n}. {item}" for n, item in enumerate(items, start=1))
    if style == "think":
        return f"<think>\nThe suffix -q marks the dual.\nSo 1. is plural.\n</think>\n\n{numbered}"
    if style == "bold_heading":
        body = "\n".join(f"{n}. **{item}**" for n, item in enumerate(items, start=1))
        return f"**Answers:**\n\n{body}\n"
    if style == "bullets":
        return "Here are the translations:\n" + "\n".join(f"- {item}" for item in items)
    if style == "fenced_json":
        return "```json\n" + json.dumps(items, ensure_ascii=False, indent=2) + "\n```"
    if style == "boxed":
        return "\n".join(f"$\\boxed{{{item}}}$" for item in items)
    if style == "answer_label":
        return (
            f"Answer: {json.dumps(items, ensure_ascii=False)}\n\n"
            "Explanation: the verb agrees with the object."
        )
    if style == "reasons":
        return "\n".join(
            f"{n}. {item} \u2014 because the root repeats" for n, item in enumerate(items, start=1)
        )
    if style == "semicolons":
        return "; ".join(items)
    if style == "quoted_lines":
        return "\n".join(f'"{item}"' for item in items)
    if style == "rule":
        return numbered + "\n\n---\n\n" + rng.choice(["Confidence: high", ""])
    if style == "table":
        rows = "\n".join(f"| {n} | {item} |" for n, item in enumerate(items, start=1))
        return f"| # | answer |\n|---|---|\n{rows}"
    return "\n".join(f"**{n}.** {item}" for n, item in enumerate(items, start=1))


def _json_layout(rng: random.Random, items: list[object]) -> str:
    layout = rng.randrange(4)
    if layout == 0:
        return json.dumps(items, ensure_ascii=False)
    if layout == 1:
        return json.dumps(items, ensure_ascii=rng.random() < 0.5, indent=rng.choice([1, 2, 4]))
    if layout == 2:
        return rng.choice([" ", "\n", "\r\n", "\t "]) + json.dumps(items) + rng.choice([" ", "\n"])
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


def _items_touched(rng: random.Random, items: list[str], golds: list[list[str]]) -> list[object]:
    """Items with some made right, some given odd JSON values, quotes and commas."""
    out: list[object] = []
    for item, alternatives in zip(items, golds + [[""]] * len(items), strict=False):
        roll = rng.random()
        if roll < 0.15 and alternatives[0]:
            out.append(rng.choice(alternatives))
        elif roll < 0.2:
            out.append(None)
        elif roll < 0.23:
            out.append(rng.choice([7, 2.5, True]))
        elif roll < 0.3:
            out.append(f'"{item}", {item}')
        elif roll < 0.35:
            out.append(f"\u2018{item}\u2019.")
        else:
            out.append(item)
    return out


def _row_lines(text: str) -> int:
    """Physical lines of a CSV chunk as ioleval counts them (\\r\\n, \\r or \\n)."""
    return len(re.findall(r"\r\n|\r|\n", text))


def submission_variants(
    data_dir: Path, key: list[KeyTask], count: int, seed: int = 2026
) -> list[Variant]:
    """Build `count` perturbed submissions from the archived records, deterministically."""
    rng = random.Random(seed)
    records = archived_records(data_dir)
    golds = {t.external_id: t.alternatives for t in key}
    variants = []
    for index in range(count):
        record = records[index % len(records)]
        variants.append(_variant(rng, f"v{index:03d}-{record.name}", record, golds))
    return variants


def _variant(
    rng: random.Random, name: str, record: Record, golds: dict[str, list[list[str]]]
) -> Variant:
    done: list[str] = []
    rows: list[dict[str, str]] = []
    for task_id in sorted(record.items):
        items = record.items[task_id]
        explanation = record.explanations[task_id]
        roll = rng.random()
        if roll < 0.08:
            pred, tag = rng.choice(NA_TOKENS), "na-pred"
        elif roll < 0.12:
            pred, tag = rng.choice(NEAR_NA), "near-na-pred"
        elif roll < 0.35:
            pred, tag = _lines(rng, [str(i) for i in items]), "lines"
        elif roll < 0.5:
            style = rng.choice(MODEL_STYLES)
            pred, tag = _model_reply(rng, style, [str(i) for i in items]), f"model-{style}"
        elif roll < 0.75:
            pred = _json_layout(rng, _items_touched(rng, items, golds[task_id]))
            tag = "json"
        else:
            pred, tag = record.preds[task_id], ""  # as submitted
        if rng.random() < 0.08:
            explanation, tag = rng.choice(NA_TOKENS + NEAR_NA), tag + "+na-explanation"
        elif rng.random() < 0.05:
            explanation = "  \n "
        if rng.random() < 0.05:
            continue  # a task left out
        if tag:
            done.append(tag)
        task = task_id
        if rng.random() < 0.05:
            task = rng.choice([" ", "", "  "]) + task_id + rng.choice([" ", "\t", ""])
            done.append("id-spaces")
        rows.append({"id": task, "pred": pred, "explanation": explanation})
    if rng.random() < 0.3:
        rng.shuffle(rows)
        done.append("shuffled")
    mistake = rng.choices(["", "duplicate", "zeros", "unknown"], weights=[82, 6, 6, 6])[0]
    return _render(rng, name, rows, done, mistake)


def _render(
    rng: random.Random, name: str, rows: list[dict[str, str]], done: list[str], mistake: str
) -> Variant:
    columns = ["id", "pred", "explanation"]
    if rng.random() < 0.2:
        columns = ["id", "pred"]
        done.append("no-explanation-column")
    if rng.random() < 0.15:
        rng.shuffle(columns)
        done.append("columns-reordered")
    if rng.random() < 0.1:
        columns.append("model")
        done.append("extra-column")
    quoting = rng.choice([csv.QUOTE_MINIMAL, csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
    terminator = rng.choice(["\n", "\n", "\r\n", "\r\n", "\r"])
    # pandas' C tokenizer drops the empty first field of a row that follows a blank line
    # when lines end in a bare \r; ioleval reads such a row as written (see test_reading).
    blank_between = rng.random() < 0.15 and terminator != "\r"
    bom = rng.random() < 0.2
    done += [f"quoting-{quoting}", {"\n": "lf", "\r\n": "crlf", "\r": "cr"}[terminator]]
    done += ["bom"] * bom + ["blank-lines"] * blank_between

    def chunk(values: list[str]) -> str:
        # csv.writer quotes a field for the line-end characters of its own terminator only
        # (a \r stays bare when rows end in \n); every reader (pandas, ioleval, a
        # spreadsheet) would break the row there, so quote such rows.
        bare = any(c in v and c not in terminator for v in values for c in "\r\n")
        buffer = io.StringIO()
        csv.writer(
            buffer, quoting=csv.QUOTE_ALL if bare else quoting, lineterminator=terminator
        ).writerow(values)
        return buffer.getvalue()

    def cells(row: dict[str, str]) -> list[str]:
        return [row.get(c, "gpt-x" if c == "model" else "") for c in columns]

    body = [chunk([*columns])]
    starts: list[int] = []  # the line each data row starts on
    line = 1 + _row_lines(body[0])
    for row in rows:
        if blank_between and rng.random() < 0.3:
            gap = rng.choice(["", "   "]) + terminator
            body.append(gap)
            line += 1
        starts.append(line)
        text = chunk(cells(row))
        body.append(text)
        line += _row_lines(text)
    tail = terminator * rng.choice([0, 0, 1, 3])
    text = "".join(body) + tail
    variant = Variant(name=name, text=text, bom=bom, perturbations=done)
    if mistake and rows:
        _add_mistake(rng, variant, rows, starts, mistake, chunk, cells, terminator, tail, body)
    return variant


def _add_mistake(rng, variant, rows, starts, mistake, chunk, cells, terminator, tail, body):
    """Make one id mistake ioleval refuses; keep the file its message leads to."""
    target = rng.randrange(len(rows))
    row = rows[target]
    task_id = row["id"].strip()
    if mistake == "duplicate":
        # An earlier answer for the same task, put first: the competition kept the last.
        extra = chunk(cells({**row, "pred": '["an earlier try"]'}))
        variant.text = body[0] + extra + "".join(body[1:]) + tail
        first, last = 2, starts[target] + _row_lines(extra)
        variant.refused_with = f"(first on line {first})"
        variant.refused_with += (
            f": the competition scored only the last row with this id (line {last})"
        )
        variant.refused_line = last
        variant.fixed_text = "".join(body) + tail
    elif mistake == "zeros":
        zeros = rng.choice(["0", "00"])
        changed = chunk(cells({**row, "id": zeros + task_id}))
        pieces = list(body)
        pieces[pieces.index(chunk(cells(row)))] = changed
        variant.text = "".join(pieces) + tail
        variant.refused_with = f"scored this row for task {task_id}"
        variant.refused_line = starts[target]
        variant.fixed_text = "".join(body) + tail
    else:
        unknown = rng.choice(["12026990100", "task-7", "NA", "12026010100.0"])
        extra = chunk(cells({**row, "id": unknown}))
        variant.text = "".join(body) + extra + tail
        variant.refused_with = "the competition ignored rows whose id is not one of its tasks"
        variant.refused_line = 1 + sum(_row_lines(piece) for piece in body)
        variant.fixed_text = "".join(body) + tail
    variant.perturbations.append(f"refused-{mistake}")


# --- ioleval's side --------------------------------------------------------------------------


def import_and_compare(
    slug: str, variants: list[Variant], key: list[KeyTask], folder: Path
) -> dict[str, list[str]]:
    """Import every variant with `import_outputs`; return, per variant, what differs.

    A variant ioleval must refuse has to be refused with the competition's behaviour in the
    message, at the right line; then the file the message leads to is imported in its place
    and must score what the competition gave the original file.
    """
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from puzzles.models import Competition
    from puzzles.selectors import leaderboard

    outcome: dict[str, list[str]] = {}
    expected: dict[str, dict[str, float]] = {}
    for variant in variants:
        problems = outcome.setdefault(variant.name, [])
        path = variant.write(folder / f"{variant.name}.csv")
        expected[variant.name] = competition_figures(path, key)
        if variant.refused_with:
            try:
                call_command(
                    "import_outputs",
                    slug,
                    str(path),
                    "--system",
                    variant.name,
                    stdout=io.StringIO(),
                )
            except CommandError as exc:
                message = str(exc)
                where = f"line {variant.refused_line}, field 'id'"
                if variant.refused_with not in message or where not in message:
                    problems.append(f"refused with {message!r}")
            else:
                problems.append("accepted, where a refusal was expected")
                continue
            path = variant.write(folder / f"{variant.name}-fixed.csv", variant.fixed_text)
        try:
            call_command(
                "import_outputs", slug, str(path), "--system", variant.name, stdout=io.StringIO()
            )
        except CommandError as exc:
            problems.append(f"refused: {exc}")
    _, rows = leaderboard(Competition.objects.get(slug=slug))
    board = {row.system: row.as_dict() for row in rows}
    for name, figures in expected.items():
        if name not in board:
            continue
        for figure in FIGURES:
            ours = round(board[name][figure], 4)
            if ours != figures[figure]:
                outcome[name].append(f"{figure}: ioleval {ours}, competition {figures[figure]}")
    return outcome
