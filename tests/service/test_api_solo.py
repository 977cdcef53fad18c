"""Solo on the service: challenges against Tokaido Duo's Automa and the solo ladders, played
by the real runner over HTTP (and by the embedded workers on their own), their pages, and
their bad requests."""

from __future__ import annotations

import gzip
import json

import pytest

from service.conftest import Client, drain

DUO = "tokaido-duo"


def put(client, path, json):
    return client.http.put(path, json=json, headers=client.headers())


def register(owner, url, name="solo-bot", games=(DUO, "doubletrack")):
    answer = owner.post("/api/v1/bots", json={"name": name, "url": url, "games": list(games),
                                              "ladder": False})
    assert answer.status_code == 201, answer.json
    return answer.json["id"]


def test_a_solo_challenge_plays_against_the_automa_and_says_how_it_went(app, anon, bot_url):
    alice = anon.owner("alice")
    mine = register(alice, bot_url)
    answer = alice.post("/api/v1/challenges", json={"game": DUO, "bots": [mine],
                                                    "automa_level": 2, "games": 3})
    assert answer.status_code == 202, answer.json
    doc = answer.json
    assert len(doc["match_ids"]) == 3 and doc["solo"]["games"] == 0
    assert doc["solo"]["automa_level"] == 2
    assert drain(app) == ["finished"] * 3
    done = anon.get(f"/api/v1/challenges/{doc['id']}").json
    assert done["status"] == "finished"
    solo = done["solo"]
    assert solo["games"] == 3 and solo["wins"] + solo["draws"] + solo["losses"] == 3
    # the challenge's own tally says the same: a first place is one against the Automa
    [tally] = done["results"]
    assert tally["games"] == 3 and tally["firsts"] == solo["wins"] + solo["draws"]
    assert tally["points"] == solo["wins"] + solo["draws"] / 2
    seeds = set()
    for game in solo["matches"]:
        match = anon.get(f"/api/v1/matches/{game['match_id']}").json
        assert match["settings"]["options"] == {"automa": 2} and len(match["seats"]) == 1
        automa = match["result"]["seats"][1]
        assert game["automa_score"] == automa["score"]
        assert game["margin"] == pytest.approx(match["seats"][0]["score"] - automa["score"])
        assert game["outcome"] == ("win" if match["result"]["winners"] == [0] else
                                   "draw" if 0 in match["result"]["winners"] else "loss")
        log = anon.get(f"/api/v1/matches/{game['match_id']}/log")
        assert log.status_code == 200
        body = log.data if log.headers.get("Content-Encoding") != "gzip" else gzip.decompress(
            log.data)
        played = json.loads(body)
        assert played["options"] == {"automa": 2} and len(played["players"]) == 1
        assert played["result"]["extra"]["automa_level"] == 2
        frames = anon.get(f"/api/v1/matches/{game['match_id']}/frames")
        assert frames.status_code == 200 and frames.json["frames"]  # the viewer's too
        seeds.add(match["seed"])
    assert len(seeds) == 3  # one seed per game: nothing to swap alone
    margins = [g["margin"] for g in solo["matches"]]
    assert solo["mean_margin"] == pytest.approx(sum(margins) / 3, abs=1e-3)
    low, high = solo["win_interval"]
    assert 0 <= low <= solo["win_rate"] <= high <= 1 and solo["margin_interval"] > 0
    # the match page shows it like any match; the challenge page, how it went
    first = solo["matches"][0]
    shown = anon.get(f"/matches/{first['match_id']}")
    assert shown.status_code == 200 and b"solo-bot" in shown.data
    page = shown.get_data(as_text=True)  # the Automa has a row of its own, with its score
    automa_row = page[page.index("the Automa</td>"):].split("</tr>")[0]
    assert f">{first['automa_score']:.0f}" in automa_row.replace(" ", "")
    listed = anon.get("/matches").get_data(as_text=True)  # lists call it solo, not 2nd of 1
    assert "against the Automa" in listed
    text = anon.get(f"/challenges/{doc['id']}").get_data(as_text=True)
    assert "Solo against the Automa, level 2" in text
    assert f"{solo['mean_margin']:+.1f}" in text and f"{solo['wins']} won" in text


