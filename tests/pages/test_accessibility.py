"""Every page of the site, checked by axe-core in Chromium at a desktop and a phone size: no
violation axe rates serious or critical (contrast, names, links told apart by colour alone,
ARIA misuse...).

axe-core is vendored (``tests/support/vendor``), injected into each page after it loaded and
its scripts ran (the match page's viewer mounted, ``/api/docs`` rendered its operations), so
what is checked is what a reader with a screen reader or a keyboard gets; every ``<details>`` is
opened first, so that what it holds is checked too. On a phone no page may scroll sideways. One
browser page per size serves every path, so the whole check takes seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.axe import serious_violations

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}

# (path with placeholders, status it answers, a selector present once its scripts ran)
PAGES = [
    ("/", 200, None),
    ("/leaderboards/tokaido-duo", 200, None),
    ("/leaderboards/doubletrack", 200, None),
    ("/bots/{bot}", 200, "svg.rating-chart"),
    ("/matches/{match}", 200, "[data-referee-viewer][data-mounted] svg"),
    ("/matches/{match}?ply=3", 200, "[data-referee-viewer][data-mounted] svg"),
    ("/matches", 200, None),
    ("/rounds/{round}", 200, None),
    ("/challenges/{challenge}", 200, None),
    ("/solo", 200, None),
    ("/solo/tokaido-duo/1", 200, None),
    ("/docs", 200, None),
    ("/login", 200, None),
    ("/api/docs", 200, "#ops details"),
    ("/bots/99999", 404, None),
    ("/matches?state=nonsense", 400, None),
]



@pytest.fixture(scope="module", params=list(SIZES))
def tab(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """One browser page of a size for every path (``bypass_csp``: the pages' policy forbids
    inline scripts, and axe is injected as one)."""
    size = request.param
    context = browser.new_context(viewport=SIZES[size], is_mobile=size == "phone",
                                  has_touch=size == "phone", bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


def resolve(path: str, served: tuple[str, Any], rounds_served: tuple[str, Any]) -> str:
    """The URL of ``path``: rounds and challenges from the living ladder of
    ``rounds_support``, the rest from the ladder of ``pages_support``."""
    if path.startswith(("/rounds/", "/challenges/")):
        base, ladder = rounds_served
        return base + path.format(round=ladder.duo_round, challenge=ladder.challenge)
    base, site = served
    return base + path.format(bot=site.ladder.bots["alice-bot"], match=site.ladder.chatty_match)


@pytest.mark.parametrize("path,status,ready", PAGES, ids=[p for p, _, _ in PAGES])
def test_axe_finds_no_serious_violation(tab: Any, served: Any, rounds_served: Any, path: str,
                                        status: int, ready: str | None) -> None:
    errors: list[str] = []

    def failed(exc: Any) -> None:
        errors.append(str(exc))

    tab.on("pageerror", failed)
    answer = tab.goto(resolve(path, served, rounds_served))
    assert answer is not None and answer.status == status
    if ready:
        tab.wait_for_selector(ready, timeout=10_000)
    tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    if tab.viewport_size == SIZES["phone"]:  # and no page scrolls sideways on a phone
        assert tab.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"]["width"]
    blocking = serious_violations(tab)
    tab.remove_listener("pageerror", failed)
    assert not blocking, "\n".join(blocking)
    assert not errors, errors


def test_with_javascript_the_text_version_of_the_frame_stays_for_screen_readers(page, served):
    """The drawn replay replaces the text version on screen, not in the accessibility tree; its
    links to other frames go (nothing invisible takes the keyboard's focus)."""
    base, site = served
    pk = site.ladder.chatty_match
    frame = page.request.get(f"{base}/api/v1/matches/{pk}/frames").json()["frames"][3]
    page.goto(f"{base}/matches/{pk}?ply=3")
    page.wait_for_selector("[data-referee-viewer][data-mounted] svg")
    text = page.locator(".rv-static")
    assert text.bounding_box()["width"] <= 1
    read = text.aria_snapshot()
    assert "The replay as text, at the frame where this page opened (3 of" in read
    assert all(d["label"] in read for d in frame["decisions"]) and frame["decisions"]
    assert "link" not in read and text.locator("a").count() == 4  # there, but not shown


def test_the_rating_chart_has_a_text_version_with_every_games_link(served):
    """The chart's drawing is hidden from screen readers and its markers from the Tab order;
    the table under it lists the same games, newest first, each linking its match."""
    from html_support import page as fetch, tables

    base, site = served
    client = site.client()
    alice = site.ladder.bots["alice-bot"]
    html = fetch(client, f"/bots/{alice}")
    rated = client.get(f"/api/v1/bots/{alice}/ratings?game=tokaido-duo&per_page=100"
                       ).get_json()["items"]
    [table] = tables(html, "chart-games")
    svg = html[html.index("<svg"):html.index("</svg>")]
    assert 'aria-hidden="true"' in svg[:200] and svg.count('tabindex="-1"') == len(rated) == 14
    newest_first = list(reversed(list(enumerate(rated, start=1))))
    assert [[c.text for c in row[:3]] for row in table.rows] == [
        [str(n), f"#{r['match_id']}", f"{r['rating_after']:.0f}"] for n, r in newest_first]
    changes = [float(row[3].text.replace("\u2212", "-")) for row in table.rows]
    assert changes == pytest.approx([r["delta"] for _, r in newest_first], abs=0.11)
    assert [row[1].links for row in table.rows] == [[f"/matches/{r['match_id']}"]
                                                     for r in reversed(rated)]
