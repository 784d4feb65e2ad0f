"""Reads of the context lab's variants and results: structural labels, prompts, Table 1,
paired tests, judges. Selectors (they query); the figures come from the pure modules
`labels`, `prompts`, `variants` and `outcomes`. Pages, commands and reports share them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from ...models import ContextExample, ContextPuzzle, ContextQuestion, JudgeVerdict, SolverAnswer
from ..lab.analysis import DEFAULT_TOKENIZER, Example, PuzzleAnalysis, Question, analyse
from ..lab.labels import StructuralLabel, structural_label
from ..lab.prompts import PuzzlePrompt, variant_prompt
from ..lab.selectors import puzzle_slugs
from ..lab.variants import DEFAULT_SEED, Variant, puzzle_variants
from .judges import (
    PAPER_TABLE_2_CONDITIONS,
    Contradictions,
    JudgeAgreement,
    Verdict,
    judge_agreement,
    judge_contradictions,
)
from .outcomes import Answer, ConditionSummary, PuzzleRun, condition_summaries, puzzle_runs
from .paired import PairedTest, paired_tests


@dataclass(frozen=True)
class PuzzleVariant:
    """One variant of a puzzle: its structural label and the prompt to run through a model."""

    label: StructuralLabel
    prompt: PuzzlePrompt

    @property
    def puzzle(self) -> str:
        return self.label.puzzle

    @property
    def condition(self) -> str:
        return self.label.condition

    @property
    def deleted(self) -> tuple[int, ...]:
        return self.label.deleted


def puzzles_inputs(
    puzzles: Iterable[ContextPuzzle],
) -> dict[int, tuple[tuple[Example, ...], tuple[Question, ...]]]:
    """Return {puzzle id: (examples, questions)} for many puzzles in two queries."""
    ids = [p.pk for p in puzzles]
    examples: dict[int, list[Example]] = {pk: [] for pk in ids}
    questions: dict[int, list[Question]] = {pk: [] for pk in ids}
    rows = ContextExample.objects.filter(puzzle_id__in=ids).order_by("puzzle_id", "position")
    for pk, foreign, alternatives, english in rows.values_list(
        "puzzle_id", "foreign", "foreign_alternatives", "english"
    ):
        examples[pk].append(Example(foreign=(foreign, *alternatives), english=english))
    rows = ContextQuestion.objects.filter(puzzle_id__in=ids).order_by("puzzle_id", "position")
    for pk, qid, direction, prompt, answers in rows.values_list(
        "puzzle_id", "qid", "direction", "prompt", "answers"
    ):
        questions[pk].append(
            Question(id=qid, direction=direction, prompt=prompt, answers=tuple(answers))
        )
    return {pk: (tuple(examples[pk]), tuple(questions[pk])) for pk in ids}


def puzzles_selected(slugs: Iterable[str] | None = None) -> list[ContextPuzzle]:
    """Return the puzzles of these slugs (all, by slug, when None); ValueError names unknown ones."""
    if slugs is None:
        return list(ContextPuzzle.objects.order_by("slug"))
    wanted = list(dict.fromkeys(slugs))
    found = {p.slug: p for p in ContextPuzzle.objects.filter(slug__in=wanted)}
    unknown = [s for s in wanted if s not in found]
    if unknown:
        known = ", ".join(puzzle_slugs()) or "none"
        raise ValueError(f"unknown puzzle {unknown[0]!r} (known: {known})")
    return [found[s] for s in wanted]


def puzzle_variants_of(
    puzzles: Iterable[ContextPuzzle],
    *,
    seed: int | str = DEFAULT_SEED,
    tokenizer: str = DEFAULT_TOKENIZER,
) -> tuple[PuzzleVariant, ...]:
    """Return the four variants of each puzzle (in CONDITIONS order), labelled, with prompts.

    The random deletion depends on `seed` and the targeted one on `tokenizer` (through D and
    D_Q): results must be read with the seed and tokenizer their prompts were made with."""
    puzzles = list(puzzles)
    inputs = puzzles_inputs(puzzles)
    out = []
    for puzzle in puzzles:
        examples, questions = inputs[puzzle.pk]
        analysis = analyse(examples, questions, tokenizer=tokenizer)
        pairs = [
            (e.foreign[0] if len(e.foreign) == 1 else " / ".join(e.foreign), e.english)
            for e in examples
        ]
        triples = [(q.id, q.direction, q.prompt) for q in questions]
        for variant in _variants(analysis, puzzle.slug, seed):
            out.append(
                PuzzleVariant(
                    label=structural_label(analysis, variant, puzzle=puzzle.slug),
                    prompt=variant_prompt(
                        title=puzzle.title or puzzle.slug,
                        language=puzzle.language or "the foreign language",
                        examples=pairs,
                        questions=triples,
                        kept=variant.kept,
                    ),
                )
            )
    return tuple(out)


def structural_labels_of(
    puzzles: Iterable[ContextPuzzle],
    *,
    seed: int | str = DEFAULT_SEED,
    tokenizer: str = DEFAULT_TOKENIZER,
) -> tuple[StructuralLabel, ...]:
    """Return the structural label of each puzzle's four variants (no prompts)."""
    puzzles = list(puzzles)
    inputs = puzzles_inputs(puzzles)
    out = []
    for puzzle in puzzles:
        analysis = analyse(*inputs[puzzle.pk], tokenizer=tokenizer)
        out += [
            structural_label(analysis, variant, puzzle=puzzle.slug)
            for variant in _variants(analysis, puzzle.slug, seed)
        ]
    return tuple(out)


