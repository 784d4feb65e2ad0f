"""docs/run-a-real-jury.md (the README's jury walk) in a real browser, from an empty database.

The commands of its steps 1-4 run as docs/run-a-real-jury.md gives them (the first organizer with
``create_jurors``, the IOL-AI data, a rubric, one system for the jury); then steps 8-10
in the browser: the organizer sets a password through the printed link, creates two jurors
and a chair on the Accounts page, puts the jurors in problem 1's grading group and assigns
two jurors a paper; each juror sets a password through the link the page showed, grades
problem 1's paper from My papers and submits, differing from the other on one criterion;
the chair sets a password, decides that criterion in its thread and finalizes problem 1;
the organizer reads the decided total. A link works once, and no page a juror or the chair
sees names the system.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from io import StringIO
from urllib.parse import parse_qs

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import E2E_TEST_TIMEOUT_S, login

# Four accounts through their links and the real IOL-AI import make this the longest browser
# test; on a busy two-core machine it takes more than half the conftest's 60 s, so it gets
# twice that.
# Every step in it is still bounded by PLAYWRIGHT_TIMEOUT_MS.
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(2 * E2E_TEST_TIMEOUT_S),
]

SLUG = "iolai-2026"
SYSTEM = "arvindcr4"  # the one system the jury grades (the walk's step 4 selects three)
PROBLEM = 1
ORGANIZER = "maria"
JUROR_A, JUROR_B, CHAIR = "ann", "ben", "cleo"
# Each account's holder chooses a password on the set-password page.
PASSWORDS = {
    ORGANIZER: "maria-sets-this-7281",
    JUROR_A: "ann-sets-this-4416",
    JUROR_B: "ben-sets-this-9053",
    CHAIR: "cleo-sets-this-3370",
}
# Problem 1's rubric as the walk's step 3 has it: criterion code -> (maximum, step).
CRITERIA = {"1a": (10, 0.5), "1b": (5, 0.5)}
# Criterion code -> points typed; the jurors differ on 1b only (tolerance 0).
MARKS_A = {"1a": "6", "1b": "3"}
MARKS_B = {"1a": "6", "1b": "2"}
DISCREPANT = "1b"
DECISION = "2.5"
FINAL_TOTAL = "8.5"  # 6 + the decided 2.5
LINK_REFUSED = "This link does not work"


@dataclass
class RealJury:
    organizer_link: str  # what create_jurors printed for the organizer
    paper: str  # the code of problem 1's paper
    hidden: list[str]  # the system's name and team, which jurors and the chair never see
    criteria: dict[str, int]  # criterion code -> id


def _rubric() -> dict:
    """The walk's step 3 rubric: an assignment and a theory criterion per problem."""
    problems = []
    for number in range(1, 6):
        criteria = [
            {"code": f"{number}a", "title": "Answers", "kind": "assignment", "maximum": 10},
            {"code": f"{number}b", "title": "Explanation", "kind": "theory", "maximum": 5},
        ]
        problems.append({"problem": number, "criteria": [{**c, "step": 0.5} for c in criteria]})
    return {"problems": problems}


