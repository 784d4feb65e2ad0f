"""factory_boy factories for the puzzles app: competitions, problems, tasks, systems, outputs."""

from __future__ import annotations

import factory

from puzzles.models import Competition, Output, Problem, System, Task


class CompetitionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Competition
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"comp-{n}")
    name = factory.LazyAttribute(lambda o: f"Competition {o.slug}")
    year = 2026


class ProblemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Problem

    competition = factory.SubFactory(CompetitionFactory)
    number = factory.Sequence(lambda n: n + 1)
    title = factory.LazyAttribute(lambda o: f"Problem {o.number}")
    context = "1. ka: one\n2. ba: two"


class TaskFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Task

    problem = factory.SubFactory(ProblemFactory)
    number = factory.Sequence(lambda n: n + 1)
    external_id = factory.LazyAttribute(
        lambda o: f"1{o.problem.competition.year or 2026}{o.problem.number:02d}{o.number:02d}00"
    )
    query = "Translate:\n1. ka\n2. ba"
    task_type = Task.TaskType.TRANSLATION
    eval_type = Task.EvalType.SINGLE
    split = Task.Split.PUBLIC
    weight = 1.0
    answer_key = factory.LazyFunction(lambda: [["one"], ["two"]])


class SystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = System

    competition = factory.SubFactory(CompetitionFactory)
    name = factory.Sequence(lambda n: f"System {n}")
    team = factory.LazyAttribute(lambda o: o.name)
    tier = System.Tier.OTHER


class OutputFactory(factory.django.DjangoModelFactory):
    """An output prepared (parsed, extracted) from its raw text; score it with the service."""

    class Meta:
        model = Output

    system = factory.SubFactory(
        SystemFactory, competition=factory.SelfAttribute("..task.problem.competition")
    )
    task = factory.SubFactory(TaskFactory)
    source = Output.Source.SUBMISSION
    raw_text = '["one", "two"]'
    explanation = ""

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        from puzzles.services import output_prepare

        output = model_class(*args, **kwargs)
        output_prepare(output=output, task=output.task)
        output.save()
        return output
