"""Worst-case rendering times of untrusted model text: explanation_html and a paper PDF.

    .venv/bin/python benchmarks/untrusted_text.py            # every case, 3 runs each
    .venv/bin/python benchmarks/untrusted_text.py --repeat 5 --case "a run of ["

The inputs are the pathological explanations of tests/grading/test_untrusted_text.py
(deep list and quote nesting, runs of brackets, unclosed link destinations and HTML tags,
escaped backticks, deep raw HTML, a 1 MB line, 100,000 lines, thousands of links, emphasis
markers or table rows, mixtures), each at least the size limit; grading.text cuts them to
EXPLANATION_LIMIT characters and LINE_LIMIT lines. For each case the script times:

1. `explanation_html(text)`: the page's rendering (markdown, or the plain-text fallback,
   plus nh3), best and worst of --repeat runs, as CPU time of this process (the machine is
   shared: wall time is printed beside it);
2. `paper_pdf(paper)` of a demo paper (problem 1, three assignments) whose first assignment
   carries the text, and of the same paper whose every assignment carries it (made distinct,
   so that no "same as assignment 1" shortens it): WeasyPrint included, as a juror's
   download and a batch's task do it.

It also times a 1 MB single-line answer in every item, the same paper with its own demo
text (the baseline), and the longest real explanation of the IOL-AI 2026 submissions.
It then times each superlinear family found (a unit repeated: `[`, `[a](`, `<a `, escaped
backticks, comments after open tags, code spans, ...) at the edge of the budgets: the
longest single block of it that grading.text still hands to Python-Markdown, in a text
padded with prose to the size limit (Python-Markdown's time grows with the square of a
block, so one block at the edge is the worst). With --fuzz SECONDS it first feeds `explanation_html` 10,000-character texts made of markdown
tokens (a short random unit repeated, or random tokens; --seed) for that long and prints
the slowest units.
Data: a throwaway SQLite database in a temporary folder, migrated and loaded with
`manage.py demo` (not timed), deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IOLAI_SUBMISSIONS = REPO.parent / "shared" / "data" / "iolai-2026" / "submissions"


def django_setup(database_url: str) -> None:
    sys.path.insert(0, str(REPO))
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"  # render_pdf re-reads its stylesheet under DEBUG
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")
    import django

    django.setup()


def timed(function, repeat: int) -> tuple[float, float, float]:
    """Return (best CPU s, worst CPU s, worst wall s) of `repeat` calls."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        function()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu), max(cpu), max(wall)


def longest_real_explanation() -> str:
    """Return the longest explanation among the IOL-AI 2026 submissions ("" without them)."""
    longest = ""
    for path in IOLAI_SUBMISSIONS.glob("*/predictions.json"):
        rows = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(rows, dict):
            rows = rows.get("predictions", list(rows.values()))
        for row in rows:
            if isinstance(row, dict) and len(str(row.get("explanation") or "")) > len(longest):
                longest = str(row["explanation"])
    return longest


FUZZ_TOKENS = [
    *"[]()`\\<>*_!-#|:~&;{}^=\"'@+$%",
    " ",
    "\n",
    "\n\n",
    "a",
    "1. ",
    "    ",
    "\t",
    "</",
    "<a ",
    "](",
    "[^",
    "*[",
    "<!--",
    "-->",
    '<div markdown="1">',
    "http://",
    "+ ",
    "> ",
    "- ",
    "```",
    "~~~",
    "<p>",
    "</p>",
    "<b>",
    "<!-->",
    "&amp;",
    "&#",
    "\\`",
]


