"""Juror severity: each juror's effect in a two-way additive model of the marks, cell + juror.

A juror's mean difference from the agreed marks cannot measure severity: the agreed mark
includes the juror's own, so with two jurors it only says on which side the consensus fell.
Here every juror's independent marks on the cells they share with other jurors enter one
least-squares fit, mark = cell effect + juror effect + error, on marks as a share of each
criterion's maximum (so that criteria of different maxima weigh alike). The cell effects
absorb how good each paper is on each criterion; what is left is how each juror marks
against the others on the same cells.

What the data can tell: juror effects are identified only up to a constant within each
group of jurors linked by shared cells (a juror who shares a cell with another is linked to
them, and so on). In a group of three or more, each effect is reported against the group's
average juror (effects sum to zero); in a group of two, only the difference between the two
is identified, and that is what is reported; a juror who shares no cell with another cannot
be told apart from the papers they marked, and gets no figure. The 95% interval resamples
papers (all of a paper's cells together), as the agreement figures do."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ._common import (
    MIN_UNITS,
    Bootstrap,
    Interval,
    bootstrap_interval,
    bootstrap_sums,
    fmt,
    interval_method,
    plural,
    too_few_note,
)

GROUP, PAIR, ALONE = "group", "pair", "alone"


@dataclass(frozen=True)
class JurorEffect:
    """One juror's effect, in shares of a criterion's maximum (+: marks higher, more lenient).

    `kind` says what it is measured against: GROUP, the average juror of `peers` and this one
    (effects of a group sum to zero); PAIR, the one other juror in `peers` (the difference,
    the only thing identified); ALONE, nothing (`effect` is None). `cells` and `papers`
    count the cells this juror shares with another juror, and their papers."""

    rater: Hashable
    kind: str
    peers: tuple[Hashable, ...]
    effect: float | None
    ci: Interval | None
    cells: int
    papers: int
    boot: Bootstrap | None = None
    boot_units: int = 0  # the papers the bootstrap resampled
    note: str | None = None  # why there is no interval, when there is none

    @property
    def clear(self) -> bool:
        """Whether the interval excludes 0 (the data tell this juror from the others)."""
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)

    @property
    def method(self) -> str | None:
        if self.boot is None or self.ci is None:
            return None
        return interval_method(self.boot, unit="paper", units=self.boot_units)


def juror_effects(
    marks: Sequence[tuple[Hashable, Hashable, Hashable, float]],
    *,
    resamples: int = 10_000,
    seed: int = 2026,
) -> tuple[JurorEffect, ...]:
    """Fit mark = cell effect + juror effect by least squares to `marks`, rows of (paper, cell,
    juror, share of the criterion's maximum), one row per juror and cell; return one
    JurorEffect per juror in order of first appearance. The bootstrap resamples the papers
    of each group of linked jurors; a resample that leaves the group unlinked gives no figure
    and is left out (the share is in the interval's note)."""
    return juror_effects_of_many([marks], resamples=resamples, seed=seed)[0]


def juror_effects_of_many(
    juries: Sequence[Sequence[tuple[Hashable, Hashable, Hashable, float]]],
    *,
    resamples: int = 10_000,
    seed: int = 2026,
) -> list[tuple[JurorEffect, ...]]:
    """Return juror_effects of each of `juries` (e.g. one a problem), the same figures as one
    call each: their bootstraps share the draws (bootstrap_sums), drawn once for all."""
    fits = [_Fit(marks) for marks in juries]
    pending = [g for f in fits for g in f.pending if g.n_papers >= MIN_UNITS]
    sums = (
        bootstrap_sums([g.figures for g in pending], resamples=resamples, seed=seed)
        if resamples > 0 and pending
        else [None] * len(pending)
    )
    sums_of = dict(zip(map(id, pending), sums, strict=True))
    return [f.effects(sums_of, drawn=resamples > 0) for f in fits]


class _Fit:
    """One jury's marks sorted into groups of linked jurors, before the bootstrap."""

    def __init__(self, marks: Sequence[tuple[Hashable, Hashable, Hashable, float]]):
        self.jurors = jurors = list(dict.fromkeys(j for _, _, j, _ in marks))
        at = {j: i for i, j in enumerate(jurors)}
        cell_of: dict[Hashable, int] = {}
        paper_of_cell: list[Hashable] = []
        rows = []
        for paper, cell, juror, value in marks:
            if cell not in cell_of:
                cell_of[cell] = len(cell_of)
                paper_of_cell.append(paper)
            rows.append((cell_of[cell], at[juror], float(value)))
        cell = np.array([r[0] for r in rows], dtype=np.intp)
        who = np.array([r[1] for r in rows], dtype=np.intp)
        y = np.array([r[2] for r in rows], dtype=float)
        m = np.bincount(cell, minlength=len(cell_of))[cell] if rows else np.zeros(0, np.intp)
        shared = m >= 2
        cell, who, y, m = cell[shared], who[shared], y[shared], m[shared]
        self.alone: list[int] = []
        self.pending: list[_Group] = []
        for members in _groups(len(jurors), cell, who):
            if len(members) == 1:
                self.alone.append(members[0])
                continue
            chosen = np.isin(who, members)
            self.pending.append(
                _Group(
                    members,
                    cell[chosen],
                    who[chosen],
                    y[chosen],
                    m[chosen],
                    [paper_of_cell[c] for c in cell[chosen]],
                )
            )

    def effects(self, sums_of: dict, *, drawn: bool) -> tuple[JurorEffect, ...]:
        jurors = self.jurors
        out = {j: JurorEffect(jurors[j], ALONE, (), None, None, 0, 0) for j in self.alone}
        for g in self.pending:
            s = sums_of.get(id(g))
            note = None
            if drawn and g.n_papers < MIN_UNITS:
                note = too_few_note(g.n_papers, "paper")
            point = g.effects(g.figures.sum(axis=0)[None, :])[0]
            boots = [None] * len(g.members)
            if s is not None:
                drawn = g.effects(s.sums)
                boots = [
                    bootstrap_interval(drawn[:, i], s.probabilities) for i in range(drawn.shape[1])
                ]
            kind = PAIR if len(g.members) == 2 else GROUP
            for i, j in enumerate(g.members):
                boot = boots[i]
                out[j] = JurorEffect(
                    jurors[j],
                    kind,
                    tuple(jurors[o] for o in g.members if o != j),
                    float(point[i]),
                    boot.ci if boot else None,
                    g.cells[i],
                    g.papers[i],
                    boot,
                    g.n_papers,
                    note if boot is None else boot.note,
                )
        return tuple(out[j] for j in range(len(jurors)))


def _groups(n: int, cell: np.ndarray, who: np.ndarray) -> list[list[int]]:
    """Return the jurors linked by shared cells, group by group (union-find), each sorted."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for c, j in zip(cell.tolist(), who.tolist(), strict=True):
        if c in first:
            parent[find(j)] = find(first[c])
        else:
            first[c] = j
    by_root: dict[int, list[int]] = {}
    for j in range(n):
        by_root.setdefault(find(j), []).append(j)
    return sorted(by_root.values())


class _Group:
    """One group of linked jurors: the normal equations of the juror effects, per paper.

    With the cell effects eliminated, the least-squares juror effects b solve C b = q, where
    each cell with m >= 2 marks adds I - 11'/m to C over its jurors and (mark - cell mean) to
    q; C has rank (jurors - 1) in a linked group, so sum(b) = 0 pins the solution down. C and
    q are sums over papers: a resample of papers adds up the papers' parts with its draw
    counts as weights (figures: per paper, C's upper triangle and q)."""

    def __init__(self, members, cell, who, y, m, papers):
        self.members = members
        size = len(members)
        local = np.searchsorted(np.array(members), who)
        paper_index: dict[Hashable, int] = {}
        paper = np.array([paper_index.setdefault(p, len(paper_index)) for p in papers])
        self.n_papers = len(paper_index)
        mean = np.bincount(cell, weights=y)[cell] / m
        q = np.zeros((self.n_papers, size))
        np.add.at(q, (paper, local), y - mean)
        c = np.zeros((self.n_papers, size, size))
        np.add.at(c, (paper, local, local), 1.0)
        order = np.argsort(cell, kind="stable")
        sorted_cell, sorted_local = cell[order], local[order]
        sorted_paper, sorted_m = paper[order], m[order]
        for offset in range(1, int(m.max())):
            same = sorted_cell[:-offset] == sorted_cell[offset:]
            a, b = sorted_local[:-offset][same], sorted_local[offset:][same]
            p, w = sorted_paper[:-offset][same], 1.0 / sorted_m[:-offset][same]
            np.add.at(c, (p, a, b), -w)
            np.add.at(c, (p, b, a), -w)
        # the diagonal's -1/m: each mark against itself
        np.add.at(c, (paper, local, local), -1.0 / m)
        self.upper = np.triu_indices(size)
        self.figures = np.column_stack([c[:, self.upper[0], self.upper[1]], q])
        self.cells = np.bincount(local, minlength=size).tolist()
        self.papers = [len(set(paper[local == i].tolist())) for i in range(size)]

    def effects(self, sums: np.ndarray) -> np.ndarray:
        """Return the juror effects (resamples x jurors; for a pair, each juror's difference
        from the other) from summed figures; NaN where the resample leaves the group unlinked."""
        size = len(self.members)
        tri = len(self.upper[0])
        by_figure = np.ascontiguousarray(sums.T)  # the resamples last (laplacian_solve)
        c = np.zeros((size, size, sums.shape[0]))
        c[self.upper[0], self.upper[1]] = by_figure[:tri]
        c[self.upper[1], self.upper[0]] = by_figure[:tri]
        out = laplacian_solve(c, by_figure[tri:]).T
        if size == 2:
            out = np.column_stack([out[:, 0] - out[:, 1], out[:, 1] - out[:, 0]])
        return out


def laplacian_solve(c: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Solve C b = q with sum(b) = 0 for a stack of Laplacian-like matrices C (n x n x r, the
    stack's axis last: symmetric, rows summing to 0, positive semi-definite) and right-hand
    sides q (n x r, each summing to 0); return b (n x r), NaN columns where C is not linked
    (its null space is more than the constants).

    C with its first row and column dropped is positive definite exactly when C is linked, so
    Gaussian elimination on it meets a pivot that is 0 up to rounding exactly when it is not;
    the effects relative to the first juror are then centred. Done as array operations over
    the whole stack, one pivot at a time, on contiguous rows of r numbers: numpy.linalg's
    batched solvers cost about 10 us per matrix (0.13 s for 10,000 resamples of 15 jurors)
    and refuse the whole stack when one matrix is singular."""
    n, r = q.shape
    a = c[1:, 1:].copy()
    rhs = q[1:].copy()
    scale = np.maximum(np.abs(a).max(axis=(0, 1), initial=0.0), 1.0)
    linked = np.ones(r, dtype=bool)
    m = n - 1
    for i in range(m):
        pivot = a[i, i]
        linked &= pivot > 1e-9 * scale
        safe = np.where(linked, pivot, 1.0)
        a[i, i] = safe
        factor = a[i + 1 :, i] / safe
        a[i + 1 :, i + 1 :] -= factor[:, None, :] * a[i, None, i + 1 :]
        rhs[i + 1 :] -= factor * rhs[i]
    b = np.zeros((n, r))
    for i in range(m - 1, -1, -1):
        b[i + 1] = (rhs[i] - (a[i, i + 1 :] * b[i + 2 :]).sum(axis=0)) / a[i, i]
    b -= b.mean(axis=0)
    b[:, ~linked] = np.nan
    return b


def effect_sentence(effect: JurorEffect, *, scale: float | None = None) -> str:
    """Word a juror's effect without a subject ("Juror 3 " + sentence). `scale`, the sum of
    the criteria's maxima, adds what the effect comes to on a paper's total."""
    if effect.kind == ALONE:
        return (
            "shares no cell with another juror, so the data cannot tell this juror's severity "
            "from the quality of the papers they marked"
        )
    value = effect.effect
    size = f"{abs(value):.3f} of a criterion's maximum" + (
        f" ({fmt(abs(value) * scale)} points on a paper of {fmt(scale)})" if scale else ""
    )
    if abs(value) < 0.0005:  # 0.000 to the digits shown: "above" or "below" would mislead
        side_of = "like"
    else:
        side_of = f"{size} {'above' if value > 0 else 'below'}"
    if effect.kind == PAIR:
        other = effect.peers[0]
        text = f"marks {side_of} {other} on the cells they share"
    else:
        text = (
            f"marks {side_of} the average of the {len(effect.peers) + 1} jurors "
            "linked by shared papers"
        )
    text += f" ({plural(effect.cells, 'shared cell')}"
    if effect.ci is not None:
        text += f"; 95% interval {effect.ci[0]:+.3f} to {effect.ci[1]:+.3f}"
    if effect.boot is not None and effect.boot.skipped_share > 0.05:
        text += (
            f"; {effect.boot.skipped_share:.0%} of the resampled juries left these jurors "
            "unlinked and were left out"
        )
    text += ")"
    if effect.ci is None:
        why = (effect.note or "").removeprefix("No interval: ").rstrip(".")
        text += f"; no interval{f' ({why})' if why else ''}, so no verdict"
    elif effect.clear:
        than = f" than {effect.peers[0]}" if effect.kind == PAIR else " than the average juror"
        text += (": more lenient" if value > 0 else ": more severe") + than
    else:
        text += ": no clear difference"
    if effect.kind == PAIR:
        text += (
            "; with only the two of them on these papers, only the difference between them is "
            "identified, not which of them is off"
        )
    return text
