"""The viewer on a phone (390 x 844, touch) and by keyboard alone, in Chromium.

A phone gets the board in a box that pans, at a zoom where no text is under 10 CSS px, every
control at least 40 px square, a slider for a thumb and swipes; a keyboard gets the viewer only
while it has the focus, reaches every control with Tab and sees where the focus is.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from test_viewer_browser import ROOT, publish, random_match, shown

from api.viewer import render_fragment, viewer_css, viewer_js

from support.viewer_phone import PHONE, assert_readable_on_a_phone, controls


@cache
def match(game: str, seats: int) -> Any:
    """One random match per game for the whole module (the viewer only reads it)."""
    return random_match(game, seats, 11)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield tab
    context.close()
    assert not errors, errors


def swipe(page: Any, selector: str, leftwards: bool) -> None:
    """A one-finger sideways swipe across the element (touch events, as a phone sends them)."""
    page.eval_on_selector(selector, """(el, left) => {
        const r = el.getBoundingClientRect(), y = r.top + r.height / 2;
        const [a, b] = left ? [r.right - 10, r.left + 10] : [r.left + 10, r.right - 10];
        const at = x => new Touch({identifier: 1, target: el, clientX: x, clientY: y});
        el.dispatchEvent(new TouchEvent("touchstart", {touches: [at(a)], changedTouches: [at(a)], bubbles: true}));
        el.dispatchEvent(new TouchEvent("touchend", {touches: [], changedTouches: [at(b)], bubbles: true}));
    }""", leftwards)


def in_view(page: Any, selector: str) -> bool:
    """Whether the middle of the element lies inside the board's box (it is not panned away)."""
    return page.evaluate("""sel => {
        const box = document.querySelector(".rv-map-scroll").getBoundingClientRect();
        const r = document.querySelector(sel).getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
    }""", selector)


@pytest.mark.parametrize("game, seats", [("tokaido-duo", 2), ("doubletrack", 4)])
def test_on_a_phone_the_board_reads_at_10_px_and_every_control_takes_a_finger(
        phone, site, game, seats):
    base, folder = site
    doc = match(game, seats)
    phone.goto(base + publish(folder, f"{game}.html", doc) + "#ply=20")
    phone.wait_for_selector(".rv-compact .rv-piece")
    assert_readable_on_a_phone(phone)
    board = phone.locator(".rv-board-map").bounding_box()
    box = phone.locator(".rv-map-scroll").bounding_box()
    assert board["width"] > 2 * box["width"]  # a part of the board, at a size that reads
    phone.click("[data-act=zoomout]")
    assert phone.get_attribute(ROOT, "data-zoom") == "fit"
    assert phone.locator(".rv-board-map").bounding_box()["width"] <= box["width"]


def test_on_a_phone_a_thumb_steps_swipes_scrubs_and_the_board_follows_the_move(phone, site):
    base, folder = site
    doc = match("tokaido-duo", 2)
    frames = doc["frames"]
    phone.goto(base + publish(folder, "td.html", doc))
    phone.wait_for_selector(".rv-compact .rv-piece")
    phone.tap("[data-act=next]")
    phone.tap("[data-act=next]")
    assert shown(phone) == 2
    swipe(phone, ".rv-said", leftwards=True)
    assert shown(phone) == 3
    swipe(phone, ".rv-board-side", leftwards=False)
    assert shown(phone) == 2
    slider = phone.locator(".rv-scrub")
    area = slider.bounding_box()
    slider.tap(position={"x": area["width"] * 0.75, "y": area["height"] / 2})
    last = len(frames) - 1
    assert abs(shown(phone) - 0.75 * last) <= 0.05 * last
    moves = [f["ply"] for f in frames if any(e["type"] == "move" for e in f["events"])]
    far = next(p for p in moves if p > shown(phone) + 1)
    phone.evaluate(f"location.hash = '#ply={far - 1}'")
    phone.wait_for_function(f"document.querySelector('{ROOT}').dataset.ply === '{far - 1}'")
    phone.tap("[data-act=next]")
    phone.wait_for_function("""() => {
        const box = document.querySelector(".rv-map-scroll").getBoundingClientRect();
        const r = document.querySelector(".rv-moved").getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
    }""")
    phone.click("[data-act=zoomout]")
    target = phone.locator(".rv-space[data-space='9']").bounding_box()
    phone.tap(".rv-board-map", position={
        "x": target["x"] + target["width"] / 2 - phone.locator(".rv-board-map").bounding_box()["x"],
        "y": target["y"] + target["height"] / 2 - phone.locator(".rv-board-map").bounding_box()["y"]})
    assert phone.get_attribute(ROOT, "data-zoom") == "read"
    assert in_view(phone, ".rv-space[data-space='9']")


def embedded(folder: Path, doc: Any) -> str:
    """A page with the viewer between other things that take the focus: the keys belong to
    the page until the viewer has the focus."""
    (folder / "embedded.html").write_text(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>t</title>"
        "<link rel=icon href='data:,'>"
        f"<style>{viewer_css()}</style></head><body><button id=outside>elsewhere</button>"
        f"{render_fragment(doc)}<a href='#top' id=after>after</a>"
        f"<script>{viewer_js()}</script></body></html>", encoding="utf-8")
    return "embedded.html"


def focused(page: Any) -> str:
    return page.evaluate("""() => { const e = document.activeElement;
        return e.getAttribute("aria-label") || e.id || e.textContent.trim(); }""")


def test_the_keys_are_the_viewers_only_while_it_has_the_focus(page, site):
    base, folder = site
    doc = random_match("doubletrack", 3, 9)
    page.goto(base + embedded(folder, doc))
    page.wait_for_selector(".rv-big")
    page.focus("#outside")
    for key in ("ArrowRight", "End", "Space", "n", "Home"):
        page.keyboard.press(key)
    assert shown(page) == 0 and page.get_attribute(ROOT, "data-playing") is None
    page.keyboard.press("Tab")
    assert focused(page) == "first frame (Home)"
    reached = []
    while True:
        inside, shows, name = page.evaluate(f"""() => {{
            const e = document.activeElement;
            return [document.querySelector("{ROOT}").contains(e),
                    e.matches(":focus-visible") && getComputedStyle(e).outlineStyle !== "none",
                    e.getAttribute("aria-label") || e.id || e.textContent.trim()];
        }}""")
        if not inside:
            break
        assert shows, name  # the focus is visible wherever it is
        reached.append(name)
        page.keyboard.press("Tab")
    assert name == "after"
    assert sorted(reached) == sorted(name for name, _, _ in controls(page, enabled=True))
    page.focus("[data-act=next]")
    page.keyboard.press("Space")  # presses the focused button: a step, no playing
    assert shown(page) == 1 and page.get_attribute(ROOT, "data-playing") != "true"
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    assert shown(page) == 3
    page.keyboard.press("End")
    assert shown(page) == len(doc["frames"]) - 1
    page.focus(".rv-map-scroll")
    page.keyboard.press("Home")
    page.keyboard.press("Space")  # on the board: play
    assert page.get_attribute(ROOT, "data-playing") == "true"
    page.keyboard.press("Space")
    assert page.get_attribute(ROOT, "data-playing") == "false"
    page.focus(".rv-scrub")
    page.keyboard.press("End")  # the slider's own keys
    assert shown(page) == len(doc["frames"]) - 1
    page.keyboard.press("ArrowLeft")
    assert shown(page) == len(doc["frames"]) - 2
