"""Reads of the result review: plain data for grading.review.build, in a fixed number of
queries whatever the number of systems, problems, papers or marks.

Jury figures follow the marks as they stand (issue 8, item 5): a cell the jurors agreed on,
or the chair decided, counts its final mark; a cell not settled yet counts the mean of its
submitted marks rounded to the criterion's step (as an agreement would), and is counted as
estimated; a cell without a submitted mark is missing, and its paper has no total yet. A
finalized problem has every cell settled, so its figures are the final ones.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from django.db import connections, router
from django.db.models import F, Func, OuterRef, Subquery, TextField, Value
from django.db.models.functions import Cast, Concat

from puzzles.auto_scores import AutoScore
from puzzles.models import Competition, ExternalScore, Output, System, Task
from puzzles.models import Problem as PuzzleProblem
from puzzles.selectors import system_auto_scores

from ..models import Contestant, ContestantPoints, Criterion, ObservationTag, PaperTag
from ..scale import MEDALS, JuryScale
from ..selectors import (
    CELL_SOURCES,
    cells_read,
    contestant_criterion_shares,
    contestant_totals,
    problem_juries,
    rubric_totals,
)


def criterion_label(problem: int, code: str) -> str:
    """Return the name a criterion goes by across problems: 'P3.b'."""
    return f"P{problem}.{code}"


@dataclass(frozen=True)
class ProblemFacts:
    """One problem as the review needs it: its jury maximum and state."""

    number: int
    title: str
    maximum: Decimal  # the current rubric's maxima summed (the problem's points without one)
    counted: bool  # the jury grades it (it has papers)
    finalized: bool


@dataclass(frozen=True)
class SystemJury:
    """A selected system's jury points per problem (None: some cell has no mark yet)."""

    system_id: int
    name: str
    tier: str
    by_problem: dict[int, Decimal | None]
    papers: dict[int, str]  # problem number -> paper code


@dataclass(frozen=True)
class ReviewData:
    """Everything the review computes from, as plain values."""

    slug: str
    name: str
    problems: tuple[ProblemFacts, ...]
    systems: tuple[SystemJury, ...]  # selected for the jury, in name order
    auto: dict[int, AutoScore]  # by system id; every system of the competition
    scale: JuryScale  # what totals are out of, and the medal thresholds on it
    contestant_totals: tuple[Decimal, ...]
    # criterion label -> mean fraction of its maximum, exact (equal shares are ties)
    model_fractions: dict[str, Fraction]  # over the selected systems
    human_fractions: dict[str, Fraction]  # over the contestants
    estimated_cells: int = 0  # cells not settled, counted at the mean of their marks
    missing_cells: int = 0  # cells without any submitted mark
    papers_missing: tuple[str, ...] = field(default_factory=tuple)  # codes of papers without total

    @property
    def jury_maximum(self) -> Decimal | None:
        """Return what jury totals are out of: the jury's scale (None: none yet)."""
        return self.scale.points

    @property
    def unfinalized(self) -> tuple[int, ...]:
        """Return the numbers of the graded problems not finalized yet."""
        return tuple(p.number for p in self.problems if p.counted and not p.finalized)


