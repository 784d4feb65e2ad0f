"""factory_boy factories for the grading app: rubrics, criteria, papers, jurors, marks."""

from __future__ import annotations

from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from grading.models import (
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    Paper,
    ProblemJuror,
    ProblemJury,
    Resolution,
    Rubric,
)
from grading.services.papers import CODE_ALPHABET
from ioleval.roles import CHAIR, JUROR, ORGANIZER
from tests.puzzles.factories import ProblemFactory, SystemFactory


def _code(n: int) -> str:
    """Return four characters of the paper-code alphabet that differ for every n."""
    chars = []
    for _ in range(4):
        n, rest = divmod(n, len(CODE_ALPHABET))
        chars.append(CODE_ALPHABET[rest])
    return "".join(reversed(chars))


def _roles(default: tuple[str, ...]) -> factory.PostGeneration:
    """Put the user in role groups: the default ones, or roles=[...] given to the factory."""

    def hook(user, create, extracted, **kwargs):
        names = default if extracted is None else extracted
        if create and names:
            user.groups.set([Group.objects.get_or_create(name=r)[0] for r in names])

    return factory.PostGeneration(hook)


class UserFactory(factory.django.DjangoModelFactory):
    """A user in no role group; pass roles=[...] to give some."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    # Zero-padded: the app orders jurors by username (least loaded, then by name), and
    # "juror-1000" would sort before "juror-998", so which jurors a test gets would depend
    # on how many users the tests before it made.
    username = factory.Sequence(lambda n: f"user{n:05d}")
    password = factory.django.Password("pw-for-tests")
    roles = _roles(())


class JurorFactory(UserFactory):
    username = factory.Sequence(lambda n: f"juror-{n:05d}")
    roles = _roles((JUROR,))


class ChairFactory(UserFactory):
    username = factory.Sequence(lambda n: f"chair-{n:05d}")
    roles = _roles((CHAIR, JUROR))


class OrganizerFactory(UserFactory):
    username = factory.Sequence(lambda n: f"organizer-{n:05d}")
    roles = _roles((ORGANIZER,))


class RubricFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rubric

    problem = factory.SubFactory(ProblemFactory)
    version = 1


class CriterionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Criterion

    rubric = factory.SubFactory(RubricFactory)
    order = factory.Sequence(lambda n: n + 1)
    code = factory.Sequence(lambda n: f"c{n}")
    title = factory.LazyAttribute(lambda o: f"Criterion {o.code}")
    kind = Criterion.Kind.ASSIGNMENT
    maximum = Decimal("2")
    step = Decimal("0.5")


class PaperFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Paper

    problem = factory.SubFactory(ProblemFactory)
    system = factory.SubFactory(
        SystemFactory, competition=factory.SelfAttribute("..problem.competition")
    )
    code = factory.LazyAttributeSequence(lambda o, n: f"P{o.problem.number}-{_code(n)}")


class ProblemJurorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProblemJuror

    problem = factory.SubFactory(ProblemFactory)
    juror = factory.SubFactory(JurorFactory)


class AssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Assignment

    paper = factory.SubFactory(PaperFactory)
    juror = factory.SubFactory(JurorFactory)
    submitted_at = None


class MarkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Mark

    assignment = factory.SubFactory(AssignmentFactory)
    criterion = factory.SubFactory(
        CriterionFactory, rubric__problem=factory.SelfAttribute("...assignment.paper.problem")
    )
    points = Decimal("1")
    comment = ""


class ResolutionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Resolution

    paper = factory.SubFactory(PaperFactory)
    criterion = factory.SubFactory(
        CriterionFactory, rubric__problem=factory.SelfAttribute("...paper.problem")
    )
    points = Decimal("1")
    kind = Resolution.Kind.CHAIR
    reason = "decided"


class ProblemJuryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProblemJury
        django_get_or_create = ("problem",)

    problem = factory.SubFactory(ProblemFactory)
    tolerance = Decimal("0")


class ObservationTagFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ObservationTag

    competition = factory.SubFactory("tests.puzzles.factories.CompetitionFactory")
    name = factory.Sequence(lambda n: f"tag {n}")
    order = factory.Sequence(lambda n: n)


class DiscussionCommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = DiscussionComment

    paper = factory.SubFactory(PaperFactory)
    criterion = factory.SubFactory(
        CriterionFactory, rubric__problem=factory.SelfAttribute("...paper.problem")
    )
    author = factory.SubFactory(JurorFactory)
    text = "I read it differently."


# --- small scenarios built from the factories and the services ----------------------------------


def rubric_with(problem, *criteria: tuple[str, str | int, str | float], version: int = 1):
    """Create a rubric of the problem with criteria given as (code, maximum, step)."""
    rubric = RubricFactory(problem=problem, version=version)
    for order, (code, maximum, step) in enumerate(criteria, start=1):
        CriterionFactory(
            rubric=rubric,
            order=order,
            code=code,
            maximum=Decimal(str(maximum)),
            step=Decimal(str(step)),
        )
    return rubric


def paper_graded(paper, marks: dict, *, submit: bool = True) -> list[Assignment]:
    """Assign each juror in `marks` ({juror: {code: points}}) to the paper and grade through
    the services; submit unless told not to."""
    from grading.services import assignment_submit, mark_save, rubric_current

    criteria = {c.code: c for c in rubric_current(paper.problem).criteria.all()}
    assignments = []
    for juror, points in marks.items():
        assignment = Assignment.objects.get_or_create(paper=paper, juror=juror)[0]
        for code, value in points.items():
            mark_save(assignment=assignment, criterion=criteria[code], points=value)
        if submit:
            assignment = assignment_submit(assignment=assignment)
        assignments.append(assignment)
    return assignments
