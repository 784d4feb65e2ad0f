"""Jurors read a problem's language by its name beside its code, on the page and the PDF."""

from __future__ import annotations

import pytest
from django.urls import reverse

from grading import pdf
from tests.puzzles.factories import ProblemFactory, TaskFactory

from .factories import AssignmentFactory, CriterionFactory, PaperFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "language,language_name,label",
    [
        ("esu_Latn", "", "Central Yupik (esu)"),
        ("mis_Latn", "Komnzo", "Komnzo (mis)"),
        ("mis_Latn", "", "mis"),  # uncoded, not named yet: the code alone
    ],
)
def test_grading_page_and_pdf_sheet_show_the_readable_language(
    client, language, language_name, label
):
    problem = ProblemFactory(number=1, language=language, language_name=language_name)
    TaskFactory(problem=problem, number=1)
    CriterionFactory(rubric__problem=problem)
    assignment = AssignmentFactory(paper=PaperFactory(problem=problem))
    client.force_login(assignment.juror)
    response = client.get(reverse("grading:grade", args=[assignment.paper.code]))
    assert response.status_code == 200
    assert f"Language: {label}</p>" in response.content.decode()
    (sheet,) = pdf.paper_sheets([assignment.paper])
    assert sheet.language == label
