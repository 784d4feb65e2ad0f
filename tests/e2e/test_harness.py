"""The browser harness itself: logging in and closing a tab never leave a race behind."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from .conftest import close_contexts, close_page, login, new_context

pytestmark = pytest.mark.e2e

# Served by a route, not by the live server: a page that moves on as soon as it commits.
ORIGIN = "http://tabs.test"
PAGES = {
    "/moves-on": '<!doctype html><meta http-equiv="refresh" content="0; URL=/landed"><p>…',
    "/landed": "<!doctype html><title>landed</title><p>landed",
}


@pytest.mark.django_db(transaction=True)
def test_login_returns_once_the_landing_page_has_loaded(page, live_server, juror):
    login(page, live_server, juror.username)
    # Not merely committed: loaded, so that no navigation of the login is still going on.
    assert page.evaluate("document.readyState") == "complete"
    assert urlsplit(page.url).path == "/jury/"


def test_a_tab_closed_as_it_navigates_is_closed(browser):
    """``Page.close()`` in the instant a navigation commits can wait forever in Chromium.

    Each tab here is closed right when its meta refresh has committed, which is when
    Chromium acknowledges and drops a close request now and then; ``close_page`` closes
    every one of them, in a bounded time.
    """
    context = new_context(browser)
    context.route(
        f"{ORIGIN}/**",
        lambda route: route.fulfill(
            content_type="text/html", body=PAGES[urlsplit(route.request.url).path]
        ),
    )
    try:
        for _ in range(12):
            tab = context.new_page()
            with tab.expect_event("framenavigated", lambda f: f.url.endswith("/landed")):
                tab.goto(f"{ORIGIN}/moves-on", wait_until="commit")
            close_page(tab)
            assert tab.is_closed()
        assert context.pages == []
    finally:
        close_contexts([context])