def fuzz(seconds: float, seed: int) -> None:
    """Time explanation_html on generated texts for `seconds`; print the slowest units."""
    import random

    from grading.text import EXPLANATION_LIMIT, explanation_html

    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    timings = []
    while time.monotonic() < deadline:
        if rng.random() < 0.3:
            unit = "random"
            text = "".join(rng.choice(FUZZ_TOKENS) for _ in range(EXPLANATION_LIMIT // 2))
        else:
            unit = "".join(rng.choice(FUZZ_TOKENS) for _ in range(rng.randint(1, 7)))
            text = unit * (EXPLANATION_LIMIT // len(unit) + 1)
        text = text[:EXPLANATION_LIMIT]
        started = time.process_time()
        explanation_html(text)
        timings.append((time.process_time() - started, unit))
    timings.sort(reverse=True)
    print(f"fuzz: {len(timings)} texts of {EXPLANATION_LIMIT} characters; the slowest:")
    for seconds_cpu, unit in timings[:5]:
        print(f"  {seconds_cpu:.3f} s CPU  {unit!r}")
    print()


# Units that Python-Markdown 3.11 renders in time superlinear in their repetitions.
SUPERLINEAR = [
    "[",
    "![",
    "[a](",
    "<a ",
    "\\``",
    "- \\][",
    "\\)+ [`](",
    "<b><!-->",
    "> <!--><a ",
    "```#]```[^</p></p>",
    "<!--></</p><b>:",
    "```:`",
    "*a* **b** _c_ ",
]


def edges() -> None:
    """Time each superlinear unit as the longest block still rendered as markdown."""
    from grading.text import (
        EXPLANATION_LIMIT,
        MARKUP_BUDGET,
        SCAN_BUDGET,
        explanation_html,
        flatten_nesting,
        markup_load,
        scan_cost,
    )

    def fits(block: str) -> bool:
        source = flatten_nesting(block)
        return scan_cost(source) <= SCAN_BUDGET and markup_load(source) <= MARKUP_BUDGET

    padding = "plain words of prose " * (EXPLANATION_LIMIT // 20)
    worst = (0.0, "")
    print("at the budgets' edge (the longest block of the unit still rendered as markdown):")
    for unit in SUPERLINEAR:
        low, high = 1, EXPLANATION_LIMIT
        while low < high:  # the longest length that fits (fitting is monotonic here)
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits((unit * middle)[:middle]) else (low, middle - 1)
        text = ((unit * low)[:low] + "\n\n" + padding)[:EXPLANATION_LIMIT]
        seconds = min(timed(lambda text=text: explanation_html(text), 3)[:2])
        worst = max(worst, (seconds, unit))
        print(f"  {unit!r:24} block of {low:5d} characters: {seconds:.3f} s CPU")
    print(f"  worst: {worst[0]:.3f} s CPU ({worst[1]!r})\n")


# Shapes that stay markdown (under every bound) yet cost WeasyPrint the most boxes: the
# worst a PDF meets without falling back to plain text.
INSIDE_THE_BOUNDS = {
    "inside: 240 list lines nested 8 deep": "\n".join(
        "    " * (i % 8) + "- " + "word " * 6 for i in range(240)
    ),
    "inside: 240 headings": "\n".join("# " + "h" * 30 for _ in range(240)),
    "inside: 249 hard line breaks": "\n".join("a  " for _ in range(249)),
    "inside: a 130-column table of long cells": "|"
    + ("x" * 40 + "|") * 130
    + "\n|"
    + "-|" * 130
    + "\n",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (default 3)")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--no-pdf", action="store_true", help="time explanation_html only")
    parser.add_argument("--fuzz", type=float, default=0, help="seconds of generated texts first")
    parser.add_argument("--seed", type=int, default=2026, help="of the generated texts")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="ioleval-untrusted-"))
    try:
        django_setup(f"sqlite:///{tmp / 'bench.sqlite3'}")
        return run(args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args) -> int:
    from io import StringIO

    from django.core.management import call_command

    from grading.models import Paper
    from grading.pdf import paper_pdf
    from grading.text import ANSWER_LIMIT, EXPLANATION_LIMIT, LINE_LIMIT, explanation_html
    from puzzles.models import Output
    from tests.grading.test_untrusted_text import PATHOLOGICAL

    if args.fuzz:
        fuzz(args.fuzz, args.seed)
    edges()
    cases = dict(PATHOLOGICAL) | INSIDE_THE_BOUNDS
    real = longest_real_explanation()
    if real:
        cases["the longest real explanation (IOL-AI 2026)"] = real
    if args.case:
        cases = {name: text for name, text in cases.items() if name in args.case}
    print(
        f"limits: {EXPLANATION_LIMIT} characters and {LINE_LIMIT} lines per explanation, "
        f"{ANSWER_LIMIT} characters per answer item; {args.repeat} runs per case"
    )

    paper = outputs = None
    if not args.no_pdf:
        call_command("migrate", verbosity=0)
        call_command("demo", stdout=StringIO())
        paper = Paper.objects.filter(problem__number=1).order_by("code").first()
        outputs = list(
            Output.objects.filter(
                system_id=paper.system_id, task__problem=paper.problem_id
            ).order_by("task__number")
        )
        originals = [(o.explanation, o.parsed_items, o.extracted_items) for o in outputs]

        def restore() -> None:
            for output, (explanation, parsed, extracted) in zip(outputs, originals, strict=True):
                output.explanation = explanation
                output.parsed_items, output.extracted_items = parsed, extracted
                output.save(update_fields=["explanation", "parsed_items", "extracted_items"])

        paper_pdf(paper)  # warm: fonts and stylesheet
        best, worst, wall = timed(lambda: paper_pdf(paper), args.repeat)
        print(
            f"\nbaseline: the demo paper {paper.code} ({len(outputs)} assignments) as a PDF: "
            f"{best:.3f}-{worst:.3f} s CPU ({wall:.3f} s wall)\n"
        )

    header = f"{'case':46} {'chars':>9} {'html CPU s':>11} {'PDF, 1 expl.':>13} {'PDF, all':>9}"
    print(header)
    print("-" * len(header))
    worst_html = worst_one = worst_all = (0.0, "")
    for name, text in cases.items():
        html = timed(lambda text=text: explanation_html(text), args.repeat)
        row = f"{name[:46]:46} {len(text):>9} {html[1]:>11.3f}"
        worst_html = max(worst_html, (html[1], name))
        if paper is not None:
            outputs[0].explanation = text
            outputs[0].save(update_fields=["explanation"])
            one = timed(lambda: paper_pdf(paper), args.repeat)
            for number, output in enumerate(outputs[1:], 2):
                output.explanation = f"{text}\n\nassignment {number}"
                output.save(update_fields=["explanation"])
            every = timed(lambda: paper_pdf(paper), args.repeat)
            restore()
            row += f" {one[1]:>13.3f} {every[1]:>9.3f}"
            worst_one = max(worst_one, (one[1], name))
            worst_all = max(worst_all, (every[1], name))
        print(row, flush=True)

    if paper is not None:
        for output in outputs:
            items = list(output.parsed_items or [])
            huge = ["x" * 1_000_000] * max(len(items), 1)
            output.parsed_items = output.extracted_items = huge
            output.save(update_fields=["parsed_items", "extracted_items"])
        answers = timed(lambda: paper_pdf(paper), args.repeat)
        restore()
        print(
            f"\na 1 MB single-line answer in every item: PDF {answers[1]:.3f} s CPU "
            f"({answers[2]:.3f} s wall)"
        )

    print(f"\nworst explanation_html: {worst_html[0]:.3f} s CPU ({worst_html[1]})")
    if paper is not None:
        print(
            f"worst paper PDF, one hostile explanation: {worst_one[0]:.3f} s CPU ({worst_one[1]})"
        )
        print(
            f"worst paper PDF, every explanation hostile: {worst_all[0]:.3f} s CPU ({worst_all[1]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
