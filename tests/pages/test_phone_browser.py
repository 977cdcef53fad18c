"""On a phone (390x844, Chromium): a leaderboard's columns fit its box, a bot's probes take a
line or two each, round and challenge pages fit; headers sort without JavaScript."""

from __future__ import annotations

from typing import Any

import pytest

from support.browser import follow

PHONE = {"width": 390, "height": 844}
OVERFLOW = """() => [...document.querySelectorAll('main table')].filter(t => t.offsetParent)
  .map(t => ({cls: t.className, width: t.scrollWidth, room: t.parentElement.clientWidth}))
  .filter(t => t.width > t.room)"""


def phone(browser: Any, **options: Any) -> Any:
    return browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, **options)


@pytest.mark.parametrize("game", ["tokaido-duo", "doubletrack"])
def test_a_leaderboards_columns_fit_a_phone(browser, served, game):
    base, _ = served
    context = phone(browser)
    try:
        tab = context.new_page()
        tab.goto(f"{base}/leaderboards/{game}")
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert tab.evaluate(OVERFLOW) == []  # no table scrolls sideways in its box either
        shown = tab.eval_on_selector_all(
            "table.board >> nth=0 >> thead th",
            "els => els.filter(e => e.offsetParent).map(e => e.textContent.trim())")
        assert shown[1:4] == ["Bot", "Rating", "Games"] and shown[-1].startswith("Trend")
        assert tab.is_visible("text=On a narrow screen the owner")
        box = tab.locator("table.board >> nth=0").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    finally:
        context.close()


def test_a_bots_ten_probes_are_compact_on_a_phone(browser, rounds_served):
    base, ladder = rounds_served
    context = phone(browser)
    try:
        tab = context.new_page()
        tab.goto(f"{base}/bots/{ladder.prober}")
        rows = tab.locator("table.probes tbody tr")
        assert rows.count() == 10
        heights = [rows.nth(n).bounding_box()["height"] for n in range(10)]
        assert max(heights) < 100, heights  # when, result and latency; two lines of detail
        assert tab.locator("table.probes").bounding_box()["height"] < 1000
        assert tab.evaluate(OVERFLOW) == []
        assert tab.is_visible("table.probes >> text=POST /decide answered 500 >> nth=0")
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/rounds/{round}", "/challenges/{challenge}"])
def test_round_and_challenge_pages_fit_a_phone(browser, rounds_served, path):
    base, ladder = rounds_served
    context = phone(browser)
    try:
        tab = context.new_page()
        tab.goto(base + path.format(round=ladder.duo_round, challenge=ladder.challenge))
        assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert tab.evaluate(OVERFLOW) == []
    finally:
        context.close()


def test_headers_sort_and_the_owner_filter_works_without_javascript(browser, served):
    base, _ = served
    context = phone(browser, java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(f"{base}/leaderboards/tokaido-duo?utm_source=share")
        follow(tab, "table.board >> nth=0 >> thead >> text=Games")
        assert tab.url.endswith("/leaderboards/tokaido-duo?sort=games&order=desc")
        games = tab.eval_on_selector_all("table.board >> nth=0 >> tbody td.played",
                                         "els => els.map(e => +e.textContent.trim())")
        assert games == sorted(games, reverse=True)
        tab.select_option("select[name=owner]", "bob")
        follow(tab, "form.filters >> text=Show")
        assert "owner=bob" in tab.url and "sort=games" in tab.url
        assert not tab.is_visible("table.board >> text=alice-bot")
    finally:
        context.close()
