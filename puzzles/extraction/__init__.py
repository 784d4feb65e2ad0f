"""Extract answer items and an explanation from a model's free-text reply.

Pure functions, no Django. `extract_answer(text, n_items, query)` works in four steps:

1. A reply that is wholly a JSON list is split exactly as `metrics.parse_prediction`
   splits it, so clean submissions never change; a JSON object with an "answers" list
   (and perhaps an "explanation"), or a Python list or dict literal, is taken the same way.
2. A reasoning trace (`<think>…</think>`, a dangling `</think>`, `<|begin_of_thought|>`,
   a harmony analysis channel) is set aside: answers are never read from it unless the
   reply holds nothing else, and it is not the explanation (a contestant's drafts are not
   graded either). `<answer>…</answer>` and `<explanation>…</explanation>` blocks are
   taken as the final answer section and an explanation section.
3. The reply is cut into sections at headings: `Answer:`, `Final answers:`, `## Answer`,
   `**Reasoning**`, `Explanation: ...`, or a short line ending in a colon that names one
   ("Sure! Here are the answers:"). The answers are looked for in the last answer
   section (a "final" one preferred), else in the text outside explanation sections,
   else (when that holds no list) inside the explanation sections.
4. In that region: a JSON value or Python list repr (whole, fenced, or embedded with
   exactly n elements; an embedded list of numbers only when it stands on its own line,
   so a citation such as `[1, 2]` in prose is not an answer list); else LaTeX boxes
   (`\\boxed{...}`: the last n boxes, or one box holding the whole list); else labelled
   lines (`16.`, `17)`, `(b)`, `iv)`, `BB.`, `1 - C`, `Answer 16:`, `Q3:`, bullets of
   any common glyph, table rows), mapped to the query's item labels when most of them
   match and otherwise taken in order; else plain lines. A single-item task takes a
   multi-line answer section as one paragraph, and outside a section its last paragraph.

Items lose their label, markdown emphasis, backticks and LaTeX markup (`\\text{}`,
`$…$`, accents such as `\\'e`), and the query's source item
when echoed before a separator (`→`, `->`, `=`, `:`, ` - `, ` — `) or after the answer
in brackets; an arrow and anything before it go even without a query. Quotes are left
to `metrics.normalize`. The explanation is the explanation sections' text, the JSON
object's "explanation", or else the text outside the answer block minus chatter.

Not handled: one bare "Answer:" heading per item (only the last such section is read),
answers inside running prose ("so 16 is kayé"), nested sub-lists under
items, and several answer lists without a heading (the last list of n items wins).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cleaning import clean_explanation
from .items import find_items, load_json, query_items, value_items
from .latex import has_words, latex_plain, without_boxes
from .sections import Section, pick_answer_section, split_sections
from .traces import read_reply


@dataclass(frozen=True)
class Extraction:
    """Answer items cut or padded to the task's item count, and the explanation."""

    items: list[str]
    explanation: str
    n_items_found: int
    method: str


def extract_answer(text: str | None, n_items: int, query: str = "") -> Extraction:
    """Extract answer items and the explanation from free model text."""
    n = max(int(n_items), 0)
    if text is None or not text.strip():
        return Extraction([""] * n, "", 0, "empty")
    # A clean JSON list is parsed as the competition parsed it; a Python literal the same way
    # (read whole, its comment lines are not headings).
    whole = value_items(load_json(text.strip()))
    if whole is not None:
        items, explanation = whole
        return Extraction((items + [""] * n)[:n], explanation.strip(), len(items), "json")
    reply = read_reply(text)
    # A reply that is all trace (cut off mid-thought, or a tag never closed) is read as is.
    cut_off = not reply.text.strip() and reply.answer is None and not reply.explanation
    sections = split_sections(reply.trace if cut_off else reply.text)
    if reply.answer is not None:
        sections.append(Section("answer", reply.answer.split("\n"), final=True))
    if reply.explanation:
        sections.append(Section("explain", reply.explanation.split("\n")))
    answer = pick_answer_section(sections)
    explained = "\n\n".join(s.body for s in sections if s.kind == "explain" and s.body)
    others = "\n".join(s.body for s in sections if s.kind == "other")
    region, outside = (answer.body, others) if answer else (others, "")
    labels, sources = query_items(query, n)
    found = find_items(region, n, labels, sources, from_section=answer is not None)
    borrowed = False
    if explained and found.method == "lines":  # "lines": no answer section, no list found
        # Models often run their reasoning straight into an unheaded list of answers.
        alt = find_items(explained, n, labels, sources, from_section=False)
        if alt.method != "lines" or not region.strip():
            outside, region, found, borrowed = region, explained, alt, True
    leftover = clean_explanation("\n".join((outside, region[: found.start], region[found.end :])))
    if found.method == "boxed":  # the boxes stay in the explanation, as the reader saw them
        leftover = latex_plain(leftover) if has_words(without_boxes(leftover)) else ""
    if found.explanation:
        explanation = found.explanation
    elif borrowed:
        explanation = leftover or explained
    else:
        explanation = explained or leftover
    n_found = len(found.items) if found.n_found is None else found.n_found
    return Extraction((found.items + [""] * n)[:n], explanation.strip(), n_found, found.method)
