"""New set-password links are shown on the page that created them, which fits a phone and a
laptop and passes axe; the set-password page names its account."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ioleval.roles import ORGANIZER
from tests.grading.factories import UserFactory

from .axe import axe_context, axe_violations, violations_text
from .conftest import close_contexts, login

pytestmark = pytest.mark.e2e

CSV = b"username,name,email,role\nana,Ana Alves,ana@example.org,juror\nbo,Bo,,chair\ncy,,,juror\n"
WIDTH = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


@pytest.mark.parametrize("width", [390, 1366])
def test_new_links_are_on_their_page_and_the_link_names_its_account(browser, live_server, width):
    UserFactory(username="org", roles=[ORGANIZER])
    refused: list[str] = []
    contexts: list = []
    try:
        context = axe_context(browser, refused, viewport={"width": width, "height": 800})
        contexts.append(context)
        page = context.new_page()
        login(page, live_server, "org")
        page.goto(f"{live_server.url}/accounts/")
        form = page.locator("form[action$='/accounts/upload/']")
        form.locator("input[type=file]").set_input_files(
            {"name": "jury.csv", "mimeType": "text/csv", "buffer": CSV}
        )
        form.locator("button[type=submit]").click()
        region = page.get_by_role("region", name="New set-password links")
        expect(region.locator("tbody tr")).to_have_count(3)
        expect(page.locator(".new-links [role=status]")).to_contain_text(
            "3 accounts created from jury.csv"
        )
        scroll_width, client_width = page.evaluate(WIDTH)
        assert scroll_width <= client_width, (scroll_width, client_width)
        violations = axe_violations(page)
        assert not violations, violations_text({f"links ({width} px)": violations})
        link = region.locator("tbody tr").first.locator("td.link").inner_text().strip()

        holder = axe_context(browser, refused, viewport={"width": width, "height": 800})
        contexts.append(holder)
        own = holder.new_page()
        own.goto(link)
        expect(own.locator("h1")).to_have_text("Set your password")
        expect(own.locator("main")).to_contain_text("The password of the account ana (Ana Alves).")
        violations = axe_violations(own)
        assert not violations, violations_text({f"set password ({width} px)": violations})
    finally:
        close_contexts(contexts)
    assert not refused, refused