def _variants(analysis: PuzzleAnalysis, slug: str, seed: int | str) -> tuple[Variant, ...]:
    return puzzle_variants(
        [e.d for e in analysis.examples],
        [e.dq for e in analysis.examples],
        puzzle_slug=slug,
        seed=seed,
    )


@dataclass(frozen=True)
class ContextResults:
    """What models and judges did with the puzzles' variants, from the stored rows.

    `labels`: every variant's structural label; `runs`: scored answers per model,
    condition and puzzle; `summaries`: Table 1; `tests`: original against each deletion;
    `agreement_targeted`: the paper's Table 2 (each judge's verdicts on the targeted
    variant against its label, the puzzle's fragility); `agreement_pooled`: ours, every
    judged condition pooled against its variant's label; `contradictions`: Tables 7 and 8."""

    puzzles: tuple[str, ...]
    seed: int | str
    tokenizer: str
    labels: tuple[StructuralLabel, ...]
    runs: tuple[PuzzleRun, ...]
    summaries: tuple[ConditionSummary, ...]
    tests: tuple[PairedTest, ...]
    agreement_targeted: tuple[JudgeAgreement, ...]
    agreement_pooled: tuple[JudgeAgreement, ...]
    contradictions: Contradictions
    models: tuple[str, ...]
    judges: tuple[str, ...]


def context_results(
    puzzles: Iterable[ContextPuzzle] | None = None,
    *,
    seed: int | str = DEFAULT_SEED,
    tokenizer: str = DEFAULT_TOKENIZER,
) -> ContextResults:
    """Score the stored solver answers and compare the judges' verdicts (five queries).

    Every puzzle when `puzzles` is None. The answer key is each question's accepted answers;
    a question a run does not answer counts as an abstention (outcomes.puzzle_runs)."""
    puzzles = list(ContextPuzzle.objects.order_by("slug") if puzzles is None else puzzles)
    by_id = {p.pk: p.slug for p in puzzles}
    labels = structural_labels_of(puzzles, seed=seed, tokenizer=tokenizer)
    key: dict[str, dict[str, tuple[str, ...]]] = {p.slug: {} for p in puzzles}
    for pk, qid, answers in (
        ContextQuestion.objects.filter(puzzle_id__in=by_id)
        .order_by("puzzle_id", "position")
        .values_list("puzzle_id", "qid", "answers")
    ):
        key[by_id[pk]][qid] = tuple(answers)
    answers = [
        Answer(puzzle=by_id[pk], condition=condition, model=model, question=qid, answer=text)
        for pk, condition, model, qid, text in SolverAnswer.objects.filter(
            puzzle_id__in=by_id
        ).values_list("puzzle_id", "condition", "model", "question__qid", "answer")
    ]
    verdicts = [
        Verdict(puzzle=by_id[pk], condition=condition, judge=judge, verdict=verdict)
        for pk, condition, judge, verdict in JudgeVerdict.objects.filter(
            puzzle_id__in=by_id
        ).values_list("puzzle_id", "condition", "judge", "verdict")
    ]
    runs = puzzle_runs(answers, key)
    truth = {(label.puzzle, label.condition): label.unsolvable for label in labels}
    return ContextResults(
        puzzles=tuple(p.slug for p in puzzles),
        seed=seed,
        tokenizer=tokenizer,
        labels=labels,
        runs=runs,
        summaries=condition_summaries(runs),
        tests=paired_tests(runs),
        agreement_targeted=judge_agreement(verdicts, truth, conditions=PAPER_TABLE_2_CONDITIONS),
        agreement_pooled=judge_agreement(verdicts, truth),
        contradictions=judge_contradictions(verdicts, runs),
        models=tuple(sorted({a.model for a in answers})),
        judges=tuple(sorted({v.judge for v in verdicts})),
    )


def context_results_report(results: ContextResults) -> dict:
    """Return the results as JSON-ready data (the `context_results --format json` output)."""
    return {
        "puzzles": list(results.puzzles),
        "seed": results.seed,
        "tokenizer": results.tokenizer,
        "models": list(results.models),
        "judges": list(results.judges),
        "labels": [
            {
                "puzzle": label.puzzle,
                "condition": label.condition,
                "deleted": list(label.deleted),
                "label": label.label,
                "damaged_questions": list(label.damaged_questions),
            }
            for label in results.labels
        ],
        "runs": [
            {
                "model": run.model,
                "condition": run.condition,
                "puzzle": run.puzzle,
                "em": run.em,
                "abstained": run.abstained,
            }
            for run in results.runs
        ],
        "conditions": [
            {**asdict(row), "n_attempted": row.n_attempted} for row in results.summaries
        ],
        "paired_tests": [asdict(test) for test in results.tests],
        "judges_targeted": [{**asdict(row), "n": row.n} for row in results.agreement_targeted],
        "judges_pooled": [{**asdict(row), "n": row.n} for row in results.agreement_pooled],
        "contradictions": {
            "unsolvable_but_held": [
                asdict(row) for row in results.contradictions.unsolvable_but_held
            ],
            "valid_but_fell": [asdict(row) for row in results.contradictions.valid_but_fell],
        },
    }
