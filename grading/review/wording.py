"""The review's sentences: each figure said with its method, or why there is none (pure:
plain values in, text out)."""

from __future__ import annotations

from ioleval.wording import interval_text, p_method_text, p_text

from .stats import Correlation, CriterionDifficulty


def ordinal(n: int) -> str:
    """Return 1st, 2nd, 3rd, 4th, 11th, 21st..."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def correlation_sentence(c: Correlation) -> str:
    """Say the correlation in words, each figure with its p-value and interval and their
    methods, or why there is none."""
    if c.spearman is None:
        return c.note or "No correlation can be given."
    methods = {c.spearman_p_method, c.pearson_p_method, c.kendall_p_method}
    shared = methods.pop() if len(methods) == 1 else None  # one method: named once, at the end

    def figure(name: str, value: float, p: float | None, method: str | None, ci, ci_method):
        interval = interval_text(ci, ci_method)
        text = f"{name} = {value:.2f}" + (f" ({interval})" if interval else "")
        return f"{text}, {p_text(p) if shared else p_method_text(p, method)}"

    text = (
        f"Over {c.n} systems, the jury's ranking and the automatic one agree with "
        + figure(
            "Spearman rho",
            c.spearman,
            c.spearman_p,
            c.spearman_p_method,
            c.spearman_ci,
            c.spearman_ci_method,
        )
        + "; "
        + figure(
            "Pearson r",
            c.pearson,
            c.pearson_p,
            c.pearson_p_method,
            c.pearson_ci,
            c.pearson_ci_method,
        )
        + "; "
        + figure(
            "Kendall tau",
            c.kendall,
            c.kendall_p,
            c.kendall_p_method,
            c.kendall_ci,
            c.kendall_ci_method,
        )
        + (f" (p-values by {shared})." if shared else ".")
    )
    if c.n < 10:
        if c.spearman_ci is not None:
            text += f" With n = {c.n} the interval is wide: read it rather than the point value."
        else:
            text += (
                f" With n = {c.n} and no interval for rho, read its exact p-value rather than "
                "the point value."
            )
    return text


def difficulty_sentence(d: CriterionDifficulty) -> str:
    if d.spearman is None:
        return d.note or "Criterion difficulty cannot be compared."
    interval = interval_text(d.spearman_ci, d.spearman_ci_method)
    text = (
        f"Over {d.n} criteria, what is hard for models and what is hard for contestants "
        f"agree with Spearman rho = {d.spearman:.2f}"
        + (f" ({interval})" if interval else "")
        + f", {p_method_text(d.spearman_p, d.spearman_p_method)}."
    )
    if d.harder_for_models:
        text += " Much harder for models: " + ", ".join(g.code for g in d.harder_for_models) + "."
    if d.harder_for_humans:
        text += (
            " Much harder for contestants: " + ", ".join(g.code for g in d.harder_for_humans) + "."
        )
    return text


def ranges_sentence(
    *,
    jury: float | None,
    auto: float | None,
    jury_share: float | None,
    auto_share: float | None,
    jury_maximum: float | None,
) -> str:
    """Say how far the jury totals and the automatic scores spread, each as a share of its own
    scale: the jury's points (`jury_maximum`), the automatic scores' 0-100."""
    parts = []
    if jury_share is not None:
        parts.append(
            f"the jury's totals span {jury_share:.0%} of its {jury_maximum:g}-point scale "
            f"({jury:.1f} points)"
        )
    elif jury is not None:
        parts.append(f"the jury's totals span {jury:.1f} points (no scale set to compare with)")
    if auto_share is not None:
        parts.append(
            f"the automatic scores {auto_share:.0%} of theirs (0-100)"
            if parts
            else f"the automatic scores span {auto_share:.0%} of their 0-100 scale"
        )
    if not parts:
        return "Ranges need at least two systems with figures on each scale."
    sentence = ", ".join(parts)
    sentence = sentence[0].upper() + sentence[1:]
    if jury is None:
        sentence += "; the jury's range needs at least two jury totals"
    elif auto is None:
        sentence += "; the automatic range needs at least two automatic scores"
    return sentence + "."
