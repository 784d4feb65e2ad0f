"""Playwright on Debian's chromium against pytest-django's live server."""

from __future__ import annotations

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls of the
# fixtures are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

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
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def login(page, live_server, username: str, password: str = "pw-for-tests") -> None:
    """Log in through the login form."""
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
