"""The structural label of a puzzle variant: does its deletion damage a question? Pure.

A variant is structurally **unsolvable** when the examples it deletes damage at least one
question (docs/context-lab.md: a question is damaged when every accepted alternative loses
a required token that the context held only in deleted examples):

- `original` deletes nothing, so it is never unsolvable;
- `random` and `targeted` delete one example j: unsolvable when D_Q(j) > 0;
- `no_context` deletes every example: unsolvable when some question needs, in each of its
  accepted alternatives, at least one token that occurs in the context. A question whose
  required tokens are all absent from the context (learnt from nothing in it) loses
  nothing, so it alone does not make `no_context` unsolvable. This is the same damage rule
  applied to the deletion of all examples, rather than a separate rule.

What judges are compared with (`results.judges.judge_agreement`): True for unsolvable.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import PuzzleAnalysis
from .variants import Variant


@dataclass(frozen=True)
class StructuralLabel:
    """One variant of a puzzle: what it deletes (1-based) and the questions that damages."""

    puzzle: str
    condition: str
    deleted: tuple[int, ...]
    damaged_questions: tuple[str, ...]

    @property
    def unsolvable(self) -> bool:
        return bool(self.damaged_questions)

    @property
    def label(self) -> str:
        return "unsolvable" if self.unsolvable else "valid"


def variant_deleted(variant: Variant, n_examples: int) -> tuple[int, ...]:
    """Return the examples (1-based) a variant deletes: none, one, or all."""
    kept = set(variant.kept)
    return tuple(j for j in range(1, n_examples + 1) if j not in kept)


def structural_label(analysis: PuzzleAnalysis, variant: Variant, *, puzzle: str) -> StructuralLabel:
    """Return the structural label of one variant of an analysed puzzle."""
    deleted = variant_deleted(variant, analysis.n_examples)
    return StructuralLabel(
        puzzle=puzzle,
        condition=variant.condition,
        deleted=deleted,
        damaged_questions=analysis.damaged_questions(deleted),
    )