@pytest.fixture
def real_jury(transactional_db, live_server, iolai_dir, tmp_path) -> RealJury:
    """The walk's steps 1-4 on an empty migrated database, through the same commands."""
    from django.contrib.auth import get_user_model

    from grading.models import Paper
    from grading.services import rubric_current
    from puzzles.models import Competition, System

    assert not get_user_model().objects.exists() and not Competition.objects.exists()
    organizers = tmp_path / "organizers.csv"
    organizers.write_text(
        f"username,name,email,role\n{ORGANIZER},Maria Organizer,maria@example.org,organizer\n",
        encoding="utf-8",
    )
    printed = StringIO()
    call_command(
        "create_jurors",
        str(organizers),
        base_url=live_server.url,
        stdout=printed,
        stderr=StringIO(),
    )
    lines = printed.getvalue().splitlines()
    assert len(lines) == 1, lines
    username, link = lines[0].split("\t")
    assert username == ORGANIZER
    assert re.fullmatch(rf"{re.escape(live_server.url)}/reset/[^/]+/[^/]+/", link), link

    quiet = {"stdout": StringIO(), "stderr": StringIO()}
    call_command("import_iolai", str(iolai_dir), slug=SLUG, **quiet)
    rubrics = tmp_path / "rubrics.json"
    rubrics.write_text(json.dumps(_rubric()), encoding="utf-8")
    call_command("import_rubric", SLUG, str(rubrics), **quiet)
    call_command("select_for_jury", SLUG, system=[SYSTEM], **quiet)

    paper = Paper.objects.select_related("problem", "system").get(
        problem__competition__slug=SLUG, problem__number=PROBLEM
    )
    assert paper.system.name == SYSTEM and not paper.assignments.exists()
    criteria = list(rubric_current(paper.problem).criteria.order_by("order"))
    assert {c.code: (int(c.maximum), float(c.step)) for c in criteria} == CRITERIA
    system = System.objects.get(competition__slug=SLUG, name=SYSTEM)
    return RealJury(
        organizer_link=link,
        paper=paper.code,
        hidden=[name for name in (system.name, system.team) if name],
        criteria={c.code: c.pk for c in criteria},
    )


def assert_anonymous(page, jury: RealJury) -> None:
    """The page names neither the system nor its team (a juror's or the chair's view)."""
    html = page.content()
    leaked = [name for name in jury.hidden if name in html]
    assert not leaked, f"{page.url} shows {leaked}"


def set_password(page, link: str, password: str) -> None:
    """Open a set-password link, choose the password; the link then no longer works."""
    page.goto(link)  # Django moves the token into the session and redirects
    expect(page.locator("h1")).to_have_text("Set your password")
    form = page.locator("main form")
    form.locator("[name=new_password1]").fill(password)
    form.locator("[name=new_password2]").fill(password)
    form.locator("button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Password set")

    page.goto(link)  # the second time: refused, with no form
    expect(page.locator("main [role=alert]")).to_contain_text(LINK_REFUSED)
    expect(page.locator("[name=new_password1]")).to_have_count(0)


def create_account(page, username: str, name: str, role: str) -> str:
    """Create an account with the Accounts page's form; return the link the page shows."""
    form = page.locator("form[action$='/accounts/create/']")
    form.locator("[name=username]").fill(username)
    form.locator("[name=name]").fill(name)
    form.locator("[name=email]").fill(f"{username}@example.org")
    form.locator("[name=role]").select_option(role)
    form.locator("button[type=submit]").click()
    expect(page.locator(".new-links [role=status]")).to_contain_text(f"Account {username} created")
    named = page.locator(f"code:text-is('{username}')")
    new = page.get_by_role("region", name="New set-password links").locator("tbody tr", has=named)
    expect(new).to_have_count(1)
    link = new.locator("td.link").inner_text().strip()
    assert re.fullmatch(r"https?://\S+/reset/\S+/\S+/", link), link
    row = page.get_by_role("region", name="Accounts").locator("tbody tr", has=named)
    expect(row).to_contain_text("no password yet")
    return link


def settle(page) -> None:
    """Wait until no htmx request is in flight (one write at a time on SQLite)."""
    # Not page.wait_for_function: while it polls, it evaluates its predicate as a string in
    # the page, which the Content-Security-Policy (no unsafe-eval) refuses. expect() polls
    # from Playwright's own isolated world.
    expect(page.locator(".htmx-request")).to_have_count(0)


def is_mark_post(jury: RealJury, code: str, points: str):
    """Match the autosave response of a criterion that posted these points."""
    path = f"/jury/papers/{jury.paper}/marks/{jury.criteria[code]}/"

    def match(response) -> bool:
        request = response.request
        if request.method != "POST" or not response.url.endswith(path):
            return False
        return parse_qs(request.post_data or "").get("points") == [points]

    return match