@pytest.mark.parametrize("body, status, needle", [
    ({"game": DUO, "bots": ["MINE", 1], "automa_level": 2}, 422, "one bot, not 2"),
    ({"game": DUO, "bots": ["MINE"], "automa_level": 7}, 422, "levels 1-6, not 7"),
    ({"game": DUO, "bots": ["MINE"], "automa_level": 0}, 422, "levels 1-6, not 0"),
    ({"game": DUO, "bots": ["MINE"], "automa_level": "3"}, 422, "automa_level"),
    ({"game": DUO, "bots": ["MINE"]}, 422, "give automa_level"),
    ({"game": "doubletrack", "bots": ["MINE"], "automa_level": 1}, 422,
     "doubletrack has no solo mode"),
    ({"game": "doubletrack", "bots": ["MINE"]}, 422, "doubletrack has no solo mode"),
    ({"game": DUO, "bots": [], "automa_level": 1}, 422, "bots"),
    ({"game": DUO, "bots": [1], "automa_level": 1}, 403, "one of your own"),
    ({"game": DUO, "bots": ["MINE"], "automa_level": 1, "games": 11}, 422, "games"),
])
def test_bad_solo_challenges_are_4xx(anon, bot_url, body, status, needle):
    alice = anon.owner("alice")
    mine = register(alice, bot_url)
    body = {**body, "bots": [mine if b == "MINE" else b for b in body["bots"]]}
    answer = alice.post("/api/v1/challenges", json=body)
    assert answer.status_code == status, answer.json
    assert needle in answer.json["message"] + json.dumps(answer.json.get("errors", {}))


def solo_tick(app):
    """What the scheduler does after every match and at every beat: the solo ladders' part
    of the tick, and the new matches sent to the workers."""
    from api.scheduling import tick_and_enqueue

    svc = app.extensions["referee"]
    tick_and_enqueue(svc.engine, svc.config.matchmaker(), svc.dispatcher)


def play_until(app, closed):
    """Play what was released and tick, as the workers and the scheduler do after every
    match, until ``closed`` solo rounds are over; never more matches of a bot at once than
    its ``max_concurrency`` (1 here)."""
    from sqlalchemy import func, select

    from ladder.models import RUNNING, SCHEDULED, Match, MatchSeat, SoloRound

    engine = app.extensions["referee"].engine
    for _ in range(100):
        with engine.connect() as conn:
            done = conn.execute(select(func.count()).select_from(SoloRound)
                                .where(SoloRound.closed_at.is_not(None))).scalar_one()
            at_once = conn.execute(
                select(func.count()).select_from(MatchSeat)
                .join(Match, Match.id == MatchSeat.match_pk)
                .where(Match.state.in_((SCHEDULED, RUNNING)), Match.held.is_(False))
                .group_by(MatchSeat.bot_id)).scalars().all()
        assert max(at_once, default=0) <= 1
        if done >= closed:
            return
        assert set(drain(app)) <= {"finished"}
        solo_tick(app)
    raise AssertionError(f"{closed} solo rounds not over after 100 ticks")


