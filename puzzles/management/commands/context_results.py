import json

from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from puzzles.context.lab.analysis import DEFAULT_TOKENIZER, TOKENIZERS
from puzzles.context.lab.variants import DEFAULT_SEED
from puzzles.context.results.selectors import (
    ContextResults,
    context_results,
    context_results_report,
    puzzles_selected,
)


class Command(AppCommand):
    help = (
        "Print what models and judges did with the puzzles' variants: Table 1 per model and "
        "condition, paired tests (Wilcoxon, McNemar), judges against the structural labels "
        "and their contradictions. Use the seed and tokenizer the prompts were exported with."
    )

    def add_arguments(self, parser):
        parser.add_argument("puzzles", nargs="*", help="puzzle slugs (default: every puzzle)")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default=DEFAULT_TOKENIZER)

    def handle(self, *args, **options):
        try:
            puzzles = puzzles_selected(options["puzzles"] or None)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        results = context_results(puzzles, seed=options["seed"], tokenizer=options["tokenizer"])
        if options["format"] == "json":
            report = context_results_report(results)
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for line in _text(results):
            self.stdout.write(line)


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _text(results: ContextResults) -> list[str]:
    unsolvable = sum(label.unsolvable for label in results.labels)
    lines = [
        f"{len(results.puzzles)} puzzles, {len(results.labels)} variants "
        f"({unsolvable} structurally unsolvable); seed {results.seed}, "
        f"tokenizer {results.tokenizer}",
        "",
        "model | condition | puzzles | mean EM | abstained | mean EM attempted | "
        "caused abstentions, puzzles | caused abstentions, questions",
    ]
    for row in results.summaries:
        if row.puzzles_caused_abstention is None:
            puzzles = questions = "-"
        else:
            puzzles = f"{row.puzzles_caused_abstention}/{row.puzzles_answered_in_original}"
            questions = f"{row.questions_caused_abstention}/{row.questions_answered_in_original}"
        lines.append(
            f"{row.model} | {row.condition} | {row.n_puzzles} | {_figure(row.mean_em)} | "
            f"{row.puzzles_abstained} | {_figure(row.mean_em_attempted)} | {puzzles} | "
            f"{questions}"
        )
    lines += ["", "model | original vs | n | Wilcoxon p | questions | lost | gained | McNemar p"]
    for test in results.tests:
        lines.append(
            f"{test.model} | {test.condition} | {test.n_puzzles} | {_figure(test.wilcoxon_p)} | "
            f"{test.n_questions} | {test.lost} | {test.gained} | {_figure(test.mcnemar_p)}"
        )
    for title, rows in (
        (
            "Table 2: verdicts on the targeted deletion against fragility",
            results.agreement_targeted,
        ),
        ("Not the paper's Table 2: every judged variant, pooled", results.agreement_pooled),
    ):
        lines += ["", title, "judge | TP | FP | FN | TN | precision | recall | F1"]
        for row in rows:
            lines.append(
                f"{row.judge} | {row.tp} | {row.fp} | {row.fn} | {row.tn} | "
                f"{_figure(row.precision)} | {_figure(row.recall)} | {_figure(row.f1)}"
            )
    c = results.contradictions
    lines += [
        "",
        f"judged unsolvable, EM equal or higher: {len(c.unsolvable_but_held)}; "
        f"judged valid, EM lower: {len(c.valid_but_fell)}",
    ]
    return lines
