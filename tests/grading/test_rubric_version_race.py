"""A new rubric version under live grading loses no acknowledged save (PostgreSQL).

Sixteen tabs (four jurors x four papers) autosave marks of problem 1 over HTTP, as the page
does, while an organizer creates new rubric versions of it: with the command, the web upload
or the rubric editor. A tab whose save is refused because the rubric changed reloads (takes
the criteria of the current version) and goes on. Afterwards every tab-criterion's last
acknowledged value is the mark of the current version, and no mark is left on a superseded
version. Before the version change and the saves took the jury row in one order, 29 of 96
tab-criteria lost their last acknowledged value in 6 trials, and 18 marks stayed behind.
"""

from __future__ import annotations

import json
import re
import threading
import time
from decimal import Decimal
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from grading.models import Assignment, Mark, Paper
from grading.services import rubric_current, rubrics_import
from tests.concurrency import run_concurrently
from tests.grading.factories import JurorFactory, OrganizerFactory
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

SLUG = "race"
CODES = ("a", "b", "c")
SAVES = 36  # per tab
VERSIONS = 3  # new versions created while the tabs save
CHANGED = "the rubric has changed: reload"


def _rubric(version: int) -> str:
    # Each version words its criteria differently (the codes, maxima and steps stay), so that
    # every mark carries over.
    criteria = [
        {"code": c, "title": f"{c} (wording {version})", "kind": "theory", "maximum": 20}
        for c in CODES
    ]
    return json.dumps({"problem": 1, "criteria": criteria})


@pytest.fixture
def live(db):
    competition = CompetitionFactory(slug=SLUG)
    problem = ProblemFactory(competition=competition, number=1)
    rubrics_import(_rubric(0), competition=competition)
    jurors = [JurorFactory() for _ in range(4)]
    for index in range(4):
        system = SystemFactory(competition=competition, name=f"Sys-{index}")
        paper = Paper.objects.create(problem=problem, system=system, code=f"P1-RAC{index + 2}")
        for juror in jurors:
            Assignment.objects.create(paper=paper, juror=juror)
    return problem


def _current_ids(problem) -> dict[str, int]:
    """Return the criterion ids a page loaded now would post to."""
    return {c.code: c.pk for c in rubric_current(problem).criteria.all()}


def _hidden_fields(html: str, form_start: str) -> dict:
    form = html[html.index(form_start) :]
    form = form[: form.index("</form>")]
    fields = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form)
    return {name: unescape(value) for name, value in fields if name != "csrfmiddlewaretoken"}


def _by_command(problem, version: int, tmp_path) -> None:
    path = tmp_path / f"rubric-{version}.json"
    path.write_text(_rubric(version))
    call_command("import_rubric", SLUG, str(path), "--new-version", stdout=open("/dev/null", "w"))


def _by_upload(client: Client, problem, version: int, tmp_path) -> None:
    """Upload the file, then confirm its preview; a preview that went stale is shown again
    (the marks changed meanwhile), and confirmed again."""
    url = reverse("grading:rubrics_upload", args=[SLUG])
    upload = SimpleUploadedFile("rubric.json", _rubric(version).encode())
    page = client.post(url, {"file": upload, "new_version": "on"})
    for _attempt in range(50):
        assert page.status_code == 200, page.status_code
        data = _hidden_fields(page.content.decode(), '<form method="post" action="/c/')
        page = client.post(url, data)
        if page.status_code == 302:
            return
    raise AssertionError("the upload never applied")


def _by_editor(client: Client, problem, version: int, tmp_path) -> None:
    """Save the rows in the rubric editor, then apply the effect it previews."""
    url = reverse("grading:rubric", args=[SLUG, problem.number])
    rows = {"criteria-TOTAL_FORMS": str(len(CODES)), "criteria-INITIAL_FORMS": "0"}
    for index, code in enumerate(CODES):
        rows |= {
            f"criteria-{index}-code": code,
            f"criteria-{index}-title": f"{code} (wording {version})",
            f"criteria-{index}-kind": "theory",
            f"criteria-{index}-maximum": "20",
            f"criteria-{index}-step": "0.5",
        }
    data = {**rows, "new_version": "on", "apply": "1"}
    for _attempt in range(50):
        page = client.post(url, data)
        if page.status_code == 302:
            return
        assert page.status_code == 200, page.status_code
        data = {**rows, "new_version": "on", "apply": "1"}
        data |= _hidden_fields(page.content.decode(), '<form method="post" id="rubric-form"')
    raise AssertionError("the editor never applied")


@pytest.mark.parametrize("path", ["command", "upload", "editor"])
def test_no_acknowledged_save_is_lost_to_a_new_rubric_version(live, path, tmp_path):
    problem = live
    assignments = list(Assignment.objects.select_related("paper", "juror").order_by("pk"))
    acknowledged: dict[tuple[int, str], tuple[Decimal, str]] = {}
    refusals: list[str] = []
    saving = threading.Event()  # the tabs are saving: the versions may start
    organizer = Client()
    organizer.force_login(OrganizerFactory())
    change = {
        "command": lambda v: _by_command(problem, v, tmp_path),
        "upload": lambda v: _by_upload(organizer, problem, v, tmp_path),
        "editor": lambda v: _by_editor(organizer, problem, v, tmp_path),
    }[path]

    def tab(assignment):
        client = Client()
        client.force_login(assignment.juror)

        def job():
            ids = _current_ids(problem)
            for index in range(SAVES):
                code = CODES[index % len(CODES)]
                points = Decimal(index % 40) / 2
                comment = f"save {index}"
                response = client.post(
                    reverse("grading:mark", args=[assignment.paper.code, ids[code]]),
                    {"points": str(points), "comment": comment},
                    HTTP_HX_REQUEST="true",
                )
                if response.status_code == 200:
                    acknowledged[assignment.pk, code] = (points, comment)
                else:
                    assert response.status_code == 422, response.status_code
                    refusals.append(response.content.decode())
                    ids = _current_ids(problem)  # the juror reloads the page
                if index == 3:
                    saving.set()

        return job

    def versions():
        saving.wait(30)
        for version in range(1, VERSIONS + 1):
            change(version)
            time.sleep(0.05)

    run_concurrently([tab(a) for a in assignments] + [versions], together=True)

    current = rubric_current(problem)
    assert current.version == 1 + VERSIONS
    stored = {
        (m.assignment_id, m.criterion.code): (m.points, m.comment)
        for m in Mark.objects.filter(criterion__rubric=current).select_related("criterion")
    }
    lost = {key: (value, stored.get(key)) for key, value in acknowledged.items()}
    lost = {key: pair for key, pair in lost.items() if pair[0] != pair[1]}
    behind = Mark.objects.filter(criterion__rubric__problem=problem).exclude(
        criterion__rubric=current
    )
    assert (len(lost), behind.count()) == (0, 0), (lost, list(behind.values()))
    assert len(acknowledged) == len(assignments) * len(CODES)
    assert all(CHANGED in text for text in refusals), refusals