def test_the_solo_ladder_plays_shared_seeds_and_ranks_greedy_above_random(
        app, anon, bot_url, second_bot_url, monkeypatch):
    import random

    from ladder import solo_ladder

    rounds = iter(range(100))  # fixed seeds: the same games every run
    monkeypatch.setattr(solo_ladder, "fresh_rng", lambda: random.Random(next(rounds)))
    alice, bob = anon.owner("alice"), anon.owner("bob")
    weak = register(alice, bot_url, "weak")  # the built-in random bot over HTTP
    strong = register(bob, second_bot_url, "strong")  # the built-in greedy bot
    ladder = f"/api/v1/solo-ladders/{DUO}/1"
    first = put(alice, f"/api/v1/bots/{weak}/solo-ladders/{DUO}/1", json={"active": True})
    assert first.status_code == 200 and first.json["ladder"] == "tokaido-duo-solo-1"
    assert put(bob, f"/api/v1/bots/{strong}/solo-ladders/{DUO}/1",
                     json={"active": True}).status_code == 200
    assert anon.get(ladder).json["rounds"] == 1  # the first entry opened a round at once
    engine = app.extensions["referee"].engine
    play_until(app, closed=1)  # round 1: the weak bot alone, 4 seeds
    board = anon.get(ladder).json
    assert [r["bot"]["id"] for r in board["items"]] == [weak]
    assert [r["bot"]["id"] for r in board["provisional"]] == [strong]
    play_until(app, closed=3)  # rounds 2 and 3: both bots, the same 4 seeds each
    board = anon.get(ladder).json  # and round 4 opened
    assert board["rounds"] == 4 and board["provisional"] == []
    rows = {r["bot"]["id"]: r for r in board["items"]}
    assert [r["bot"]["id"] for r in board["items"]] == [strong, weak]
    assert [r["rank"] for r in board["items"]] == [1, 2]
    assert rows[weak]["games"] == 12 and rows[strong]["games"] == 8
    assert rows[strong]["strength"] > rows[weak]["strength"]
    assert rows[strong]["mean_margin"] > rows[weak]["mean_margin"]
    for row in rows.values():
        assert row["strength_interval"] > 0 and row["margin_interval"] > 0
        low, high = row["win_interval"]
        assert 0 <= low <= row["win_rate"] <= high <= 1
    # every bot of a round met the same seeds
    from sqlalchemy import select

    from ladder.models import Match, SoloGame
    with engine.connect() as conn:
        played = conn.execute(select(SoloGame.round_id, SoloGame.bot_id, Match.seed)
                              .join(Match, Match.id == SoloGame.match_pk)).all()
    seeds = {}
    for round_id, bot, seed in played:
        seeds.setdefault(round_id, {}).setdefault(bot, set()).add(seed)
    for by_bot in seeds.values():
        assert len({frozenset(s) for s in by_bot.values()}) == 1
        assert all(len(s) == 4 for s in by_bot.values())
    assert len({frozenset(next(iter(b.values()))) for b in seeds.values()}) == 4  # fresh
    # withdrawn, a bot keeps its games on the board, its game under way is played, the ones
    # waiting for its slot are voided, and it plays no more rounds
    out = put(alice, f"/api/v1/bots/{weak}/solo-ladders/{DUO}/1", json={"active": False})
    assert out.status_code == 200 and out.json["active"] is False
    entries = anon.get(f"/api/v1/bots/{weak}/solo-ladders").json["items"]
    assert [(e["ladder"], e["active"]) for e in entries] == [("tokaido-duo-solo-1", False)]
    play_until(app, closed=4)  # round 4 played out; round 5 opens, without the weak bot
    with engine.connect() as conn:
        last = conn.execute(select(SoloGame.bot_id).join(Match, Match.id == SoloGame.match_pk)
                            .order_by(Match.id.desc()).limit(4)).scalars().all()
        voided = conn.execute(select(Match.void_reason).join(
            SoloGame, SoloGame.match_pk == Match.id).where(SoloGame.bot_id == weak,
                                                           Match.state == "voided")).all()
    assert last == [strong] * 4
    assert voided == [("bot withdrawn from the solo ladder before the game",)] * 3
    after = {r["bot"]["id"]: r for r in anon.get(ladder).json["items"]}
    assert after[weak]["active"] is False and after[weak]["games"] == 13
    assert after[strong]["games"] == 12
    listed = {x["ladder"]: x for x in anon.get("/api/v1/solo-ladders").json["items"]}
    assert sorted(listed) == [f"tokaido-duo-solo-{n}" for n in range(1, 7)]
    assert listed["tokaido-duo-solo-1"]["bots"] == 1 and listed["tokaido-duo-solo-1"]["rounds"] == 5
    check_pages(anon, anon.get(ladder).json, strong, weak)