def review_data(competition: Competition) -> ReviewData:
    """Gather the review's inputs (about 15 queries, however large the competition)."""
    problems = list(
        PuzzleProblem.objects.filter(competition=competition)
        .select_related("jury")
        .order_by("number")
    )
    juries = problem_juries(problems)  # loaded with the problems: no query
    read = cells_read(problems)  # the cells as the sheet and the totals judge them
    criteria = {pk: cells.criteria for pk, cells in read.items()}

    counted = {pk for pk, cells in read.items() if cells.papers}
    systems: dict[int, dict] = {}
    fractions: dict[str, list[Fraction]] = defaultdict(list)
    estimated = missing = 0
    papers_missing = []
    for problem in problems:
        for paper in read[problem.pk].papers:
            system = paper.paper.system
            entry = systems.setdefault(
                system.pk,
                {"name": system.name, "tier": system.tier, "by_problem": {}, "papers": {}},
            )
            entry["papers"][problem.number] = paper.paper.code
            values = []
            for cell in paper.cells:
                value = cell.standing
                values.append(value)
                if value is None:
                    missing += 1
                    continue
                estimated += cell.estimated
                fractions[criterion_label(problem.number, cell.criterion.code)].append(
                    Fraction(value) / Fraction(cell.criterion.maximum)
                )
            # None while a cell has no mark, and without a rubric: nothing to grade by.
            total = sum(values, Decimal(0)) if values and None not in values else None
            entry["by_problem"][problem.number] = total
            if total is None:
                papers_missing.append(paper.paper.code)

    # Read again rather than trusted from the object given: the cache key reads the row.
    row = (
        Competition.objects.filter(pk=competition.pk)
        .values(
            "jury_scale",
            gold=F("gold_threshold"),
            silver=F("silver_threshold"),
            bronze=F("bronze_threshold"),
            honourable_mention=F("honourable_mention_threshold"),
        )
        .get()
    )
    scale = JuryScale(
        set_points=row["jury_scale"],
        problems=rubric_totals(problems, criteria),
        thresholds=tuple((key, row[key]) for key in MEDALS),
    )
    human = {
        criterion_label(share.problem, share.code): share.mean_fraction
        for share in contestant_criterion_shares(competition)
    }
    return ReviewData(
        slug=competition.slug,
        name=competition.name,
        problems=tuple(
            ProblemFacts(
                number=p.number,
                title=p.title,
                maximum=_problem_maximum(p, criteria.get(p.pk, [])),
                counted=p.pk in counted,
                finalized=juries[p.pk].finalized_at is not None,
            )
            for p in problems
        ),
        systems=tuple(
            SystemJury(
                system_id=system_id,
                name=entry["name"],
                tier=entry["tier"],
                by_problem=dict(sorted(entry["by_problem"].items())),
                papers=dict(sorted(entry["papers"].items())),
            )
            for system_id, entry in sorted(
                systems.items(), key=lambda item: item[1]["name"].casefold()
            )
        ),
        auto={a.system_id: a for a in system_auto_scores(competition)},
        scale=scale,
        contestant_totals=tuple(contestant_totals(competition)),
        model_fractions={
            label: sum(v, Fraction(0)) / len(v) for label, v in sorted(fractions.items())
        },
        human_fractions=human,
        estimated_cells=estimated,
        missing_cells=missing,
        papers_missing=tuple(sorted(papers_missing)),
    )


def _problem_maximum(problem: PuzzleProblem, criteria: list[Criterion]) -> Decimal:
    if criteria:
        return sum((c.maximum for c in criteria), Decimal(0))
    return problem.points


# --- the cache's fingerprint ----------------------------------------------------------------


def _aggregates(queryset, figures: list[tuple[str, str | F | Func]]) -> Subquery:
    """Return aggregates over the rows of `queryset` (filtered by OuterRef) as one subquery:
    their values as text, joined. One scan of the rows serves all of a table's figures.

    Func, unlike Django's aggregates, adds no GROUP BY: the subquery is one row."""
    parts = []
    for function, column in figures:
        expression = Func(F(column) if isinstance(column, str) else column, function=function)
        parts += [Cast(expression, TextField()), Value(_FIELDS)]
    row = Concat(*parts, output_field=TextField())
    return Subquery(queryset.order_by().annotate(v=row).values("v")[:1])


# Separates the rows and the fields of a joined text; not a character names are typed with.
_ROWS, _FIELDS = "\x1e", "\x1f"


class _Joined(Func):
    """Every row's text joined into one (STRING_AGG; GROUP_CONCAT on SQLite), no GROUP BY."""

    function = "STRING_AGG"
    output_field = TextField()

    def __init__(self, expression, **extra):
        super().__init__(expression, Value(_ROWS), **extra)

    def as_sqlite(self, compiler, connection, **extra_context):
        return super().as_sql(compiler, connection, function="GROUP_CONCAT", **extra_context)


def _joined(queryset, *fields: str) -> Subquery:
    """Return the named fields of every row of `queryset` as one text (in no set order)."""
    parts = []
    for name in fields:
        parts += [Cast(F(name), TextField()), Value(_FIELDS)]
    row = Concat(*parts, output_field=TextField())
    return Subquery(queryset.order_by().annotate(v=_Joined(row)).values("v")[:1])


# What the review prints of these rows, so renaming a system, a criterion's step edited in
# place or a tag renamed moves the fingerprint, though no count or latest id does (the cells'
# sources name theirs: the criteria's).
_TEXTS = {
    "system": ("id", "name", "tier", "external"),
    "problem": ("id", "number", "title", "points"),
    "tag_name": ("id", "name", "order"),
} | {source.name: source.texts for source in CELL_SOURCES if source.texts}


