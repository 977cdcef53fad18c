"""Round and challenge pages, labels that mean what they say, sortable and filtered
leaderboards, and a docs quick start that works for every reader (Flask's test client; the
rounds come from the real matchmaker, see ``rounds_support``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ladder.models import Round

from html_support import links, page, tables


def api(client: Any, path: str) -> Any:
    answer = client.get(path)
    assert answer.status_code == 200, (path, answer.get_json())
    return answer.get_json()


# -- rounds and challenges --------------------------------------------------------------------

def test_a_round_page_shows_its_fixtures_results_byes_and_progress(rounds_site):
    client = rounds_site.client()
    r = api(client, f"/api/v1/rounds/{rounds_site.duo_round}")
    html = page(client, f"/rounds/{r['id']}")
    assert f"<h1>Tokaido Duo round {r['number']}</h1>" in html
    fixtures = tables(html, "fixtures")[0]
    assert len(fixtures.rows) == len(r["fixtures"]) == 2
    for row, f in zip(fixtures.rows, r["fixtures"]):
        assert row[1].text.split() == [b["name"] for b in f["bots"]]
        assert f"/matches/{f['matches'][0]['id']}" in row[3].links
        for m in f["matches"]:
            detail = api(client, f"/api/v1/matches/{m['id']}")
            winner = next(s for s in detail["seats"] if s["rank"] == 1)["bot"]["name"]
            assert f"#{m['id']} finished" in row[3].text and f"{winner} 1st" in row[3].text
        assert "done" in row[2].text and "2 of 2 games started" in row[2].text
    [bye] = r["byes"]
    assert re.search(rf'href="/bots/{bye["bot"]["id"]}">{bye["bot"]["name"]}</a> '
                     r'<span class="muted">rotation</span>', html)
    assert re.search(r"Fixtures: <strong>2</strong> of 2 done\s*· byes: 1\.", html)
    assert f'href="/rounds/{r["id"]}"' not in html.split("<main>")[0]
    later = api(client, "/api/v1/rounds?game=tokaido-duo")["items"][0]
    assert f'href="/rounds/{later["id"]}" rel="next"' in html


def test_the_leaderboard_links_its_latest_round(rounds_site):
    client = rounds_site.client()
    latest = api(client, "/api/v1/rounds?game=tokaido-duo")["items"][0]
    html = page(client, "/leaderboards/tokaido-duo")
    assert f'Latest round: <a href="/rounds/{latest["id"]}">Tokaido Duo round ' \
           f'{latest["number"]}</a>' in html


def test_a_round_not_played_yet_says_so(rounds_site):
    client = rounds_site.client()
    [table] = api(client, "/api/v1/rounds?game=doubletrack")["items"][-1:]
    html = page(client, f"/rounds/{table['id']}")
    assert "<h1>Doubletrack round 1</h1>" in html and "A fixture is one table of 3 or 4." in html
    assert "playing" in html and "scheduled" in html and "No bye" in html
    assert 'rel="prev"' not in html  # its ladder's first round


def test_a_match_names_its_round_by_the_ladders_number_and_links_it(rounds_site):
    client = rounds_site.client()
    with rounds_site.engine.connect() as conn:
        rounds = {r.id: r for r in conn.execute(Round.__table__.select())}
    assert any(r.id != r.number for r in rounds.values())  # else this test could not fail
    for r in rounds.values():
        fixtures = api(client, f"/api/v1/rounds/{r.id}")["fixtures"]
        for m in [m for f in fixtures for m in f["matches"]]:
            html = page(client, f"/matches/{m['id']}")
            title = {"tokaido-duo": "Tokaido Duo", "doubletrack": "Doubletrack"}[r.game]
            assert f'<a href="/rounds/{r.id}">{title} round {r.number}</a>' in html


def test_a_challenge_page_shows_who_asked_progress_result_and_games(rounds_site):
    client = rounds_site.client()
    c = api(client, f"/api/v1/challenges/{rounds_site.challenge}")
    html = page(client, f"/challenges/{c['id']}")
    assert "asked by owner0" in html and "running" in html
    assert "4 games: <strong>2</strong> finished, 2 waiting." in html
    tally = tables(html, "tally")[0]
    expected = sorted(c["results"], key=lambda t: -t["points"])
    assert tally.column(0) == [t["name"] for t in expected]
    assert tally.column(2) == [f"{t['points']:g}" for t in expected]
    assert tally.column(4) == [f"{t['mean_rank']:.2f}" for t in expected]
    games = tables(html, "matches")[0]
    assert sorted(games.column(0)) == sorted(f"#{m}" for m in c["match_ids"])
    match_html = page(client, f"/matches/{rounds_site.challenge_played[0]}")
    assert f'<a href="/challenges/{c["id"]}">challenge #{c["id"]}</a> (unrated)' in match_html


@pytest.mark.parametrize("path", ["/rounds/999999", "/challenges/999999", "/rounds/abc"])
def test_an_unknown_round_or_challenge_is_a_404_page(rounds_site, path):
    assert "Not Found" in page(rounds_site.client(), path, 404)


# -- labels -----------------------------------------------------------------------------------

def test_a_match_says_how_long_it_went_as_its_viewer_counts(site):
    client = site.client()
    for pk in (site.ladder.rated[0], api(client, "/api/v1/matches?game=doubletrack")
               ["items"][0]["id"]):
        frames = api(client, f"/api/v1/matches/{pk}/frames")
        turn = max(f["turn"] for f in frames["frames"] if f["turn"] is not None)
        name = frames["match"]["turn_name"]
        html = page(client, f"/matches/{pk}")
        assert f", in {name} {turn}." in html
        assert f"{name} {turn}" in page(client, f"/matches/{pk}?ply=999999")  # the viewer's
    assert "turn" == api(client, f"/api/v1/matches/{pk}/frames")["match"]["turn_name"]


def test_a_finished_games_result_names_its_bots(site):
    client = site.client()
    pk = site.ladder.rated[0]
    detail = api(client, f"/api/v1/matches/{pk}")
    names = [s["name"] for s in api(client, f"/api/v1/matches/{pk}/frames")["match"]["seats"]]
    html = page(client, f"/matches/{pk}?ply=999999")
    outcome = re.search(r'<p class="rv-outcome">([^<]+)</p>', html).group(1)
    [winner] = [s for s in detail["seats"] if s["rank"] == 1]
    assert outcome.startswith(f"{names[winner['seat']]} (seat {winner['seat']}) wins; scores ")
    scores = ", ".join(f"{names[s['seat']]} {s['score']:g}" for s in detail["seats"])
    assert scores in outcome


def test_paging_past_the_end_says_there_is_no_such_page(site):
    client = site.client()
    total = api(client, "/api/v1/matches?game=doubletrack")["total"]
    html = page(client, "/matches?game=doubletrack&page=7", 404)
    assert "There is no page 7" in html and "No matches yet" not in html
    assert f"{total} matches match these filters, on 1 page." in html
    assert "/matches?game=doubletrack&amp;page=1" in html
    assert "There is no page" not in page(client, "/matches?game=doubletrack&page=1")


def test_the_paused_table_marks_a_provisional_rating(site):
    client = site.client()
    board = api(client, "/api/v1/leaderboards/tokaido-duo")
    [sleepy] = [p for p in board["paused"] if p["bot"]["name"] == "sleepy"]
    assert sleepy["provisional"] and sleepy["row"]["games"] < 10
    paused = tables(page(client, "/leaderboards/tokaido-duo"), "board")[2]
    assert paused.column(2)[0].endswith("provisional")
    left = sleepy["row"]["placement_left"]
    # Games to go where the ladder counts placement games; off it, ranking waits on the
    # rating's interval, not on a number of games.
    assert paused.column(3)[0] == str(sleepy["row"]["games"]) + ("" if left is None
                                                                else f" ({left} to go)")


# -- leaderboards: sort and filter ------------------------------------------------------------

def sections(html: str) -> tuple[list[str], list[str]]:
    """The bot names of the ranked and the provisional tables, in page order."""
    ranked, provisional = tables(html, "board")[:2]
    return ranked.column(1), provisional.column(0)


SORTABLE = {"games": lambda r: r["games"], "rating": lambda r: r["rating"],
            "bot": lambda r: r["bot"]["name"].casefold(),
            "strikes": lambda r: r["strikes_per_game"], "last": lambda r: r["last_played"],
            "wdl": lambda r: (r["wins"] + r["draws"] / 2) / r["games"]}


@pytest.mark.parametrize("key", sorted(SORTABLE))
def test_the_leaderboard_sorts_each_section_by_a_column_both_ways(site, key):
    client = site.client()
    board = api(client, "/api/v1/leaderboards/tokaido-duo")
    by_name = {r["bot"]["name"]: r for r in board["items"] + board["provisional"]}
    for order in ("asc", "desc"):
        html = page(client, f"/leaderboards/tokaido-duo?sort={key}&order={order}")
        shown = sections(html)
        assert max(map(len, shown)) >= 2, shown  # a section with an order to get wrong
        for names in shown:
            values = [SORTABLE[key](by_name[n]) for n in names]
            assert values == sorted(values, reverse=order == "desc"), (key, order, names)


def test_sorting_the_ranked_table_reorders_rows_not_ranks(site):
    client = site.client()
    html = page(client, "/leaderboards/doubletrack?sort=place&order=desc")
    ranked = tables(html, "board")[0]
    places = [float(x) for x in ranked.column(5)]
    assert places == sorted(places, reverse=True)
    board = api(client, "/api/v1/leaderboards/doubletrack")
    rank_of = {r["bot"]["name"]: str(r["rank"]) for r in board["items"]}
    assert ranked.column(0) == [rank_of[n] for n in ranked.column(1)]
    assert ranked.column(0) != sorted(ranked.column(0))  # reordered: the test can fail
    head = re.search(r'<th scope="col" class="num" aria-sort="descending">(.*?)</th>', html)
    assert head and 'href="/leaderboards/doubletrack?sort=place&amp;order=asc"' in head.group(1)
    assert "sorted by mean place, highest first" in html


def test_the_leaderboard_filters_by_owner_and_keeps_the_sort(site):
    client = site.client()
    html = page(client, "/leaderboards/tokaido-duo?owner=bob&sort=games")
    shown = tables(html, "board")
    names = {n for t in shown for column in (0, 1) for n in t.column(column)}
    assert "alice-bot" not in html.split("<h2>Recent matches</h2>")[0]
    assert "bob-greedy" in names and "sleepy" in html  # bob's paused bot too
    assert 'value="bob" selected' in html and "Only bob's bots" in html
    sort_links = [x for x in links(html) if "sort=" in x and "owner=bob" in x]
    assert sort_links  # a header keeps the owner
    assert page(client, "/leaderboards/tokaido-duo?owner=nobody", 400)


@pytest.mark.parametrize("query, says", [
    ("sort=colour", "sort: 'colour' is not one of"),
    ("sort=games&order=up", "order: 'up' is not one of asc, desc"),
    ("owner=mallory", "owner: 'mallory' is not one of alice, bob"),
])
def test_a_bad_sort_or_owner_is_a_400_that_says_why(site, query, says):
    html = page(site.client(), f"/leaderboards/tokaido-duo?{query}", 400)
    assert says in html.replace("&#39;", "'")


# -- docs -------------------------------------------------------------------------------------

def quick_start(html: str) -> str:
    import html as markup

    return markup.unescape(re.search(r'id="quickstart">.*?<pre[^>]*><code>(.*?)</code></pre>', html,
                                     re.S).group(1))


def test_the_quick_start_uses_the_ids_each_command_returned(site):
    client = site.client()
    text = quick_start(page(client, "/docs"))
    assert not re.search(r"/(bots|challenges|matches|checks)/\d", text)  # no id of ours
    assert not re.search(r'"bots": \[\d', text)
    doc = api(client, "/api/openapi.json")
    schemas = doc["components"]["schemas"]

    def fields_of(path: str, method: str, status: str) -> set[str]:
        body = doc["paths"][path][method]["responses"][status]["content"]["application/json"]
        ref = body["schema"]["$ref"].split("/")[-1]
        return set(schemas[ref]["properties"])

    # each variable is set from a field the API's answer has
    assert re.search(r"TOKEN=\$\(curl -s -XPOST \$H/owners .*\| jq -r \.token\)", text)
    assert "token" in fields_of("/api/v1/owners", "post", "201")
    assert "BOT=$(jq -r .id bot.json)" in text and "jq -r .status,.verify_nonce bot.json" in text
    assert {"id", "status", "verify_nonce"} <= fields_of("/api/v1/bots", "post", "201")
    assert re.search(r"CHECK=\$\(curl -s -XPOST \$H/bots/\$BOT/check .*\| jq -r \.id\)", text)
    assert "id" in fields_of("/api/v1/bots/{bot_id}/check", "post", "202")
    assert "curl -s $H/bots/$BOT/checks/$CHECK" in text
    assert re.search(r"CHALLENGE=.*\n.*\[\$BOT, \$GREEDY\].*\| jq -r \.id\)", text)
    assert {"id", "match_ids"} <= fields_of("/api/v1/challenges", "post", "202")
    assert "MATCH=$(curl -s $H/challenges/$CHALLENGE | jq -r '.match_ids[0]')" in text
    greedy = [b for b in api(client, "/api/v1/bots?game=tokaido-duo&per_page=100")["items"]
              if b["name"] == "greedy"]
    assert len(greedy) == 1  # what the GREEDY line selects


def test_the_docs_say_what_this_servers_address_policy_allows(site, tmp_path):
    from api.config import ServiceConfig

    from support.apps import NoDispatcher, prepared_app

    public = page(site.client(), "/docs")
    assert "a public address only" in public and "On this server it is\n    on" in public
    assert '"url": "https://my-bot.example"' in public
    opened = prepared_app(ServiceConfig(db_url=f"sqlite:///{tmp_path / 'lan.sqlite3'}",
                                        ratelimit=False, allow_networks="127.0.0.0/8, 10.1.0.0/16",
                                        bot_ports=((8000, 8999),)),
                          dispatcher=NoDispatcher())
    lan = page(opened.test_client(), "/docs")
    assert "<code>127.0.0.0/8</code> (loopback) or <code>10.1.0.0/16</code> (private)" in lan
    assert '"url": "http://127.0.0.1:8000"' in quick_start(lan)
    assert "Ports 8000-8999." in lan and "a public address only" not in lan
    assert "On this server it is\n    off" in lan
