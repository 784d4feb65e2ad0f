"""Playwright on Debian's chromium against pytest-django's live server.

Nothing here may wait without a bound. Every Playwright action, navigation and
``expect()`` gives up after ``PLAYWRIGHT_TIMEOUT_MS``; a tab is closed with
``close_page``, which cannot hang the way ``Page.close()`` can; and each browser test
fails after ``E2E_TEST_TIMEOUT_S`` (pytest-timeout, which then prints the stack of every
thread: the test's and the live server's) instead of the suite-wide 300 s.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

# Playwright's sync API runs an event loop in this thread; the ORM calls of the
# fixtures are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PLAYWRIGHT_TIMEOUT_MS = 10_000  # one click, navigation or expect(); they take < 1 s here
E2E_TEST_TIMEOUT_S = 60  # a whole browser test with its fixtures (test_real_jury.py has twice this)
CLOSE_WAIT_MS = 2_000  # how long close_page waits for a tab to go before asking again
CLOSE_ATTEMPTS = 3

expect.set_options(timeout=PLAYWRIGHT_TIMEOUT_MS)

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    """Give every browser test its own, shorter pytest-timeout (unless it sets one)."""
    for item in items:
        if HERE in Path(item.path).resolve().parents and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(E2E_TEST_TIMEOUT_S))


def _chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")


@pytest.fixture(scope="session")
def browser():
    path = _chromium_path()
    if not path:
        message = "Debian's chromium is not installed (apt-get install chromium; .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path, args=CHROMIUM_FLAGS, timeout=PLAYWRIGHT_TIMEOUT_MS * 3
        )
        yield browser
        browser.close()


def new_context(browser, **options):
    """A browser context whose pages, including tabs opened later, time out like ours."""
    context = browser.new_context(**options)
    context.set_default_timeout(PLAYWRIGHT_TIMEOUT_MS)
    context.set_default_navigation_timeout(PLAYWRIGHT_TIMEOUT_MS)
    return context


def close_contexts(contexts) -> None:
    """Close every context, even when closing one of them fails.

    ``BrowserContext.close()`` disposes of the whole Chromium browser context
    (``Target.disposeBrowserContext``), which takes its tabs down without asking each one
    to close, so the race that ``close_page`` works around does not apply to it.
    """
    errors = []
    for context in contexts:
        try:
            context.close()
        except PlaywrightError as exc:
            errors.append(exc)
    if errors:
        raise errors[0]


@pytest.fixture
def page(browser):
    context = new_context(browser)
    try:
        yield context.new_page()
    finally:
        close_contexts([context])


@pytest.fixture
def new_page(browser):
    """Open pages in fresh browser contexts (one per user), closed at teardown; a page
    the Content-Security-Policy refused anything on fails the test."""
    contexts = []
    refused: list[str] = []  # what the pages' Content-Security-Policy blocked

    def open_page():
        context = new_context(browser, viewport={"width": 1400, "height": 900})
        contexts.append(context)
        context.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        return context.new_page()

    yield open_page
    close_contexts(contexts)
    assert not refused, refused


def close_page(page) -> int:
    """Close a tab within a bounded time; return how many close requests it took.

    ``Page.close()`` sends Chromium's ``Target.closeTarget`` and then waits, with no
    timeout, for the tab to go away. When the request reaches Chromium while the tab is
    committing a navigation, Chromium answers ``success: true`` but drops the close
    (crbug.com/536385539; microsoft/playwright#41900 and #42366): the tab stays open and
    ``Page.close()`` never returns. Here we send the same request, wait a bounded time for
    the tab's ``close`` event, and send it again if it was dropped (a second request,
    once the navigation has committed, closes the tab).
    """
    if page.is_closed():
        return 0
    target_session = page.context.new_cdp_session(page)
    try:
        target = target_session.send("Target.getTargetInfo", timeout=PLAYWRIGHT_TIMEOUT_MS)
    finally:
        target_session.detach()
    session = page.context.browser.new_browser_cdp_session()
    error = None
    try:
        for attempt in range(1, CLOSE_ATTEMPTS + 1):
            try:
                with page.expect_event("close", timeout=CLOSE_WAIT_MS):
                    session.send(
                        "Target.closeTarget",
                        {"targetId": target["targetInfo"]["targetId"]},
                        timeout=PLAYWRIGHT_TIMEOUT_MS,
                    )
                return attempt
            except PlaywrightError as exc:  # including Playwright's TimeoutError
                if page.is_closed():  # it went just after the wait, or in between
                    return attempt
                error = exc
    finally:
        session.detach()
    raise AssertionError(
        f"the tab at {page.url} is still open after {CLOSE_ATTEMPTS} close requests"
    ) from error


def login(page, live_server, username: str, password: str = "pw-for-tests") -> None:
    """Log in through the login form; return once the page it lands on has loaded.

    A click returns as soon as the navigation it started has committed (here: the POST,
    two redirects, then the landing page), or even before that. Waiting for the landing
    page to load means the next step never races that navigation: a tab closed in the
    instant of the commit is what made ``Page.close()`` hang (see ``close_page``), and a
    ``goto`` at that instant would cancel the login.
    """
    page.goto(f"{live_server.url}/login/")
    form = page.locator("main form").filter(has=page.locator("#id_password"))
    form.locator("#id_username").fill(username)
    form.locator("#id_password").fill(password)
    form.locator("button[type=submit]").click()
    try:
        page.wait_for_url(lambda url: urlsplit(url).path != "/login/")  # and its "load"
    except PlaywrightTimeoutError:
        shown = page.locator("main").inner_text()
        raise AssertionError(f"{username} is still on the login page: {shown!r}") from None
    expect(page.locator(".topbar .who")).to_have_text(username)