def check_pages(anon, board, strong, weak):
    """The board's page shows what its API answers; the bot, home and index pages link it."""
    from pages.html_support import links, page, tables

    html = page(anon.http, "/solo/tokaido-duo/1")
    (table,) = tables(html, "solo-board")
    assert table.column(0) == ["1", "2"]
    assert table.column(1) == ["strong", "weak (withdrawn)"]
    first = board["items"][0]
    assert table.column(3)[0] == (f"{first['strength']:+.1f} "
                                  f"±{first['strength_interval']:.1f}")
    assert table.column(4) == [str(r["games"]) for r in board["items"]]
    assert "/api/v1/solo-ladders/tokaido-duo/1" in links(html)
    assert "/solo/tokaido-duo/6" in links(html) and board["ranking"][:20] in html
    bot_page = page(anon.http, f"/bots/{strong}")
    assert "Solo against the Automa" in bot_page and "#1</strong> of 2" in bot_page
    assert "By seat" not in bot_page  # solo games have no seats to compare
    assert "/solo/tokaido-duo/1" in links(bot_page)
    home = page(anon.http, "/")
    assert "/solo/tokaido-duo/1" in links(home) and "1 or 2 players" not in home
    assert "2 players" in home
    (index,) = tables(page(anon.http, "/solo"), "board")
    assert index.column(2)[:1] == ["1"] and len(index.rows) == 6
    page(anon.http, "/solo/tokaido-duo/9", 404)
    page(anon.http, "/solo/doubletrack/1", 404)


@pytest.mark.parametrize("path, body, status, needle", [
    ("/solo-ladders/tokaido-duo/7", {"active": True}, 404, "levels 1-6"),
    ("/solo-ladders/doubletrack/1", {"active": True}, 404, "no solo mode"),
    ("/solo-ladders/chess/1", {"active": True}, 404, "no game 'chess'"),
    ("/solo-ladders/tokaido-duo/1", {"active": "maybe"}, 422, "active"),
    ("/solo-ladders/tokaido-duo/1", {}, 422, "active"),
    ("/solo-ladders/tokaido-duo/1", {"active": False}, 404, "not in the"),
])
def test_bad_solo_entries_are_4xx(anon, bot_url, path, body, status, needle):
    alice = anon.owner("alice")
    mine = register(alice, bot_url)
    answer = put(alice, f"/api/v1/bots/{mine}{path}", json=body)
    assert answer.status_code == status, answer.json
    assert needle in answer.json["message"] + json.dumps(answer.json.get("errors", {}))


def test_solo_ladder_reads_and_rights(anon, bot_url, second_bot_url):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    mine = register(alice, bot_url)
    only_duo = register(alice, second_bot_url, "duo-less", games=["doubletrack"])
    assert put(bob, f"/api/v1/bots/{mine}/solo-ladders/{DUO}/2",
                   json={"active": True}).status_code == 403
    assert put(anon, f"/api/v1/bots/{mine}/solo-ladders/{DUO}/2",
                    json={"active": True}).status_code == 401
    refused = put(alice, f"/api/v1/bots/{only_duo}/solo-ladders/{DUO}/2", json={"active": True})
    assert refused.status_code == 409 and "does not play tokaido-duo" in refused.json["message"]
    assert anon.get("/api/v1/solo-ladders/tokaido-duo/0").status_code == 404
    assert anon.get("/api/v1/solo-ladders/doubletrack/1").status_code == 404
    assert anon.get("/api/v1/bots/999999/solo-ladders").status_code == 404
    empty = anon.get("/api/v1/solo-ladders/tokaido-duo/6").json
    assert empty["items"] == empty["provisional"] == [] and "strength" in empty["ranking"]


