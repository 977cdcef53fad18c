"""The pages in a real browser (Chromium): the leaderboard and a bot page show the ladder the
test built, a match page's viewer loads its frames from the API and steps, the pages fit a
phone's width, and without JavaScript the match page still steps through links."""

from __future__ import annotations

from typing import Any

import pytest

from support.browser import follow

ROOT = "[data-referee-viewer]"
PHONE = {"width": 390, "height": 844}


def texts(page: Any, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent.trim())")


def api(page: Any, base: str, path: str) -> Any:
    return page.request.get(base + path).json()


def test_the_leaderboard_shows_the_ladder(page, served):
    base, site = served
    board = api(page, base, "/api/v1/leaderboards/tokaido-duo")
    page.goto(base + "/leaderboards/tokaido-duo")
    ranked = [r for r in board["items"] if r["bot"]["name"] != "sleepy"]
    assert texts(page, "table.board >> nth=0 >> tbody tr td:nth-child(2)") == \
        [r["bot"]["name"] for r in ranked]
    assert texts(page, "table.board >> nth=0 >> tbody tr td:nth-child(4)") == \
        [f"{r['rating']:.0f} ±{r['interval']:.0f}" for r in ranked]
    assert page.is_visible("text=Provisional") and page.is_visible("text=Paused")
    follow(page, "table.board >> nth=0 >> a.bot >> nth=0")
    assert page.url == f"{base}/bots/{ranked[0]['bot']['id']}"


def test_a_bot_page_draws_its_rating_chart_and_links_each_point(page, served):
    base, site = served
    alice = site.ladder.bots["alice-bot"]
    page.goto(f"{base}/bots/{alice}")
    chart = page.locator("svg.rating-chart")
    assert chart.is_visible()
    box = chart.bounding_box()
    assert box["width"] > 500 and box["height"] > 150
    points = page.locator("svg.rating-chart circle.point")
    assert points.count() == 14
    assert page.locator("table.h2h tbody tr").count() == 4
    follow(page, points.nth(13))
    assert "/matches/" in page.url and page.is_visible("text=Replay")


def test_the_match_viewer_loads_its_frames_and_steps(page, served):
    base, site = served
    pk = site.ladder.chatty_match
    frames = api(page, base, f"/api/v1/matches/{pk}/frames")
    page.goto(f"{base}/matches/{pk}")
    page.wait_for_selector(f"{ROOT}[data-mounted] svg")
    assert page.get_attribute(ROOT, "data-ply") == "0"
    # the script drew the replay; the text version stays for screen readers, visually hidden
    assert page.locator(".rv-static").bounding_box()["width"] <= 1
    before = page.inner_html(f"{ROOT} svg")
    page.focus(f"{ROOT} .rv-map-scroll")  # the viewer takes the keys only while it has focus
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute(ROOT, "data-ply") == "2"
    assert page.evaluate("location.hash") == "#ply=2"
    assert page.inner_html(f"{ROOT} svg") != before
    page.keyboard.press("End")
    assert page.get_attribute(ROOT, "data-ply") == str(len(frames["frames"]) - 1)


def test_a_shared_moment_opens_at_its_frame(page, served):
    base, site = served
    page.goto(f"{base}/matches/{site.ladder.chatty_match}#ply=7")
    page.wait_for_selector(f"{ROOT}[data-mounted] svg")
    assert page.get_attribute(ROOT, "data-ply") == "7"


def test_without_javascript_the_match_page_steps_by_links(browser, served):
    base, site = served
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(f"{base}/matches/{site.ladder.chatty_match}")
        assert tab.is_visible("text=frame 0 of")
        follow(tab, ".rv-static-nav >> text=next")
        assert tab.url.endswith("?ply=1") and tab.is_visible("text=frame 1 of")
        follow(tab, "nav.bar >> text=Matches")
        tab.select_option("select[name=game]", "doubletrack")
        follow(tab, "text=Show")
        assert "game=doubletrack" in tab.url
        assert tab.locator("table.matches tbody tr").count() == 12
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/", "/leaderboards/tokaido-duo", "/leaderboards/doubletrack",
                                  "BOT", "MATCH", "/matches", "/docs", "/login"])
def test_every_page_fits_a_phone_without_sideways_scrolling(browser, served, path):
    """Wide tables scroll inside their own box; the page itself never does."""
    base, site = served
    path = {"BOT": f"/bots/{site.ladder.bots['alice-bot']}",
            "MATCH": f"/matches/{site.ladder.chatty_match}"}.get(path, path)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(base + path)
        tab.wait_for_load_state("networkidle")
        width = tab.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (path, width)
        small = tab.eval_on_selector_all(
            "main p, main td, main li",
            "els => els.filter(e => e.offsetParent && e.textContent.trim())"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
            ".filter(size => size < 11)")
        assert not small, (path, small[:5])
        assert not errors, errors
    finally:
        context.close()


def test_logging_in_in_the_browser_shows_the_owners_log_lines(browser, served):
    base, site = served
    context = browser.new_context()
    try:
        tab = context.new_page()
        pk = site.ladder.chatty_match
        tab.goto(f"{base}/matches/{pk}")
        follow(tab, "nav.bar >> text=Log in")
        tab.fill("#token", site.ladder.tokens["alice"])
        follow(tab, "form.login button")
        assert tab.url.split("#")[0] == f"{base}/matches/{pk}"  # the viewer may add #ply=0
        assert tab.is_visible("text=Your bot's log lines: alice-bot")
        follow(tab, "text=Log out")
        assert tab.url == f"{base}/" and tab.is_visible("nav.bar >> text=Log in")
    finally:
        context.close()
