"""An owner in a real browser (Chromium), on a phone and a wide screen: log in, find the
paused bot on /me, resume it, challenge a bot, enter one on a solo ladder; without sideways scrolling and with buttons a
thumb can hit."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from owner_support import Home, make_home, reopen
from support.apps import served_app
from support.axe import serious_violations
from support.browser import follow

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Home, str]:
    path = tmp_path_factory.mktemp("owner-browser") / "home.sqlite3"
    made = make_home(f"sqlite:///{path}")
    made.engine.dispose()
    return made, str(path)


@pytest.fixture
def served_home(built, tmp_path) -> Iterator[tuple[str, Home]]:
    """A copy of the service on a loopback HTTP server: ``(base URL, home)``."""
    made, path = built
    shutil.copyfile(path, tmp_path / "home.sqlite3")
    home = reopen(made, f"sqlite:///{tmp_path / 'home.sqlite3'}")
    try:
        with served_app(home.app) as base:
            yield base, home
    finally:
        home.engine.dispose()


@pytest.mark.parametrize("size", list(SIZES))
def test_log_in_resume_a_paused_bot_and_challenge(browser: Any, served_home, size):
    base, home = served_home
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone,
                                  bypass_csp=True)  # axe is injected as an inline script
    try:
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(f"{base}/login?next=/me")
        tab.fill("#token", home.tokens["alice"])
        with tab.expect_navigation(url=f"{base}/me", wait_until="load"):  # stylesheets too:
            tab.click("form.login button")  # the sizes measured below are the styled ones
        assert tab.url == f"{base}/me"
        hawk = f"#bot-{home.bots['hawk']}"
        assert "Paused by its owner." in tab.inner_text(hawk)
        assert tab.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
        small = tab.eval_on_selector_all(
            "main button, main select", "els => els.map(e => e.getBoundingClientRect())"
            ".filter(r => r.width < 40 || r.height < 40).length")
        assert small == 0
        assert not (found := serious_violations(tab)), "\n".join(found)  # axe-core

        follow(tab, f"{hawk} button.act-resume")
        assert tab.url == f"{base}/me#bot-{home.bots['hawk']}"
        tab.wait_for_selector(f"text=Bot {home.bots['hawk']} resumed the Tokaido Duo ladder.")
        assert "Placement: 0 of 10 games played" in tab.inner_text(hawk)
        assert not home.entry("hawk")["paused"]

        tab.select_option("form.challenge select[name=game]", "tokaido-duo")
        tab.select_option("form.challenge select[name=bot]", str(home.bots["hawk"]))
        tab.select_option("form.challenge select[name=opponent1]", str(home.bots["badger"]))
        follow(tab, "form.challenge button")
        tab.wait_for_selector("text=Challenge 1 queued: 2 unrated Tokaido Duo matches.")
        assert len(home.dispatcher.sent) == 2

        kite = f"#bot-{home.bots['kite']}"
        tab.select_option(f"{kite} .solo-entries select[name=level]", "3")
        follow(tab, f"{kite} .solo-entries button[value=enter]")
        tab.wait_for_selector(f"text=Bot {home.bots['kite']} entered the Tokaido Duo solo "
                              "ladder, level 3.")
        assert "Tokaido Duo solo, level 3" in tab.inner_text(kite)
        assert not errors, errors
    finally:
        context.close()
