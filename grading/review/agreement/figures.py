"""The agreement's figures from the gathered cells: one bootstrap for the problems' and the
criteria's alpha and ICC, one for all juror effects, and the notes that say what they rest on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ioleval.wording import plural

from ..stats import (
    DiscrepancyRate,
    Icc,
    JurorEffect,
    Ratings,
    Reliability,
    effect_sentence,
    juror_effects_of_many,
    reliabilities,
)
from .cells import Gathered
from .results import (
    MAX_RESAMPLES,
    MC_TARGET,
    CriterionAgreement,
    JurorAgreement,
    ProblemAgreement,
)


def problem_figures(
    gathered: list[Gathered],
    *,
    labels: dict[int, str],
    resamples: int,
    criterion_resamples: int,
    seed: int,
    criterion_icc: bool,
) -> list[ProblemAgreement]:
    """Compute the problems' figures; the bootstraps of all problems share their draws, and
    so do those of all criteria (stats.reliabilities)."""
    with_icc = [g for g in gathered if g.k]
    problem_alphas = [Ratings(g.shares, g.share_papers) for g in gathered]
    problem_iccs = [Ratings(g.share_rows, g.share_row_papers) for g in with_icc]
    criterion_cells = [(g, code) for g in gathered for code in g.codes]
    icc_cells = [(g, code) for g, code in criterion_cells if criterion_icc and g.k]
    criterion_alphas = [Ratings(g.units[code], g.papers[code]) for g, code in criterion_cells]
    criterion_iccs = [Ratings(g.rows[code], g.papers[code]) for g, code in icc_cells]

    def draw(alphas, iccs, resamples):
        return reliabilities(
            alphas=alphas,
            iccs=iccs,
            resamples=resamples,
            seed=seed,
            mc_target=MC_TARGET,
            max_resamples=max(resamples, MAX_RESAMPLES),
        )

    if criterion_resamples == resamples:  # one bootstrap: a criterion has its problem's papers
        got_alphas, got_iccs = draw(
            problem_alphas + criterion_alphas, problem_iccs + criterion_iccs, resamples
        )
        alphas, criterion_got = got_alphas[: len(gathered)], got_alphas[len(gathered) :]
        iccs, criterion_icc_got = got_iccs[: len(with_icc)], got_iccs[len(with_icc) :]
    else:
        alphas, iccs = draw(problem_alphas, problem_iccs, resamples)
        criterion_got, criterion_icc_got = draw(
            criterion_alphas, criterion_iccs, criterion_resamples
        )
    icc_of = dict(zip(map(id, with_icc), iccs, strict=True))
    criterion_icc_of = dict(
        zip([(id(g), code) for g, code in icc_cells], criterion_icc_got, strict=True)
    )
    criterion_alpha_of = dict(
        zip([(id(g), code) for g, code in criterion_cells], criterion_got, strict=True)
    )
    effects_of = juror_effects_of_many(
        [g.severity for g in gathered], resamples=resamples, seed=seed
    )
    out = []
    for g, alpha, effects in zip(gathered, alphas, effects_of, strict=True):
        none = Reliability(None, None, 0, note="No paper has submitted marks from two jurors yet.")
        pair = icc_of.get(id(g)) or Icc(none, none)
        jurors = sorted(
            (_juror(e, labels, g.scale) for e in effects), key=lambda j: j.name.casefold()
        )
        discrepant = sum(g.counted[code][0] for code in g.codes)
        compared = sum(g.counted[code][1] for code in g.codes)
        out.append(
            ProblemAgreement(
                problem=g.problem.number,
                title=g.problem.title,
                finalized=g.finalized,
                tolerance=g.tolerance,
                discrepancy=_rate(discrepant, compared),
                alpha=alpha,
                icc=pair.average,
                icc_single=pair.single,
                k=g.k,
                jurors=tuple(jurors),
                criteria=tuple(
                    _criterion(
                        criterion,
                        g.counted[criterion.code],
                        alpha=criterion_alpha_of[(id(g), criterion.code)],
                        icc=criterion_icc_of.get((id(g), criterion.code)),
                    )
                    for criterion in g.criteria
                ),
                cells=g.cells,
                revised=g.revised,
                note=_notes(
                    finalized=g.finalized,
                    criteria=g.criteria,
                    k=g.k,
                    icc=pair.average,
                    extra=g.extra,
                    revised=g.revised,
                    unmarked=g.unmarked,
                    without_maximum=g.without_maximum,
                ),
            )
        )
    return out


def _juror(effect: JurorEffect, labels: dict[int, str], scale: float) -> JurorAgreement:
    named = replace(
        effect, rater=labels[effect.rater], peers=tuple(labels[p] for p in effect.peers)
    )
    return JurorAgreement(
        name=named.rater,
        kind=named.kind,
        peers=named.peers,
        effect=named.effect,
        ci=named.ci,
        cells=named.cells,
        papers=named.papers,
        sentence=effect_sentence(named, scale=scale or None),
        method=named.method,
    )


def _rate(discrepant: int, compared: int) -> DiscrepancyRate:
    if not compared:
        return DiscrepancyRate(None, 0, 0, "No cell has submitted marks from two jurors yet.")
    return DiscrepancyRate(discrepant / compared, discrepant, compared)


def _criterion(
    criterion,
    counted: list[int],
    *,
    alpha: Reliability,
    icc: Icc | None,
) -> CriterionAgreement:
    rate = _rate(*counted)
    return CriterionAgreement(
        code=criterion.code,
        discrepancy_rate=rate.rate,
        discrepant=rate.discrepant,
        compared=rate.compared,
        alpha=alpha.value,
        alpha_ci=alpha.ci,
        n_cells=alpha.units,
        icc=icc.average.value if icc else None,
        icc_ci=icc.average.ci if icc else None,
        icc_single=icc.single.value if icc else None,
        icc_single_ci=icc.single.ci if icc else None,
        resamples=alpha.resamples,
        note=_join([alpha.note, icc.average.note if icc else None]),
        maximum=float(criterion.maximum),
        exact=alpha.exact,
        mc_error=alpha.mc_error,
        method=alpha.method,
    )


def _notes(
    *,
    finalized: bool,
    criteria: list,
    k: int,
    icc: Reliability,
    extra: int,
    revised: int,
    unmarked: int,
    without_maximum: list[str],
) -> str | None:
    notes = []
    if not criteria:
        notes.append("The problem has no rubric yet.")
    if not finalized:
        notes.append(
            "Provisional: the problem is not finalized; its figures change as marks come in."
        )
    notes.append("Figures use the marks as the jurors submitted them, before discussion.")
    if without_maximum:
        notes.append(
            f"{plural(len(without_maximum), 'criterion', 'criteria')} with a maximum of 0 "
            f"({', '.join(without_maximum)}) left out of the problem's figures."
        )
    if revised:
        notes.append(
            f"{plural(revised, 'submitted mark')} {'was' if revised == 1 else 'were'} "
            f"revised since and {'counts' if revised == 1 else 'count'} here as first submitted."
        )
    if k:
        notes.append(
            f"ICC(A,{k}) and ICC(A,1) pair each paper's first, second{', ...' if k > 2 else ''} "
            "juror to submit (the juror slots), whoever they are"
            + (
                f"; {plural(icc.left_out, 'cell')} with fewer marks left out"
                if icc.left_out
                else ""
            )
            + (f"; {plural(extra, 'further mark')} beyond slot {k} not used" if extra else "")
            + "."
        )
    if unmarked:
        notes.append(f"{plural(unmarked, 'cell')} without any submitted mark yet.")
    return _join(notes)


def _join(notes: Iterable[str | None]) -> str | None:
    text = " ".join(n for n in notes if n)
    return text or None
