"""The pages with Flask's test client, against a ladder built by the real paths: what each page
shows is checked against the API's answers (separate code over the same data)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from api.pages import signed

from html_support import attributes, links, page, tables
from pages_support import HOSTILE, HOSTILE_TEXT


def api(client: Any, path: str) -> Any:
    answer = client.get(path)
    assert answer.status_code == 200, (path, answer.get_json())
    return answer.get_json()


def api_matches(client: Any, **filters: Any) -> list[dict[str, Any]]:
    """Every match the API lists for ``filters``, newest first (all pages)."""
    out: list[dict[str, Any]] = []
    page_no = 1
    while True:
        query = "&".join(f"{k}={str(v).lower()}" for k, v in filters.items())
        doc = api(client, f"/api/v1/matches?per_page=100&page={page_no}&{query}")
        out += doc["items"]
        if len(out) >= doc["total"]:
            return out
        page_no += 1


def rating_text(row: dict[str, Any]) -> str:
    return f"{row['rating']:.0f} ±{row['interval']:.0f}"


# -- home and leaderboards --------------------------------------------------------------------

def test_home_shows_each_game_with_its_top_bots_live_and_recent_matches_and_how_to_enter(site):
    client = site.client()
    html = page(client, "/")
    top = tables(html, "top")
    assert len(top) == 2  # one per game, alphabetical: Doubletrack, Tokaido Duo
    for table, game in zip(top, ["doubletrack", "tokaido-duo"]):
        board = api(client, f"/api/v1/leaderboards/{game}")
        assert table.column(1) == [r["bot"]["name"] for r in board["items"][:10]
                                   if r["bot"]["name"] != "sleepy"]
        assert table.column(2) == [rating_text(r) for r in board["items"][:10]
                                   if r["bot"]["name"] != "sleepy"]
    live, recent = tables(html, "matches")
    assert live.column(0) == [f"#{site.ladder.running}"]
    finished = api_matches(client, state="finished")[:10]
    assert recent.column(0) == [f"#{m['id']}" for m in finished]
    assert "How to enter" in html and "/docs#quickstart" in html
    assert "1 match waiting to start" in html  # the second game of the Duo pair


def test_the_leaderboard_has_the_apis_rows_with_provisional_and_paused_apart(site):
    client = site.client()
    board = api(client, "/api/v1/leaderboards/tokaido-duo")
    html = page(client, "/leaderboards/tokaido-duo")
    ranked, provisional, paused, recent = (tables(html, "board") + tables(html, "matches"))
    paused_names = {"sleepy"}
    expected = [r for r in board["items"] if r["bot"]["name"] not in paused_names]
    assert ranked.column(1) == [r["bot"]["name"] for r in expected]
    assert ranked.column(0) == [str(n) for n in range(1, len(expected) + 1)]
    assert ranked.column(3) == [rating_text(r) for r in expected]
    assert ranked.column(4) == [str(r["games"]) for r in expected]
    assert ranked.column(5) == [f"{r['wins']}–{r['draws']}–{r['losses']}" for r in expected]
    assert ranked.column(6) == [f"{r['strikes_per_game']:.2f}" for r in expected]
    others = [r for r in board["provisional"] if r["bot"]["name"] not in paused_names]
    assert provisional.column(0) == [r["bot"]["name"] for r in others]
    assert provisional.column(3) == [
        str(r["games"]) + ("" if r["placement_left"] is None else f" ({r['placement_left']} to go)")
        for r in others]
    assert paused.column(0) == ["sleepy"] and paused.column(4) == ["the bot is paused"]
    assert "runs on its owner's own hardware" in html
    assert "Mean place" not in html  # a two-seat game shows W-D-L
    assert recent.column(0)[0] == f"#{site.ladder.pair_done}"


def test_the_trend_is_the_rating_change_over_the_last_30_rated_games(site):
    client = site.client()
    alice = site.ladder.bots["alice-bot"]
    rated = [m for m in api_matches(client, bot=alice, rated=True, state="finished")]
    mine = [next(s for s in m["seats"] if s["bot"]["id"] == alice) for m in rated]
    window = mine[:30]
    change = window[0]["rating_after"] - window[-1]["rating_before"]
    html = page(client, "/leaderboards/tokaido-duo")
    row = next(r for r in tables(html, "board")[0].rows if r[1].text == "alice-bot")
    assert row[8].text.endswith(signed(round(change, 1)))
    assert ("▼" if change < 0 else "▲") in row[8].text


def test_a_table_game_shows_mean_place_and_first_places(site):
    client = site.client()
    board = api(client, "/api/v1/leaderboards/doubletrack")
    html = page(client, "/leaderboards/doubletrack")
    ranked = tables(html, "board")[0]
    for row, r in zip(ranked.rows, board["items"]):
        bot_id = r["bot"]["id"]
        played = api_matches(client, bot=bot_id, game="doubletrack", rated=True,
                             state="finished")
        seats = [next(s for s in m["seats"] if s["bot"]["id"] == bot_id) for m in played]
        firsts = sum(1 for s in seats if s["rank"] == 1 and not s["forfeited"])
        assert row[5].text == f"{r['mean_place']:.2f}"
        assert row[6].text == f"{100 * firsts / len(seats):.0f}%"
    assert "W–D–L" not in html


# -- a bot ------------------------------------------------------------------------------------

def test_a_bot_page_charts_every_rated_match_with_round_marks(site):
    client = site.client()
    alice = site.ladder.bots["alice-bot"]
    html = page(client, f"/bots/{alice}")
    rated = api_matches(client, bot=alice, rated=True, state="finished", game="tokaido-duo")
    chart = re.search(r'<svg viewBox="0 0 \d+ \d+"[^>]*>.*?</svg>', html, re.S).group(0)
    points = re.search(r'<polyline class="line" points="([^"]+)"', chart).group(1).split()
    assert len(points) == len(rated) + 1  # the start, then one per rated match
    xs = [float(p.split(",")[0]) for p in points]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    linked = re.findall(r'<a href="/matches/(\d+)"[^>]*><circle', chart)
    assert sorted(map(int, linked)) == sorted(m["id"] for m in rated)
    assert len(re.findall(r'<line class="round"', chart)) == 1  # two rounds, one boundary
    last = next(s for s in rated[0]["seats"] if s["bot"]["id"] == alice)
    assert f"to {last['rating_after']:.0f}</title>" in chart


def test_a_bot_page_has_head_to_head_seats_recent_matches_strikes_and_health(site):
    client = site.client()
    alice = site.ladder.bots["alice-bot"]
    html = page(client, f"/bots/{alice}")
    played = api_matches(client, bot=alice, game="tokaido-duo", state="finished")
    h2h = tables(html, "h2h")[0]
    for row in h2h.rows:
        other = row[0].text
        met = [m for m in played if any(s["bot"]["name"] == other for s in m["seats"])]
        ranks = [({s["bot"]["name"]: s for s in m["seats"]}) for m in met]
        ahead = sum(1 for r in ranks if r["alice-bot"]["rank"] < r[other]["rank"])
        behind = sum(1 for r in ranks if r["alice-bot"]["rank"] > r[other]["rank"])
        assert [row[1].text, row[2].text, row[4].text] == [str(len(met)), str(ahead),
                                                            str(behind)]
    assert h2h.column(0)[0] == "bob-greedy"  # most met first (four rated, one challenge)
    seats = tables(html, "seats")[0]
    assert sum(int(n) for n in seats.column(1)) == len(played)
    recent = tables(html, "matches")[0]
    listed = api_matches(client, bot=alice)[:20]
    assert recent.column(0) == [f"#{m['id']}" for m in listed]
    for row, m in zip(recent.rows, listed):
        change = next(s for s in m["seats"] if s["bot"]["id"] == alice)["rating_change"]
        if change is not None:
            assert signed(change, 1) in row[2].text
    reasons = tables(html, "reasons")[0]
    assert [c.text for c in reasons.rows[0]] == ["unknown option", "2"]
    assert "2 strikes in 2 of" in html
    probes = tables(html, "probes")[0]
    assert [r[1].text for r in probes.rows] == ["ok", "timeout", "ok"]  # newest first
    assert "67% answered" in html and "median 31 ms" in html
    board = api(client, "/api/v1/leaderboards/tokaido-duo")
    ranked = [r for r in board["items"] if r["bot"]["name"] != "sleepy"]  # sleepy is paused
    [mine] = [r for r in ranked if r["bot"]["id"] == alice]
    assert f"#{mine['rank']}</strong> of {len(ranked)}" in html


def test_the_links_a_page_joins_are_those_url_for_builds(site):
    """A bot's page joins its match and bot links to a path built once a request
    (``api.pages.id_url``) and writes bot links in Python: the same strings as ``url_for`` and
    the macro it replaced, the site at the root or mounted under a path."""
    from flask import render_template_string, url_for

    from api.pages import bot_link, bot_url, match_url

    macro = """<a class="bot" href="{{ url_for('pages.bot', bot_id=ref.id) }}">{{ ref.name }}</a>"""
    for base in ("http://localhost/", "http://localhost/mounted/"):
        with site.app.test_request_context("/", base_url=base):
            for n in (1, 9, 10, 1234567):
                assert match_url(n) == url_for("pages.match", match_id=n)
                assert bot_url(n) == url_for("pages.bot", bot_id=n)
            for ref in ({"id": 7, "name": HOSTILE}, {"id": 12, "name": "plain"}):
                assert str(bot_link(ref)) == render_template_string(macro, ref=ref)
            assert bot_url(3).startswith("/mounted/" if "mounted" in base else "/bots/")


def test_a_bot_without_matches_or_probes_says_so(site):
    client = site.client()
    html = page(client, "/bots/3")  # the house mcts bot: never played here
    assert "A house bot" in html and "No matches yet." in html
    assert "No strikes in 0 finished matches." in html


# -- matches ----------------------------------------------------------------------------------

def test_a_match_page_has_players_result_the_viewer_and_the_log(site):
    client = site.client()
    pk = site.ladder.rated[3]  # alice-bot struck once here
    detail = api(client, f"/api/v1/matches/{pk}")
    html = page(client, f"/matches/{pk}")
    seats = tables(html, "seats")[0]
    assert seats.column(1) == [s["bot"]["name"] for s in detail["seats"]]
    assert [c.split()[0] for c in seats.column(4)] == [f"{s['score']:.0f}"
                                                       for s in detail["seats"]]
    assert "ended: <strong>normal</strong>" in html
    assert "unknown option" in html  # the fault, and the seat's strike reasons
    assert f'data-frames-url="/api/v1/matches/{pk}/frames"' in html
    assert f'href="/api/v1/matches/{pk}/log" download' in html
    frames = api(client, f"/api/v1/matches/{pk}/frames")
    last = len(frames["frames"]) - 1
    assert f"frame 0 of {last}" in html
    at_five = page(client, f"/matches/{pk}?ply=5")
    assert f"frame 5 of {last}" in at_five
    assert f'href="/matches/{pk}?ply=6" rel="next"' in at_five
    assert f"frame {last} of {last}" in page(client, f"/matches/{pk}?ply=999999")


def test_matches_not_finished_have_no_replay(site):
    client = site.client()
    running = page(client, f"/matches/{site.ladder.running}")
    assert "Running since" in running and "data-referee-viewer" not in running
    voided = page(client, f"/matches/{site.ladder.voided}")
    assert "Voided: bot unreachable at /start" in voided and "Replay" not in voided
    waiting = page(client, f"/matches/{site.ladder.withheld}")
    assert "waiting for a worker" in waiting


def test_a_finished_game_of_an_unfinished_pair_withholds_its_replay(site):
    client = site.client()
    html = page(client, f"/matches/{site.ladder.pair_done}")
    assert "shares its dice with another match" in html
    assert "data-referee-viewer" not in html
    assert f"/api/v1/matches/{site.ladder.pair_done}/log" not in html
    assert client.get(f"/api/v1/matches/{site.ladder.pair_done}/frames").status_code == 409


def test_only_the_owner_logged_in_sees_its_bots_log_lines(site):
    pk = site.ladder.chatty_match
    anonymous = page(site.client(), f"/matches/{pk}")
    assert "Your bot's log lines" not in anonymous and "took " not in anonymous
    bob = page(site.logged_in("bob"), f"/matches/{pk}")
    assert "Your bot's log lines" not in bob
    alice = page(site.logged_in("alice"), f"/matches/{pk}")
    assert "Your bot's log lines: alice-bot" in alice
    lines = tables(alice, "loglines")[0]
    assert len(lines.rows) > 10
    assert all(re.fullmatch(r"<[a-z_]+> took \S+ & moved on", r[3].text) for r in lines.rows)
    assert "&lt;choose_die&gt; took" in alice  # escaped, never markup
    first = lines.rows[0][0].links[0]
    assert re.fullmatch(rf"/matches/{pk}\?ply=\d+#ply=\d+", first)


def test_matches_browse_and_filter_as_the_api_does(site):
    client = site.client()
    alice = site.ladder.bots["alice-bot"]
    cases = [({}, {}), ({"game": "doubletrack"}, {"game": "doubletrack"}),
             ({"state": "running"}, {"state": "running"}),
             ({"rated": "no"}, {"rated": False}),
             ({"bot": "alice-bot", "game": "tokaido-duo"}, {"bot": alice, "game": "tokaido-duo"}),
             ({"bot": str(alice), "state": "finished"}, {"bot": alice, "state": "finished"})]
    for given, filters in cases:
        expected = api_matches(client, **filters)
        query = "&".join(f"{k}={v}" for k, v in given.items())
        html = page(client, f"/matches?{query}")
        shown = tables(html, "matches")[0].column(0) if expected else []
        assert shown == [f"#{m['id']}" for m in expected[:25]], given
        assert f"{len(expected)} match" in html
    first = page(client, "/matches")
    total = len(api_matches(client))
    assert total > 25 and 'rel="next"' in first
    second = page(client, "/matches?page=2")
    assert len(tables(second, "matches")[0].rows) == total - 25
    filtered = page(client, "/matches?game=tokaido-duo&bot=")
    assert "/matches?game=tokaido-duo&amp;page=2" in filtered  # the pager keeps the filters
    assert 'value="tokaido-duo" selected' in filtered
    assert 'value="no" selected' in page(client, "/matches?rated=no")


# -- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("path, says", [
    ("/matches?page=0", "page: 0 is not between 1 and 100000"),
    ("/matches?page=abc", "page: 'abc' is not a whole number"),
    ("/matches?page=%EF%BC%91", "is not a whole number"),  # a full-width digit
    ("/matches?state=bogus", "state: 'bogus' is not one of"),
    ("/matches?game=chess", "game: 'chess' is not one of"),
    ("/matches?rated=maybe", "rated: 'maybe' is not yes or no"),
    ("/matches?bot=nobody", "no bot is named 'nobody'"),
    ("/matches?page=1&page=2", "page: give it once"),
    ("/leaderboards/tokaido-duo?sort=new", "sort: 'new' is not one of"),
    ("/matches/1?ply=-1", "ply: '-1' is not a whole number"),
    ("/matches/1?ply=1e3", "ply: '1e3' is not a whole number"),
    ("/login?next=//evil.example/", "next: must be a path on this site"),
    ("/login?next=https://evil.example/", "next: must be a path on this site"),
])
def test_a_bad_query_is_a_400_page_that_says_why(site, path, says):
    html = page(site.client(), path, 400)
    assert says in html.replace("&#39;", "'") and "Bad Request" in html


@pytest.mark.parametrize("path", [
    "/bots/999999", "/bots/0", "/bots/abc", "/bots/99999999999999999999", "/matches/999999",
    "/matches/2147483648", "/leaderboards/chess", "/leaderboards/" + "x" * 100, "/nope",
    "/assets/nope.css", "/docs/schemas/nope.json", "/matches/1/nope",
])
def test_an_unknown_thing_is_a_404_page(site, path):
    html = page(site.client(), path, 404)
    assert "Not Found" in html and 'href="/"' in html


def test_api_paths_keep_their_json_errors(site):
    client = site.client()
    for path in ("/api/v1/nope", "/api/v1/matches/999999", "/api/v1/matches/999999/frames"):
        answer = client.get(path)
        assert answer.status_code == 404 and answer.get_json()["code"] == 404


def test_a_wrong_method_is_a_405_page_with_allow(site):
    answer = site.client().post("/", data={"x": "1"})
    assert answer.status_code == 405 and answer.mimetype == "text/html"
    assert "GET" in answer.headers["Allow"]


def test_a_storage_failure_is_a_503_page(site, monkeypatch):
    from api import caching
    from api.pages import views
    from ladder import LadderError

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise LadderError("database x: connection refused")

    monkeypatch.setattr(views.reads, "list_matches", broken)
    monkeypatch.setattr(caching, "data_version", broken)  # a kept copy is not asked for either
    html = page(site.client(), "/matches", 503)
    assert "cannot be reached" in html and "connection refused" not in html


# -- safety -----------------------------------------------------------------------------------

def test_hostile_names_and_descriptions_are_text_everywhere(site):
    client = site.client()
    hostile = site.ladder.bots[HOSTILE]
    pages = ["/", "/leaderboards/doubletrack", f"/bots/{hostile}", "/matches",
             f"/matches?bot={hostile}", f"/bots/{site.ladder.bots['alice-bot']}",
             f"/matches/{api_matches(client, bot=hostile)[0]['id']}"]
    for path in pages:
        html = page(client, path)
        assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "<b>bold" not in html
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;&amp;amp;" in page(
        client, f"/bots/{hostile}")
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page(
        client, f"/bots/{site.ladder.bots['alice-bot']}")
    assert HOSTILE_TEXT  # (the text the ladder stored)


def every_page(site: Any) -> list[str]:
    L = site.ladder
    return ["/", "/leaderboards/tokaido-duo", "/leaderboards/doubletrack", "/matches",
            "/docs", "/login", f"/bots/{L.bots['alice-bot']}", f"/bots/{L.bots[HOSTILE]}",
            f"/matches/{L.chatty_match}", f"/matches/{L.pair_done}", f"/matches/{L.running}",
            "/bots/999999"]


def test_pages_load_nothing_from_another_site_and_say_so_to_the_browser(site):
    client = site.client()
    for path in every_page(site):
        answer = client.get(path)
        csp = answer.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        html = answer.get_data(as_text=True)
        for tag, value in attributes(html, "src") + attributes(html, "href"):
            assert not re.match(r"^(https?:)?//", value), (path, tag, value)
        assert "<script>" not in html.replace('<script type="application/json"', "")
        assert " style=" not in html  # the policy allows no inline style


def test_every_link_of_every_page_works(sqlite_site):
    """A crawl from the home page over every page kind: each link answers (no 4xx, no 5xx).
    One frame link per match is followed (the rest are the same page at other frames).
    (On SQLite only: every page kind is read from PostgreSQL by the tests above.)"""
    site = sqlite_site
    client = site.client()
    seen: set[str] = set()
    framed: set[str] = set()
    todo = every_page(site)[:-1]
    while todo and len(seen) < 400:
        path = todo.pop(0)
        match = path.split("?ply=")[0] if "?ply=" in path else None
        if path in seen or match in framed:
            continue
        seen.add(path)
        if match:
            framed.add(match)
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.status_code)
        if answer.mimetype != "text/html":
            continue
        for link in links(answer.get_data(as_text=True)):
            target = link.split("#")[0]
            if target and target.startswith("/") and target not in seen:
                todo.append(target)
    assert len(seen) > 60  # every bot, match, page of matches, asset, schema, API link


def test_assets_are_cached_by_their_content(site):
    client = site.client()
    html = page(client, f"/matches/{site.ladder.chatty_match}")
    url = re.search(r'src="(/assets/viewer\.js\?v=[0-9a-f]+)"', html).group(1)
    answer = client.get(url)
    assert answer.status_code == 200 and "immutable" in answer.headers["Cache-Control"]
    assert answer.mimetype == "text/javascript"
    again = client.get(url, headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304
    assert "immutable" not in client.get("/assets/viewer.js?v=old").headers["Cache-Control"]


def test_the_docs_page_links_the_protocols_schemas_and_the_api(site):
    from referee.protocol import SCHEMAS, schema_text

    client = site.client()
    html = page(client, "/docs")
    for name in SCHEMAS:
        assert f'href="/docs/schemas/{name}.json"' in html
        assert client.get(f"/docs/schemas/{name}.json").get_data(as_text=True) == \
            schema_text(name)
    assert 'href="/api/openapi.json"' in html and 'href="/api/docs"' in html
    assert "H=http://localhost/api/v1" in html  # the quick start names this server
    for reason in ("timeout", "connection error", "http status", "bad json", "too large",
                   "unknown option"):
        assert f"<td>{reason}</td>" in html
