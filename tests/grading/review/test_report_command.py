"""manage.py report SLUG --format json [--out FILE]."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db


def test_report_prints_the_review_as_json():
    review_competition()
    out = io.StringIO()
    call_command("report", "rv", "--format", "json", "--resamples", "100", stdout=out)
    data = json.loads(out.getvalue())
    assert data["provisional"] is False
    assert [s["system"] for s in data["systems"]][:2] == ["Computed", "Ext 3"]
    assert data["correlation"]["n"] == 5
    assert data["ranges"] == {
        "jury": 9.0,
        "auto": 90.0,
        "jury_share": 0.9,  # 9 of the jury's 10 points
        "auto_share": 0.9,  # 90 of 100
        "sentence": data["ranges"]["sentence"],
    }
    assert data["correlation"]["spearman_p_method"] == "exact permutation, all 120 orderings"


def test_report_writes_a_file(tmp_path):
    review_competition()
    target = tmp_path / "review.json"
    out = io.StringIO()
    call_command("report", "rv", "--out", str(target), "--resamples", "100", stdout=out)
    assert out.getvalue() == ""
    assert json.loads(target.read_text(encoding="utf-8"))["correlation"]["n"] == 5


def test_an_unknown_format_is_refused():
    review_competition()
    with pytest.raises(CommandError, match="invalid choice: 'html'"):
        call_command("report", "rv", "--format", "html")


def test_unknown_competition():
    with pytest.raises(CommandError, match="unknown competition 'nope'"):
        call_command("report", "nope")