def review_fingerprint(competition: Competition) -> str:
    """Return a digest of everything the review reads, in one query.

    Any write the review would show changes it: what the cells are read from
    (grading.selectors.cells.CELL_SOURCES: submitted marks, assignments and submissions,
    papers, decisions, tolerances and finalizations, rubrics and criteria), observation
    tags, contestants and their points, imported and computed automatic figures
    (outputs' latest update: rescoring and re-imports touch it), answer-key and weight changes
    (the tasks' history), systems, and the thresholds; and the texts the review prints
    (`_TEXTS`: system, criterion, problem and tag names and settings), so that an edit in
    place moves it too.
    """
    alias = router.db_for_read(Competition)
    sql, params = _fingerprint_sql(alias, competition.pk)
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        names = [column[0] for column in cursor.description]
        row = dict(zip(names, cursor.fetchone() or (), strict=False))
    for source in _TEXTS:  # rows come in no set order
        row[f"fp_text_{source}"] = sorted((row.get(f"fp_text_{source}") or "").split(_ROWS))
    text = repr(sorted(row.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# The fingerprint's SQL, compiled once per process and database: Django takes longer to build
# and compile its 30 subqueries than the database takes to run them, on every page view.
_COMPILED: dict[str, tuple[str, tuple, tuple[int, ...]]] = {}
_PLACEHOLDER = -918_273_645  # stands for the competition's id while compiling; no real id


def _fingerprint_sql(alias: str, competition_id: int) -> tuple[str, list]:
    """Return the fingerprint query's SQL on a database and its parameters for a competition."""
    if alias not in _COMPILED:
        query = _fingerprint_queryset(_PLACEHOLDER).query
        sql, params = query.get_compiler(using=alias).as_sql()
        at = tuple(i for i, p in enumerate(params) if p == _PLACEHOLDER)
        if len(at) != 1:  # the id must be the query's one parameter that is no constant
            raise RuntimeError(f"fingerprint query: the id is at {at} of {params!r}")
        _COMPILED[alias] = (sql, tuple(params), at)
    sql, params, at = _COMPILED[alias]
    bound = list(params)
    for i in at:
        bound[i] = competition_id
    return sql, bound


def _fingerprint_queryset(competition_id: int):
    """The fingerprint's one query: a row of thresholds, aggregates and joined texts."""
    pk = OuterRef("pk")
    # Beyond the cells (CELL_SOURCES), what the review reads: per table, its rows in the
    # competition and what moves when a row is added, removed or edited.
    in_competition = {source.name: source.of_competition(pk) for source in CELL_SOURCES} | {
        "tag": PaperTag.objects.filter(assignment__paper__problem__competition=pk),
        "contestant": Contestant.objects.filter(competition=pk),
        "points": ContestantPoints.objects.filter(contestant__competition=pk),
        "external": ExternalScore.objects.filter(system__competition=pk),
        "output": Output.objects.filter(system__competition=pk),
        "system": System.objects.filter(competition=pk),
        "external_system": System.objects.filter(competition=pk, external=True),
        "problem": PuzzleProblem.objects.filter(competition=pk),
        "task": Task.history.filter(problem__competition=pk),
        "tag_name": ObservationTag.objects.filter(competition=pk),
    }
    # One subquery per table.
    figures: dict[str, list[tuple[str, str | F]]] = {
        source.name: list(source.figures) for source in CELL_SOURCES
    } | {
        "tag": [("COUNT", "id"), ("MAX", "id")],
        # Weighted by id, a sum moves when one row's value is edited in place.
        "contestant": [
            ("COUNT", "id"),
            ("MAX", "id"),
            ("SUM", "total"),
            ("SUM", F("id") * F("total")),
        ],
        "points": [("COUNT", "id"), ("MAX", "id"), ("SUM", F("id") * F("points"))],
        "external": [("COUNT", "id"), ("MAX", "updated_at")],
        "output": [("COUNT", "id"), ("MAX", "id"), ("MAX", "updated_at")],
        "system": [("COUNT", "id"), ("MAX", "id")],
        "external_system": [("COUNT", "id")],
        "problem": [("COUNT", "id"), ("SUM", "points")],
        "task": [("MAX", "history_id")],
    }
    annotations = {
        f"fp_{source}": _aggregates(in_competition[source], aggregates)
        for source, aggregates in figures.items()
    } | {
        f"fp_text_{source}": _joined(in_competition[source], *names)
        for source, names in _TEXTS.items()
    }
    return (
        Competition.objects.filter(pk=competition_id)
        .order_by()
        .annotate(**annotations)
        .values(
            "gold_threshold",
            "silver_threshold",
            "bronze_threshold",
            "honourable_mention_threshold",
            "name",
            "jury_scale",
            *annotations,
        )[:1]
    )


__all__ = [
    "ProblemFacts",
    "ReviewData",
    "SystemJury",
    "criterion_label",
    "review_data",
    "review_fingerprint",
]
