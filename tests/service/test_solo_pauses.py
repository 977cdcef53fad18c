"""A bot that is down or away is held back from its solo ladders too: the health and presence
rules pause its solo entries with its ladder entries, its waiting solo games are voided (not
released, only to be forfeited as 0-score losses), new rounds leave it out, and it plays again
once the rule lifts the pause."""

from __future__ import annotations

from datetime import timedelta

from pages.html_support import page
from pages.pages_support import csrf_of
from sqlalchemy import select

from api.health import probe_due
from bots.server import BotApp, BotServer
from ladder import presence, solo_ladder
from ladder.accounts import now_utc
from ladder.models import SCHEDULED, VOIDED, Match, SoloGame

from service.test_api_solo import DUO, play_until, put, register

HEALTH_REASON = "health: 3 failed probes in a row"


def solo_games(engine, bot_id):
    """The bot's solo games: (state, held, void reason) by match id."""
    with engine.connect() as conn:
        return {r.id: (r.state, bool(r.held), r.void_reason) for r in conn.execute(
            select(Match.id, Match.state, Match.held, Match.void_reason)
            .join(SoloGame, SoloGame.match_pk == Match.id).where(SoloGame.bot_id == bot_id))}


def me_page(client) -> str:
    """The owner's /me, logged in with the client's token as a person would."""
    browser = client.app.test_client()
    form = page(browser, "/login")
    assert browser.post("/login", data={"token": client.token,
                                        "csrf": csrf_of(form)}).status_code == 303
    return page(browser, "/me")


def entries(anon, bot_id):
    return {e["ladder"]: (e["paused"], e["paused_reason"])
            for e in anon.get(f"/api/v1/bots/{bot_id}/solo-ladders").json["items"]}


def test_failed_probes_pause_a_solo_entry_and_good_ones_resume_it(app, anon):
    engine, policy = app.extensions["referee"].engine, app.extensions["referee"].policy
    server = BotServer(BotApp("random", None, 3)).start()
    port = server.port
    alice = anon.owner("alice")
    bot = register(alice, server.url, games=[DUO])  # on no two-player ladder: solo only
    assert put(alice, f"/api/v1/bots/{bot}/solo-ladders/{DUO}/1",
               json={"active": True}).status_code == 200
    waiting = solo_games(engine, bot)
    assert sorted(held for _, held, _ in waiting.values()) == [False, True, True, True]
    clock = now_utc()

    def probes():
        nonlocal clock
        clock += timedelta(hours=1)
        return probe_due(engine, policy, clock)

    server.stop()
    probes(), probes()
    assert probes().paused == {bot: HEALTH_REASON}
    assert entries(anon, bot) == {"tokaido-duo-solo-1": (True, HEALTH_REASON)}
    alert = alice.get("/api/v1/me/alerts").json["items"][0]
    assert alert["kind"] == "paused" and alert["games"] == ["tokaido-duo-solo-1"]

    solo_ladder.tick(engine)  # the games waiting for the bot's slot are voided
    after = solo_games(engine, bot)
    assert sorted(after.values(), key=str) == sorted(
        [(SCHEDULED, False, None)] + [(VOIDED, False, f"bot paused before the game "
                                                      f"({HEALTH_REASON})")] * 3, key=str)
    # a level entered while the bot is down starts paused, for the same reason
    assert put(alice, f"/api/v1/bots/{bot}/solo-ladders/{DUO}/2",
               json={"active": True}).json["paused_reason"] == HEALTH_REASON
    assert solo_games(engine, bot).keys() == after.keys()  # no round scheduled it
    me = me_page(alice)
    assert me.count("Paused automatically: its health probes failed") == 2
    assert "paused</strong> on Tokaido Duo solo, level 1: health" in me  # the alert
    assert "Paused automatically" in page(anon.http, f"/bots/{bot}")

    server = BotServer(BotApp("random", None, 3), port=port).start()
    try:
        probes()
        assert probes().resumed == {bot: "2 good probes in a row"}
        assert entries(anon, bot) == {"tokaido-duo-solo-1": (False, None),
                                      "tokaido-duo-solo-2": (False, None)}
        play_until(app, closed=2)  # round 1's released game; level 2's first round
    finally:
        server.stop()
    played = [state for state, _, _ in solo_games(engine, bot).values()]
    assert played.count(VOIDED) == 3 and played.count("finished") >= 5
    resumed = alice.get("/api/v1/me/alerts").json["items"][0]
    assert resumed["kind"] == "resumed" and resumed["games"] == ["tokaido-duo-solo-1",
                                                                 "tokaido-duo-solo-2"]


def test_a_pull_bot_on_a_solo_ladder_only_is_away_while_not_connected(app, anon):
    engine = app.extensions["referee"].engine
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "laptop", "mode": "pull", "games": [DUO],
                                            "ladder": False})
    assert made.status_code == 201, made.json
    bot = made.json["id"]
    assert put(alice, f"/api/v1/bots/{bot}/solo-ladders/{DUO}/3",
               json={"active": True}).status_code == 200
    assert presence.sweep(engine, lambda _: False) == {bot: presence.PAUSED}
    assert entries(anon, bot) == {"tokaido-duo-solo-3": (True, presence.AWAY_REASON)}
    solo_ladder.tick(engine)
    states = [state for state, _, _ in solo_games(engine, bot).values()]
    assert states.count(VOIDED) == 3  # the one released before the sweep stays
    assert presence.sweep(engine, lambda _: False) == {}  # away already: no second alert
    me = me_page(alice)
    assert "It resumes as soon as it polls again" in me
    assert presence.back(engine, bot)
    assert entries(anon, bot) == {"tokaido-duo-solo-3": (False, None)}
    assert not presence.back(engine, bot)  # back already: nothing to lift, no second alert