def test_an_owner_enters_one_bot_per_solo_level(anon, bot_url, second_bot_url):
    """Its second bot could play a seed after the first one had seen the dice."""
    from bots.server import BotApp, BotServer

    alice, bob = anon.owner("alice"), anon.owner("bob")
    first, second = register(alice, bot_url, "first"), register(alice, second_bot_url, "second")
    server = BotServer(BotApp("random", None, 5)).start()
    try:
        theirs = register(bob, server.url, "theirs")
    finally:
        server.stop()  # registered: nothing here plays it
    assert put(alice, f"/api/v1/bots/{first}/solo-ladders/{DUO}/2",
               json={"active": True}).status_code == 200
    refused = put(alice, f"/api/v1/bots/{second}/solo-ladders/{DUO}/2", json={"active": True})
    assert refused.status_code == 409
    assert f"first (id {first}) is already on the tokaido-duo-solo-2" in refused.json["message"]
    assert put(bob, f"/api/v1/bots/{theirs}/solo-ladders/{DUO}/2",
               json={"active": True}).status_code == 200  # another owner's bot
    assert put(alice, f"/api/v1/bots/{second}/solo-ladders/{DUO}/3",
               json={"active": True}).status_code == 200  # another level
    assert put(alice, f"/api/v1/bots/{first}/solo-ladders/{DUO}/2",
               json={"active": False}).status_code == 200
    assert put(alice, f"/api/v1/bots/{second}/solo-ladders/{DUO}/2",
               json={"active": True}).status_code == 200  # once the first is withdrawn
    assert put(alice, f"/api/v1/bots/{first}/solo-ladders/{DUO}/2",
               json={"active": True}).status_code == 409


def test_solo_works_on_postgresql(make_service, pg_head_url, bot_url):
    app = make_service(pg_head_url)
    alice = Client(app).owner("alice")
    mine = register(alice, bot_url)
    challenge = alice.post("/api/v1/challenges", json={"game": DUO, "bots": [mine],
                                                       "automa_level": 6, "games": 2})
    assert challenge.status_code == 202, challenge.json
    assert drain(app) == ["finished"] * 2
    assert put(alice, f"/api/v1/bots/{mine}/solo-ladders/{DUO}/6",
               json={"active": True}).status_code == 200
    play_until(app, closed=1)
    done = alice.get(f"/api/v1/challenges/{challenge.json['id']}").json
    assert done["status"] == "finished" and done["solo"]["games"] == 2
    board = alice.get(f"/api/v1/solo-ladders/{DUO}/6").json
    assert [(r["bot"]["id"], r["games"], r["rank"]) for r in board["items"]] == [(mine, 4, 1)]
    assert board["rounds"] == 2 and board["items"][0]["strength"] < 0


def test_the_embedded_workers_play_solo_challenges_and_rounds_on_their_own(make_service,
                                                                          bot_url):
    """No test driving here: the embedded pool's workers play what is released, and the tick
    after each match releases the next game and opens the next round (its ticker sleeps)."""
    import time

    from api.dispatch import EmbeddedPool
    from ladder.work import SweepPolicy

    app = make_service()
    svc = app.extensions["referee"]
    pool = EmbeddedPool(svc.engine, svc.policy, workers=2, lease_s=30, sweep_s=3600,
                        sweep_policy=SweepPolicy(), tick_s=3600)
    svc.dispatcher = pool
    try:
        alice = Client(app).owner("alice")
        mine = register(alice, bot_url)
        asked = alice.post("/api/v1/challenges", json={"game": DUO, "bots": [mine],
                                                       "automa_level": 4, "games": 2})
        assert asked.status_code == 202, asked.json
        assert put(alice, f"/api/v1/bots/{mine}/solo-ladders/{DUO}/4",
                   json={"active": True}).status_code == 200
        give_up = time.monotonic() + 120  # a hang fails, not a slow machine's pace
        while True:
            board = alice.get(f"/api/v1/solo-ladders/{DUO}/4").json
            done = alice.get(f"/api/v1/challenges/{asked.json['id']}").json
            if board["rounds"] >= 3 and done["status"] == "finished":
                break
            assert time.monotonic() < give_up, (board, done["progress"])
            time.sleep(0.05)
    finally:
        pool.close()
    assert done["solo"]["games"] == 2 and done["solo"]["automa_level"] == 4
    (row,) = board["items"]
    assert row["bot"]["id"] == mine and row["rank"] == 1 and row["games"] >= 8


