"""The judges of the context lab's variants against the structural labels: the paper's
Table 2 and ours, and the verdicts that the solvers' scores contradict (pure
computation, no Django).

A judge's verdict is compared with a structural label given per (puzzle, condition),
True for unsolvable. The paper's Table 2 takes the verdicts on the targeted variant alone
(PAPER_TABLE_2_CONDITIONS): the targeted deletion removes an example of largest D_Q, so
its label is the puzzle's fragility (max D_Q > 0). Ours also pools every judged
condition (original, random, targeted, no_context), under another name. The positive class is "unsolvable"; F1 = 2TP / (2TP + FP + FN), the
harmonic mean of precision and recall, also given (as 0) when one of them is undefined
but the other is 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..lab.variants import CONDITIONS
from .outcomes import VERDICTS, PuzzleRun, runs_by_model_condition


@dataclass(frozen=True)
class Verdict:
    """One judge's verdict on one puzzle variant: `valid` or `unsolvable`."""

    puzzle: str
    condition: str
    judge: str
    verdict: str


# The paper's Table 2: the judges' verdicts on the targeted deletion against fragility.
PAPER_TABLE_2_CONDITIONS = ("targeted",)


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge against the structural label; the positive class is "unsolvable".

    tp: both unsolvable; fp: judge unsolvable, label solvable; fn: judge valid, label
    unsolvable; tn: both solvable. `conditions`: those of the verdicts counted (in
    CONDITIONS order). Undefined figures are None and `note` says why."""

    judge: str
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    f1: float | None
    note: str | None = None
    conditions: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def judge_agreement(
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], bool],
    *,
    conditions: Iterable[str] | None = None,
) -> tuple[JudgeAgreement, ...]:
    """Return one row per judge (sorted): its verdicts under `conditions` against `labels`.

    `conditions=PAPER_TABLE_2_CONDITIONS` gives the paper's Table 2 (the targeted variant
    alone); None pools every condition judged. `labels[(puzzle, condition)]` is True when
    the variant is structurally unsolvable; a verdict on a variant without a label is
    refused, whatever `conditions` counts. A judge without a verdict counted has no row."""
    counted = set(CONDITIONS if conditions is None else conditions)
    unknown = counted - set(CONDITIONS)
    if unknown:
        raise ValueError(
            f"unknown condition {sorted(unknown)[0]!r}; expected one of {', '.join(CONDITIONS)}"
        )
    counts: dict[str, list[int]] = {}
    seen: dict[str, set[str]] = {}
    for (judge, puzzle, condition), unsolvable in _verdict_index(verdicts).items():
        if (puzzle, condition) not in labels:
            raise ValueError(
                f"verdict of {judge!r} on {puzzle!r} under {condition!r}: "
                "no structural label for that variant"
            )
        if condition not in counted:
            continue
        cell = counts.setdefault(judge, [0, 0, 0, 0])
        seen.setdefault(judge, set()).add(condition)
        label = labels[(puzzle, condition)]
        cell[(0 if label else 1) if unsolvable else (2 if label else 3)] += 1
    return tuple(
        _agreement(
            judge, *counts[judge], conditions=tuple(c for c in CONDITIONS if c in seen[judge])
        )
        for judge in sorted(counts)
    )


def _agreement(
    judge: str, tp: int, fp: int, fn: int, tn: int, *, conditions: tuple[str, ...]
) -> JudgeAgreement:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else None
    if f1 is None:
        note = (
            "No variant was judged unsolvable and none is structurally unsolvable, "
            "so precision, recall and F1 are undefined."
        )
    elif precision is None:
        note = "No variant was judged unsolvable, so precision is undefined (F1 is 0)."
    elif recall is None:
        note = "No variant is structurally unsolvable, so recall is undefined (F1 is 0)."
    else:
        note = None
    return JudgeAgreement(judge, tp, fp, fn, tn, precision, recall, f1, note, conditions)


@dataclass(frozen=True)
class Contradiction:
    """A judge's verdict on a variant beside one model's EM on it and on the original."""

    judge: str
    model: str
    puzzle: str
    condition: str
    verdict: str
    em_original: float
    em_variant: float


@dataclass(frozen=True)
class Contradictions:
    """Table 7: judged unsolvable, EM stayed equal or rose. Table 8: judged valid, EM fell."""

    unsolvable_but_held: tuple[Contradiction, ...]
    valid_but_fell: tuple[Contradiction, ...]


def judge_contradictions(verdicts: Iterable[Verdict], runs: Iterable[PuzzleRun]) -> Contradictions:
    """Return the verdicts that a model's EM contradicts, per judge, model and variant.

    Verdicts on the original are not compared; a model without a run of the variant or of
    its original is left out of that verdict's comparison. Sorted by judge, puzzle, condition
    and model."""
    grouped = runs_by_model_condition(runs)
    models = sorted({model for model, _ in grouped})
    held, fell = [], []
    for (judge, puzzle, condition), unsolvable in sorted(
        _verdict_index(verdicts).items(),
        key=lambda item: (item[0][0], item[0][1], CONDITIONS.index(item[0][2])),
    ):
        if condition == "original":
            continue
        for model in models:
            original = grouped.get((model, "original"), {}).get(puzzle)
            variant = grouped.get((model, condition), {}).get(puzzle)
            if original is None or variant is None:
                continue
            row = Contradiction(
                judge=judge,
                model=model,
                puzzle=puzzle,
                condition=condition,
                verdict=VERDICTS[unsolvable],
                em_original=original.em,
                em_variant=variant.em,
            )
            if unsolvable and variant.em >= original.em:
                held.append(row)
            elif not unsolvable and variant.em < original.em:
                fell.append(row)
    return Contradictions(tuple(held), tuple(fell))


def _verdict_index(verdicts: Iterable[Verdict]) -> dict[tuple[str, str, str], bool]:
    """Return {(judge, puzzle, condition): unsolvable}, refusing bad or repeated verdicts."""
    index: dict[tuple[str, str, str], bool] = {}
    for position, row in enumerate(verdicts, start=1):
        where = f"verdict {position}"
        if row.verdict not in VERDICTS:
            raise ValueError(
                f"{where}: verdict must be one of {', '.join(VERDICTS)}, got {row.verdict!r}"
            )
        if row.condition not in CONDITIONS:
            raise ValueError(
                f"{where}: unknown condition {row.condition!r}; "
                f"expected one of {', '.join(CONDITIONS)}"
            )
        name = (row.judge, row.puzzle, row.condition)
        if name in index:
            raise ValueError(
                f"{where}: a second verdict of {row.judge!r} on {row.puzzle!r} "
                f"under {row.condition!r}"
            )
        index[name] = row.verdict == "unsolvable"
    return index
