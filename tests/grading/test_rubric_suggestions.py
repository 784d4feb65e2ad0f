"""The suggestion rule in rubrics: imported, exported, edited; refused with file and field
when it cannot apply, and then nothing is written."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.errors import GradingError
from grading.models import Criterion, Rubric
from grading.services import rubric_current, rubrics_export, rubrics_import
from tests.grading.test_rubrics import competition, crit, payload  # noqa: F401 (fixture)

D = Decimal


def test_rules_are_imported_with_share_as_the_default(competition):  # noqa: F811
    rubrics_import(
        payload(
            {
                1: [
                    crit("1a", task="T1", items=[1, 2]),
                    crit(
                        "1b",
                        maximum=3,
                        task="T1",
                        items=[1, 2, 3],
                        suggest="per_item",
                        points_per_item=1.5,
                    ),
                    crit("1c", task="T1", items=[3], suggest="none"),
                    crit("1d", kind="theory"),
                    crit("1e", task="T1"),  # a task without items: nothing to suggest from
                ]
            }
        ),
        competition=competition,
    )
    got = {
        c.code: (c.suggest_rule, c.suggest_points_per_item)
        for c in rubric_current(competition.problems.get(number=1)).criteria.all()
    }
    assert got == {
        "1a": ("share", None),
        "1b": ("per_item", D("1.5")),
        "1c": ("none", None),
        "1d": ("none", None),
        "1e": ("none", None),
    }
    exported = rubrics_export(competition)["problems"][0]["criteria"]
    assert "suggest" not in exported[0]  # share is the default with task and items
    assert exported[1]["suggest"] == "per_item" and exported[1]["points_per_item"] == 1.5
    assert "suggest" not in exported[3]
    # The export imports back as it was.
    import json

    rubrics_import(json.dumps(rubrics_export(competition)), competition=competition)


@pytest.mark.parametrize(
    ("criterion", "field", "message"),
    [
        (crit("1x", suggest="share"), "suggest", "needs an assignment criterion with a task"),
        (crit("1x", task="T1", suggest="share"), "suggest", "with a task and items"),
        (crit("1x", kind="theory", task="T1", items=[1], suggest="share"), "suggest", "task"),
        (crit("1x", task="T1", items=[1], suggest="all"), "suggest", "not one of"),
        (crit("1x", task="T1", items=[1], suggest="per_item"), "points_per_item", "needs"),
        (
            crit("1x", task="T1", items=[1], suggest="per_item", points_per_item=0),
            "points_per_item",
            "more than 0",
        ),
        (
            crit("1x", task="T1", items=[1], suggest="per_item", points_per_item=3),
            "points_per_item",
            "at most the maximum",
        ),
        (crit("1x", task="T1", items=[1], points_per_item=1), "points_per_item", "per_item"),
        (crit("1x", task="T1", items=[1, 4], suggest="share"), "items", "has 3 items"),
    ],
)
def test_a_rule_that_cannot_apply_is_refused_with_file_and_field(
    competition,  # noqa: F811
    criterion,
    field,
    message,
):
    before = (Rubric.objects.count(), Criterion.objects.count())
    with pytest.raises(GradingError) as error:
        rubrics_import(
            payload({1: [crit("1a", task="T1", items=[1]), criterion]}),
            competition=competition,
            file="rubric.json",
        )
    assert error.value.file == "rubric.json, problems[1].criteria[2]"
    assert error.value.field == field
    assert message in error.value.message
    assert (Rubric.objects.count(), Criterion.objects.count()) == before


def test_the_rubric_editor_saves_the_rule(client, competition):  # noqa: F811
    from django.urls import reverse

    from tests.grading.factories import OrganizerFactory

    client.force_login(OrganizerFactory())
    url = reverse("grading:rubric", args=[competition.slug, 1])
    rows = [
        {
            "code": "1a",
            "title": "A",
            "kind": "assignment",
            "maximum": "2",
            "step": "0.5",
            "task": "T1",
            "items": "1,2",
            "suggest": "per_item",
            "points_per_item": "0.5",
        },
        {
            "code": "1b",
            "title": "B",
            "kind": "theory",
            "maximum": "2",
            "step": "0.5",
            "task": "",
            "items": "",
            "suggest": "share",
            "points_per_item": "",
        },
    ]
    data = {"criteria-TOTAL_FORMS": "2", "criteria-INITIAL_FORMS": "0", "apply": "1"}
    for i, row in enumerate(rows):
        data.update({f"criteria-{i}-{k}": v for k, v in row.items()})
    response = client.post(url, data)
    assert response.status_code == 200
    assert "needs an assignment criterion with a task and items" in response.content.decode()
    assert not Rubric.objects.exists()
    data["criteria-1-suggest"] = ""
    response = client.post(url, data)
    assert response.status_code == 302
    criteria = rubric_current(competition.problems.get(number=1)).criteria.order_by("order")
    assert [(c.suggest_rule, c.suggest_points_per_item) for c in criteria] == [
        ("per_item", D("0.5")),
        ("none", None),
    ]
    page = client.get(url).content.decode()
    assert "per_item (0.5 per item)" in page


def test_an_uploaded_file_with_a_rule_that_cannot_apply_is_refused_by_name(
    client,
    competition,  # noqa: F811
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from tests.grading.factories import OrganizerFactory

    client.force_login(OrganizerFactory())
    text = payload({1: [crit("1a", kind="theory", suggest="per_item", points_per_item=1)]})
    response = client.post(
        reverse("grading:rubrics_upload", args=[competition.slug]),
        {"file": SimpleUploadedFile("mine.json", text.encode())},
        follow=True,
    )
    shown = " ".join(str(m) for m in response.context["messages"])
    assert "mine.json, problems[1].criteria[1], field 'suggest'" in shown
    assert not Rubric.objects.exists()
