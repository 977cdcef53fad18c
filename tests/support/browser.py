"""A real browser for the viewer and page tests: Playwright driving Debian's Chromium.

Never ``playwright install`` (it downloads browsers); the system's ``/usr/bin/chromium`` is
launched directly, with the flags that keep it off the network. Where Chromium or Playwright is
missing the browser tests skip, except in CI (``CI`` set), where they fail: CI must run them.
The suite's root conftest imports these fixtures, once: a second session-scoped browser would
start a second Playwright in the same thread, which Playwright refuses.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = os.environ.get("REFEREE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI must run the browser tests: .ci/run installs chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _unavailable(f"playwright is not installed: {exc}")
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that fails the test on any script error (a blocked resource, a
    Content-Security-Policy violation and an uncaught exception all are)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield tab
    context.close()
    assert not errors, errors


def follow(tab: Any, target: Any) -> None:
    """Click what leads to another page and wait until that page has loaded.

    A bare ``click`` returns once the navigation has started, so a check right after it can
    read the page before its text has arrived (seen on a busy CI machine)."""
    with tab.expect_navigation(wait_until="load"):
        if isinstance(target, str):
            tab.click(target)
        else:
            target.click()
