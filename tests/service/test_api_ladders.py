"""A bot's ladder entries through the API: join, leave, pause, resume; who may; what shows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from api.health import probe_due
from bots.server import BotApp, BotServer
from ladder import matchmaking as mm
from ladder.accounts import now_utc
from ladder.registry import OWNER_PAUSE, join_house_bots

GAME = "toy-race"
DUO = "tokaido-duo"


@pytest.fixture
def served():
    """Start loopback random bots on demand (each its own URL); stopped at the end."""
    servers = []

    def start(seed=1, port=0):
        server = BotServer(BotApp("random", None, seed), port=port).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def register(client, url, name="mybot", games=(GAME,), **extra):
    answer = client.post("/api/v1/bots", json={"name": name, "url": url, "games": list(games),
                                               **extra})
    assert answer.status_code == 201, answer.json
    return answer.json["id"]


def entry(client, bot_id, game=GAME):
    answer = client.get(f"/api/v1/bots/{bot_id}/ladders")
    assert answer.status_code == 200, answer.json
    return {e["game"]: e for e in answer.json["items"]}.get(game)


def put(client, bot_id, body, game=GAME):
    return client.http.put(f"/api/v1/bots/{bot_id}/ladders/{game}", json=body,
                           headers=client.headers())


def test_a_registered_bot_joins_its_ladders_with_house_opponents(anon, served):
    alice = anon.owner("alice")
    bot_id = register(alice, served().url, games=[DUO])
    mine = entry(alice, bot_id, DUO)
    assert mine["active"] and not mine["paused"] and mine["paused_reason"] is None
    assert mine["placement_remaining"] == 10 and mine["provisional"] and mine["byes"] == 0
    engine = anon.app.extensions["referee"].engine
    result = mm.tick(engine)  # alice's bot, random and greedy: a round is planned
    assert result.opened and result.enqueue
    names = {b["name"]: b["id"] for b in anon.get("/api/v1/bots").json["items"]}
    detail = anon.get(f"/api/v1/rounds/{result.opened[0]}").json
    seated = {b["id"] for f in detail["fixtures"] for b in f["bots"]}
    seated |= {b["bot"]["id"] for b in detail["byes"]}
    assert seated == {bot_id, names["random"], names["greedy"]}  # not mcts: too costly


def test_opting_out_then_joining_leaving_pausing_resuming(anon, served):
    alice = anon.owner("alice")
    bot_id = register(alice, served().url, ladder=False)
    assert alice.get(f"/api/v1/bots/{bot_id}/ladders").json == {"items": []}
    answer = put(alice, bot_id, {"paused": True})
    assert answer.status_code == 409 and "join it first" in answer.json["message"]

    answer = put(alice, bot_id, {"active": True})
    assert answer.status_code == 200 and answer.json["active"] and answer.json["provisional"]
    answer = put(alice, bot_id, {"paused": True})
    assert answer.status_code == 200 and answer.json["paused_reason"] == OWNER_PAUSE
    since = answer.json["paused_at"]
    assert since is not None
    again = put(alice, bot_id, {"paused": True}).json
    assert again["paused_reason"] == OWNER_PAUSE and again["paused_at"] == since  # still since then
    answer = put(alice, bot_id, {"paused": False})
    assert answer.status_code == 200 and not answer.json["paused"]
    assert answer.json["paused_at"] is None
    answer = put(alice, bot_id, {"active": False})
    assert answer.status_code == 200 and not answer.json["active"]
    assert put(alice, bot_id, {"active": True}).json["active"]  # re-join: same entry
    assert entry(alice, bot_id)["placement_remaining"] == 10


def test_a_health_pause_is_lifted_by_probes_not_by_the_owner(anon, served):
    svc = anon.app.extensions["referee"]
    alice = anon.owner("alice")
    server = served(3)
    bot_id = register(alice, server.url)
    server.stop()
    clock = now_utc()
    for hour in range(1, 4):
        probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
    assert entry(alice, bot_id)["paused_reason"].startswith("health:")
    answer = put(alice, bot_id, {"paused": False})
    assert answer.status_code == 409 and "2 good probes" in answer.json["message"]
    # the owner's pause replaces the health pause: good probes then leave it paused
    assert put(alice, bot_id, {"paused": True}).json["paused_reason"] == OWNER_PAUSE
    served(3, port=server.port)
    for hour in range(4, 7):
        probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
    assert entry(alice, bot_id)["paused_reason"] == OWNER_PAUSE
    assert put(alice, bot_id, {"paused": False}).json["paused"] is False


def test_a_resume_counts_as_a_rest_for_the_owner_and_the_health_rules(anon, served):
    """Both resume paths set last_rest to the latest round (the resumed bot does not take the
    next bye)."""
    from sqlalchemy import select

    from ladder.models import LadderEntry

    svc = anon.app.extensions["referee"]
    alice, bob = anon.owner("alice"), anon.owner("bob")
    a = register(alice, served(1).url, name="a")
    server = served(2)
    b = register(bob, server.url, name="b")
    mm.tick(svc.engine)

    def last_rest(bot):
        with svc.engine.connect() as conn:
            return conn.execute(select(LadderEntry.last_rest).where(
                LadderEntry.bot_id == bot, LadderEntry.game == GAME)).scalar_one()

    def forget_rest(bot):
        with svc.engine.begin() as conn:
            conn.execute(LadderEntry.__table__.update().where(LadderEntry.bot_id == bot)
                         .values(last_rest=-5))

    put(alice, a, {"paused": True})
    mm.tick(svc.engine)
    latest = max(r["number"] for r in anon.get("/api/v1/rounds").json["items"])
    assert latest >= 1
    forget_rest(a)
    put(alice, a, {"paused": False})
    assert last_rest(a) == latest

    server.stop()
    clock = now_utc()
    for hour in range(1, 4):
        probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
    assert entry(bob, b)["paused"]
    forget_rest(b)
    served(2, port=server.port)
    for hour in range(4, 6):
        probe_due(svc.engine, svc.policy, clock + timedelta(hours=hour))
    assert not entry(bob, b)["paused"] and last_rest(b) == latest


def test_who_may_and_what_is_refused(anon, served):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    bot_id = register(alice, served().url)
    assert put(anon, bot_id, {"active": True}).status_code == 401
    assert anon.get(f"/api/v1/bots/{bot_id}/ladders").status_code == 401
    assert put(bob, bot_id, {"active": True}).status_code == 403
    assert bob.get(f"/api/v1/bots/{bot_id}/ladders").status_code == 403
    assert put(alice, 999_999, {"active": True}).status_code == 404
    assert put(alice, bot_id, {"active": True}, game="no-such-game").status_code == 404
    answer = put(alice, bot_id, {"active": True}, game=DUO)
    assert answer.status_code == 409 and "does not play" in answer.json["message"]
    for body in ({}, {"active": "maybe"}, {"active": True, "extra": 1}, [1]):
        assert put(alice, bot_id, body).status_code == 422, body
    answer = alice.get(f"/api/v1/bots/{bot_id}/ladders?x=1")
    assert answer.status_code == 422
    house = {b["name"]: b["id"] for b in anon.get("/api/v1/bots").json["items"]}["random"]
    assert put(alice, house, {"active": False}).status_code == 403
    assert alice.delete(f"/api/v1/bots/{bot_id}").status_code == 204
    answer = put(alice, bot_id, {"active": True})
    assert answer.status_code == 409 and "retired" in answer.json["message"]
    assert entry(alice, bot_id)["paused_reason"] == "retired"  # still readable


def test_house_bots_join_only_ladders_with_an_owners_bot(make_service, served):
    from service.conftest import Client

    app = make_service(house_ladders=("random",))
    engine = app.extensions["referee"].engine
    assert join_house_bots(engine, ("random",)) == []  # no owner's bot anywhere yet
    alice = Client(app).owner("alice")
    mine = register(alice, served().url)
    names = {b["name"]: b["id"] for b in Client(app).get("/api/v1/bots").json["items"]}
    assert mm.placement_left(engine, GAME).keys() == {names["random"], mine}
    house = {b["name"]: b["games"] for b in Client(app).get("/api/v1/bots").json["items"]
             if b["house"]}
    made = join_house_bots(engine, ("random", "greedy", "mcts"))  # random is on already
    assert made == [(n, GAME) for n in ("greedy", "mcts") if GAME in house[n]]
    assert join_house_bots(engine, ("random", "greedy", "mcts")) == []


def test_the_house_ladders_setting(monkeypatch):
    from api.config import ServiceConfig

    monkeypatch.setenv("REFEREE_HOUSE_LADDERS", "random, mcts")
    assert ServiceConfig.from_env().house_ladders == ("random", "mcts")
    monkeypatch.setenv("REFEREE_HOUSE_LADDERS", "")
    assert ServiceConfig.from_env().house_ladders == ()
    monkeypatch.setenv("REFEREE_HOUSE_LADDERS", "random,alphazero")
    with pytest.raises(ValueError, match="alphazero is not a house bot"):
        ServiceConfig.from_env()
    monkeypatch.delenv("REFEREE_HOUSE_LADDERS")
    assert ServiceConfig.from_env().house_ladders == ("random", "greedy")


def test_the_ladders_follow_the_bots_games(anon, served):
    alice = anon.owner("alice")
    bot_id = register(alice, served().url)  # on the toy-race ladder
    answer = alice.patch(f"/api/v1/bots/{bot_id}", json={"games": [GAME, DUO]})
    assert answer.status_code == 200, answer.json
    assert entry(alice, bot_id, DUO)["active"]  # a ladder player joins its new game's ladder
    alice.patch(f"/api/v1/bots/{bot_id}", json={"games": [DUO]})
    assert not entry(alice, bot_id, GAME)["active"] and entry(alice, bot_id, DUO)["active"]

    bob = anon.owner("bob")
    other = register(bob, served(2).url, name="bobbot", ladder=False)
    bob.patch(f"/api/v1/bots/{other}", json={"games": [GAME, DUO]})
    assert bob.get(f"/api/v1/bots/{other}/ladders").json["items"] == []  # it opted out


def test_provisional_is_placement_on_a_living_ladder_else_fewer_than_10_games(anon):
    from sqlalchemy import update

    from api.runner import run_match
    from ladder.models import Bot, LadderEntry
    from ladder.work import rotations, schedule

    from service.conftest import fast_bot

    svc = anon.app.extensions["referee"]
    other = fast_bot(svc.engine)
    for pk in schedule(svc.engine, GAME, rotations([1, other], 4, "p"), rated=True):
        run_match(svc.engine, pk, svc.policy, lease_s=30)

    def sections():
        board = anon.get(f"/api/v1/leaderboards/{GAME}").json
        return ({r["bot"]["id"]: r["placement_left"] for r in board["items"]},
                {r["bot"]["id"]: r["placement_left"] for r in board["provisional"]})

    assert sections() == ({}, {1: None, other: None})  # no entries: 4 games < 10
    mm.join(svc.engine, 1, GAME)  # 4 rated games already: placed at once
    assert sections() == ({1: 0}, {other: None})
    with svc.engine.begin() as conn:  # a new version re-enters placement: 5 games
        conn.execute(update(Bot).where(Bot.id == 1).values(version=Bot.version + 1,
                                                             updated_at=now_utc()))
    assert sections() == ({}, {1: 5, other: None})
    with svc.engine.begin() as conn:
        conn.execute(update(LadderEntry).where(LadderEntry.bot_id == 1)
                     .values(placement_remaining=3, version=2))
    assert sections() == ({}, {1: 3, other: None})
    page = anon.http.get("/bots/1").get_data(as_text=True)
    assert "3 placement games left" in page
