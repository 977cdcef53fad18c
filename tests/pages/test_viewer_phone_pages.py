"""A match page of the site on a phone (390 x 844, touch): its replay viewer draws no text under
10 CSS px at its default zoom and every control takes a finger, for both games."""

from __future__ import annotations

from typing import Any

import pytest

from support.viewer_phone import PHONE, assert_readable_on_a_phone

ROOT = "[data-referee-viewer]"


@pytest.mark.parametrize("game", ["tokaido-duo", "doubletrack"])
def test_a_match_page_replay_reads_on_a_phone(browser: Any, served: Any, game: str) -> None:
    base, site = served
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pk = site.ladder.chatty_match if game == "tokaido-duo" else tab.request.get(
            f"{base}/api/v1/matches?game=doubletrack&state=finished").json()["items"][0]["id"]
        tab.goto(f"{base}/matches/{pk}#ply=12")
        tab.wait_for_selector(f"{ROOT}.rv-compact .rv-piece")
        assert tab.get_attribute(ROOT, "data-ply") == "12"
        assert_readable_on_a_phone(tab)
        tab.tap(f"{ROOT} [data-act=next]")
        assert tab.get_attribute(ROOT, "data-ply") == "13"
        assert not errors, errors
    finally:
        context.close()