def test_the_tick_after_a_match_skips_while_the_matchmaker_runs(make_service, pg_head_url,
                                                                bot_url):
    """On PostgreSQL the solo tick after a match does not queue behind a running tick (the
    matchmaker's lock): it skips, and the next tick opens the round."""
    from sqlalchemy import text

    from ladder import solo_ladder
    from ladder.db import lock_key
    from ladder.matchmaking.state import LOCK

    app = make_service(pg_head_url)
    engine = app.extensions["referee"].engine
    alice = Client(app).owner("alice")
    mine = register(alice, bot_url)
    solo_ladder.set_entry(engine, mine, DUO, 5, True)
    with engine.connect() as other, other.begin():
        other.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(LOCK)})
        assert solo_ladder.tick(engine, wait=False) == []
        assert alice.get(f"/api/v1/solo-ladders/{DUO}/5").json["rounds"] == 0
    assert len(solo_ladder.tick(engine, wait=False)) == 1  # its first game, within its slot
    assert alice.get(f"/api/v1/solo-ladders/{DUO}/5").json["rounds"] == 1


def test_a_bot_that_forfeits_every_solo_game_ranks_below_one_that_plays(app, anon, bot_url,
                                                                          monkeypatch):
    """Every answer names an option not offered: three strikes, a forfeit, each game.  Its
    fallback's points are not the bot's: each game is a loss, scored 0 against the Automa's."""
    import random

    from ladder import solo_ladder

    from support.http_bots import HostileServer

    rounds = iter(range(100))  # fixed seeds: the same games every run
    monkeypatch.setattr(solo_ladder, "fresh_rng", lambda: random.Random(next(rounds)))

    alice, bob = anon.owner("alice"), anon.owner("bob")
    info = {"name": "hostile", "games": [DUO], "protocol": 1}
    with HostileServer("unknown", info=info) as broken:
        forfeiter = register(alice, broken.url, "forfeiter", games=[DUO])
        player = register(bob, bot_url, "player")
        for owner, bot in ((alice, forfeiter), (bob, player)):
            assert put(owner, f"/api/v1/bots/{bot}/solo-ladders/{DUO}/1",
                       json={"active": True}).status_code == 200
        play_until(app, closed=2)  # round 1: the forfeiter alone; round 2: both
    board = anon.get(f"/api/v1/solo-ladders/{DUO}/1").json
    assert [r["bot"]["name"] for r in board["items"]] == ["player", "forfeiter"]
    last = board["items"][1]
    assert last["games"] == last["forfeits"] == last["losses"] == 8 and last["win_rate"] == 0
    games = anon.get(f"/api/v1/matches?bot={forfeiter}&state=finished&per_page=100").json
    assert games["total"] == 8
    automa = [anon.get(f"/api/v1/matches/{m['id']}").json["result"]["seats"][1]["score"]
              for m in games["items"]]
    assert last["mean_margin"] == pytest.approx(-sum(automa) / 8, abs=1e-3)


def test_a_tick_with_no_solo_ladder_in_use_takes_no_lock(app, anon, bot_url, monkeypatch):
    """Every matchmaker tick (one after every match) runs the solo tick too: with no bot on a
    solo ladder and no round open, it only reads; once a bot is entered it does its work."""
    import ladder.solo_ladder as solo_ladder

    armed, real = [True], solo_ladder.lock_ladder

    def refuse(*args):
        if armed[0]:
            raise AssertionError("took the matchmaker's lock with nothing to do")
        return real(*args)

    engine = app.extensions["referee"].engine
    monkeypatch.setattr(solo_ladder, "lock_ladder", refuse)
    assert solo_ladder.tick(engine) == []
    armed[0] = False  # entering the bot ticks (and opens its round)
    alice = anon.owner("alice")
    mine = register(alice, bot_url)
    assert put(alice, f"/api/v1/bots/{mine}/solo-ladders/{DUO}/1",
               json={"active": True}).status_code == 200
    armed[0] = True
    with pytest.raises(AssertionError, match="lock"):
        solo_ladder.tick(engine)