def grade_and_submit(page, jury: RealJury, marks: dict[str, str]) -> None:
    """Open the paper from My papers, type each criterion's points, submit."""
    expect(page.locator("h1")).to_have_text("My papers")  # where a juror lands
    assert_anonymous(page, jury)
    papers = page.locator("table tr td:first-child a").all_inner_texts()
    assert papers == [jury.paper], papers  # one paper: problem 1's, and only it
    page.click(f"a:text-is('{jury.paper}')")
    expect(page.locator("h1")).to_contain_text(f"Paper {jury.paper} · Problem {PROBLEM}")
    assert_anonymous(page, jury)
    for code, points in marks.items():
        field = page.locator(f"input.points[data-criterion='{code}']")
        expect(field).to_have_value("")  # the other juror's marks are theirs
        with page.expect_response(is_mark_post(jury, code, points)) as response:
            field.fill(points)
            field.press("Enter")
        assert response.value.status == 200
        status = page.locator(f"#criterion-{jury.criteria[code]} .status")
        expect(status).to_have_text("saved")
        settle(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Submit paper')")
    expect(page.locator(".messages")).to_contain_text(f"{jury.paper} submitted")
    expect(page.locator("h1 .pill")).to_have_text("submitted")
    assert_anonymous(page, jury)


def test_a_real_jury_from_an_empty_database(new_page, live_server, real_jury):
    jury = real_jury
    jury_url = f"{live_server.url}/c/{SLUG}/jury/"
    sheet_path = f"/c/{SLUG}/jury/problems/{PROBLEM}/sheet/"

    # --- step 8: the organizer's link, then the accounts, the group, the assignments ---
    organizer = new_page()
    set_password(organizer, jury.organizer_link, PASSWORDS[ORGANIZER])
    login(organizer, live_server, ORGANIZER, PASSWORDS[ORGANIZER])
    organizer.click(".topbar a:has-text('Accounts')")
    expect(organizer.locator("h1")).to_have_text("Accounts")
    links = {
        JUROR_A: create_account(organizer, JUROR_A, "Ann Juror", "juror"),
        JUROR_B: create_account(organizer, JUROR_B, "Ben Juror", "juror"),
        CHAIR: create_account(organizer, CHAIR, "Cleo Chair", "chair"),
    }
    for link in links.values():
        assert link.startswith(f"{live_server.url}/reset/"), link
    assert len(set(links.values())) == 3

    organizer.goto(jury_url)
    group = organizer.locator("form[action$='/jury/group/']")
    listed = group.locator("input[name=jurors]")
    expect(listed).to_have_count(3)  # jurors and the chair; organizers cannot grade blind
    assert sorted(b.get_attribute("value") for b in listed.all()) == [JUROR_A, JUROR_B, CHAIR]
    group.locator("[name=problem]").fill(str(PROBLEM))
    for username in (JUROR_A, JUROR_B):
        group.locator(f"input[name=jurors][value='{username}']").check()
    group.locator("button:has-text('Add to group')").click()
    expect(organizer.locator(".messages")).to_contain_text(
        f"problem {PROBLEM}: jurors {JUROR_A}, {JUROR_B} in its group"
    )
    assign = organizer.locator("form[action$='/jury/assign/']")
    assign.locator("[name=per_paper]").fill("2")
    assign.locator("button[type=submit]").click()
    expect(organizer.locator(".messages")).to_contain_text("2 assignments created")
    progress = (
        organizer.get_by_role("region", name="Progress").locator("table tr").nth(PROBLEM)
    )  # by number
    expect(progress.locator("td").nth(2)).to_have_text(f"{JUROR_A}, {JUROR_B}")
    expect(progress.locator("td.num").nth(1)).to_have_text("2")  # assignments

    # --- step 9: each juror sets a password, grades problem 1's paper, submits ---
    for username, marks in ((JUROR_A, MARKS_A), (JUROR_B, MARKS_B)):
        juror = new_page()
        set_password(juror, links[username], PASSWORDS[username])
        assert_anonymous(juror, jury)
        login(juror, live_server, username, PASSWORDS[username])
        grade_and_submit(juror, jury, marks)

    # --- step 10: the chair decides the one discrepant criterion and finalizes ---
    chair = new_page()
    set_password(chair, links[CHAIR], PASSWORDS[CHAIR])
    login(chair, live_server, CHAIR, PASSWORDS[CHAIR])
    expect(chair.locator("h1")).to_have_text("My papers")
    assert_anonymous(chair, jury)
    chair.click(f"a[href='{sheet_path}']")
    chair.wait_for_url(f"{live_server.url}{sheet_path}")
    expect(chair.locator("h1")).to_contain_text(f"Comparison sheet · Problem {PROBLEM}")
    assert_anonymous(chair, jury)
    expect(chair.locator("table.sheet tr:has(td.cell)")).to_have_count(1)
    row = chair.locator(f"table.sheet tr#paper-{jury.paper}")
    expect(row.locator("td.cell")).to_have_count(len(CRITERIA))
    expect(row.locator("td.cell.discrepant")).to_have_count(1)
    expect(row.locator("td.cell.agreed")).to_have_count(len(CRITERIA) - 1)
    discrepant = row.locator("td.cell").nth(list(CRITERIA).index(DISCREPANT))
    expect(discrepant).to_have_class(re.compile(r"\bdiscrepant\b"))
    expect(discrepant).to_contain_text(f"{MARKS_A[DISCREPANT]} · {MARKS_B[DISCREPANT]}")

    # The cell opens the chair's decision panel on the sheet; its discussion is linked there.
    discrepant.locator("a").click()
    chair.locator("#decide-panel").get_by_role(
        "link", name=f"Discussion of {jury.paper} {DISCREPANT}"
    ).click()
    thread_path = f"/jury/papers/{jury.paper}/criteria/{jury.criteria[DISCREPANT]}/"
    chair.wait_for_url(f"{live_server.url}{thread_path}")
    expect(chair.locator("h1")).to_contain_text(f"{jury.paper} · {DISCREPANT}")
    marks = chair.locator("table.marks")
    expect(marks.locator("tr", has_text=JUROR_A)).to_contain_text(MARKS_A[DISCREPANT])
    expect(marks.locator("tr", has_text=JUROR_B)).to_contain_text(MARKS_B[DISCREPANT])
    assert_anonymous(chair, jury)
    decide = chair.locator("form[action$='/decide/']")
    decide.locator("[name=points]").fill(DECISION)
    decide.locator("[name=reason]").fill("The rule is stated, only half derived.")
    decide.locator("button").click()
    expect(chair.locator(".messages")).to_contain_text("Decision recorded")
    expect(chair.locator("main")).to_contain_text(f"Agreed mark: {DECISION}")
    assert_anonymous(chair, jury)

    chair.click(".topbar a:has-text('Comparison sheet')")
    chair.wait_for_url(f"{live_server.url}{sheet_path}")
    row = chair.locator(f"table.sheet tr#paper-{jury.paper}")
    decided = row.locator("td.cell").nth(list(CRITERIA).index(DISCREPANT))
    expect(decided).to_have_class(re.compile(r"\bdecided\b"))
    expect(decided).to_contain_text(f"→ {DECISION}")
    expect(row.locator("td.num").last).to_have_text(FINAL_TOTAL)
    confirmations = []
    chair.once("dialog", lambda dialog: (confirmations.append(dialog.message), dialog.accept()))
    chair.click(f"button:has-text('Finalize problem {PROBLEM}')")
    expect(chair.locator(".messages")).to_contain_text(f"Problem {PROBLEM} finalized")
    assert confirmations and confirmations[0].startswith(f"Finalize problem {PROBLEM}?")
    expect(chair.locator("h1 .pill")).to_have_text("finalized")
    assert_anonymous(chair, jury)

    # --- step 11: the organizer reads the decided total of problem 1 ---
    organizer.goto(f"{live_server.url}/c/{SLUG}/jury/totals/")
    expect(organizer.locator("main")).to_contain_text("Finalized problems only.")
    header = organizer.locator("table thead th").all_inner_texts()
    column = header.index(f"P{PROBLEM}")
    row = organizer.locator("table tbody tr", has=organizer.locator(f"td:text-is('{SYSTEM}')"))
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(column)).to_have_text(FINAL_TOTAL)
