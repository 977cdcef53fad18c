"""Shared links carry parameters no page takes (``utm_source``, ``fbclid``, ``ref``): every page
opens all the same, and its links do not pass them on; the REST API stays strict."""

from __future__ import annotations

from typing import Any

import pytest

from html_support import links

TAGS = "utm_source=newsletter&utm_medium=email&fbclid=IwAR0xyz&ref=producthunt"
NO_GET = {"pages.logout", "pages.me_ladder", "pages.me_check", "pages.me_challenge",
          "pages.me_token", "pages.me_revoke", "pages.me_solo"}  # a form's target: POST only
LOGGED_IN = {"pages.me", "pages.me_check_report"}  # an owner's own: test_owner_pages.py


def page_paths(site: Any, rounds: Any) -> dict[str, str]:
    """A path for every GET route of the pages blueprint, ids filled from the ladders."""
    from flask import url_for

    L = site.ladder
    ids = {"game": "tokaido-duo", "bot_id": L.bots["alice-bot"], "match_id": L.chatty_match,
           "round_id": rounds.duo_round, "challenge_id": rounds.challenge, "level": 1}
    out = {}
    with site.app.test_request_context():
        for rule in site.app.url_map.iter_rules():
            if not rule.endpoint.startswith("pages.") or rule.endpoint in NO_GET | LOGGED_IN:
                continue
            assert "GET" in (rule.methods or ()), rule
            out[rule.endpoint] = url_for(rule.endpoint,
                                         **{arg: ids[arg] for arg in rule.arguments})
    return out


def test_every_page_route_is_covered(sqlite_site, rounds_site):
    paths = page_paths(sqlite_site, rounds_site)
    assert {"pages.home", "pages.leaderboard", "pages.bot", "pages.matches", "pages.match",
            "pages.round", "pages.challenge", "pages.docs", "pages.login"} <= set(paths)


def test_every_page_opens_with_tracking_parameters_as_without(sqlite_site, rounds_site):
    # the round and challenge pages read the rounds ladder, the others the pages ladder
    for endpoint, path in page_paths(sqlite_site, rounds_site).items():
        site = rounds_site if endpoint in ("pages.round", "pages.challenge") else sqlite_site
        client = site.client()
        plain = client.get(path)
        tagged = client.get(f"{path}?{TAGS}")
        assert plain.status_code == 200, (path, plain.status_code)
        assert tagged.status_code == 200, (path, tagged.get_data(as_text=True)[:500])
        html = tagged.get_data(as_text=True)
        # (logging in returns to the very address opened, tags and all)
        assert not [x for x in links(html) if ("utm_" in x or "fbclid" in x)
                    and not x.startswith("/login?next=")], path


@pytest.mark.parametrize("path", ["/matches?game=doubletrack&utm_source=x",
                                  "/leaderboards/tokaido-duo?sort=games&ref=hn",
                                  "/matches/{m}?ply=3&fbclid=1"])
def test_known_parameters_still_count_beside_unknown_ones(sqlite_site, path):
    client = sqlite_site.client()
    path = path.format(m=sqlite_site.ladder.chatty_match)
    html = client.get(path).get_data(as_text=True)
    if "doubletrack" in path:
        assert 'value="doubletrack" selected' in html and "12 matches match" in html
        assert "page=2" not in html
    elif "sort=games" in path:
        assert 'aria-sort="descending"><a class="sort" href="/leaderboards/tokaido-duo?sort=games' \
               '&amp;order=asc">Games' in html
    else:
        assert "frame 3 of" in html
    bad = client.get(path.replace("utm_source=x", "utm_source=x&game=chess")
                     .replace("ref=hn", "ref=hn&sort=colour").replace("fbclid=1", "fbclid=1&ply=x"))
    assert bad.status_code == 400  # a page's own parameters are still checked


def test_the_pagers_links_keep_the_filters_and_drop_the_tags(sqlite_site):
    html = sqlite_site.client().get(f"/matches?game=tokaido-duo&{TAGS}").get_data(as_text=True)
    pager = [x for x in links(html) if "page=" in x]
    assert pager and all(x.startswith("/matches?game=tokaido-duo&page=") for x in pager)


def test_the_api_stays_strict(sqlite_site):
    client = sqlite_site.client()
    for path in ("/api/v1/matches?utm_source=x", "/api/v1/leaderboards/tokaido-duo?fbclid=1"):
        answer = client.get(path)
        assert answer.status_code == 422 and answer.mimetype == "application/json", path
