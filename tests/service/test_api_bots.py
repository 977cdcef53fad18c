"""Bots: registration through the URL policy and a GET / probe; changes by the owner only."""

from __future__ import annotations

import socket

import pytest

from bots.server import BotApp, BotServer

from service.conftest import checked


def register(client, url, name="mybot", games=("toy-race",)):
    return client.post("/api/v1/bots", json={"name": name, "url": url, "games": list(games)})


def test_house_bots_exist_for_every_new_author(anon):
    names = {b["name"]: b for b in anon.get("/api/v1/bots").json["items"]}
    assert {"random", "greedy", "mcts"} <= set(names)
    assert all(names[n]["house"] and names[n]["owner"] is None for n in ("random", "greedy"))
    assert "toy-race" in names["random"]["games"] and "tokaido-duo" in names["greedy"]["games"]


def test_register_a_live_bot(anon, bot_url):
    alice = anon.owner("alice")
    answer = register(alice, bot_url + "/")
    assert answer.status_code == 201, answer.json
    bot = answer.json
    assert bot["status"] == "active" and bot["version"] == 1 and bot["url"] == bot_url
    assert bot["health"]["ok"] and bot["owner"]["name"] == "alice"
    public = anon.get(f"/api/v1/bots/{bot['id']}").json
    assert "url" not in public and "verify_nonce" not in public  # the owner's business
    assert alice.get(f"/api/v1/bots/{bot['id']}").json["url"] == bot_url
    assert [b["name"] for b in alice.get("/api/v1/me").json["bots"]] == ["mybot"]


def test_a_dead_url_is_refused_with_the_reason(anon):
    alice = anon.owner("alice")
    with socket.socket() as closed:  # bound, never listening: a connection is refused
        closed.bind(("127.0.0.1", 0))
        answer = register(alice, f"http://127.0.0.1:{closed.getsockname()[1]}")
    assert answer.status_code == 422
    assert "connection" in answer.json["message"]


def test_a_url_that_is_no_bot_is_refused(anon, bot_url):
    class NotABot(BotApp):
        def info(self):
            return {"hello": "world"}

    server = BotServer(NotABot("random", None, 1)).start()
    try:
        answer = register(anon.owner("alice"), server.url)
    finally:
        server.stop()
    assert answer.status_code == 422 and "protocol v1" in answer.json["message"]


def test_a_game_the_bot_does_not_list_is_refused(anon):
    server = BotServer(BotApp("greedy", "tokaido-duo", 1)).start()
    try:
        answer = register(anon.owner("alice"), server.url, games=["doubletrack"])
    finally:
        server.stop()
    assert answer.status_code == 422
    assert "does not list 'doubletrack'" in str(answer.json["errors"])


def test_a_taken_url_is_a_409_that_names_no_other_owners_bot(anon, bot_url, second_bot_url):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    secret = register(alice, bot_url, name="alice-secret").json
    bobs = register(bob, second_bot_url, name="bobs", games=["tokaido-duo"]).json
    for answer in (register(bob, bot_url.upper().replace("HTTP", "http") + "/", name="copy"),
                   bob.patch(f"/api/v1/bots/{bobs['id']}", json={"url": bot_url})):
        assert answer.status_code == 409
        assert answer.json["message"] == \
            "this URL is registered to another owner's bot: one URL, one owner"
        assert set(answer.json) <= {"code", "status", "message"}
    own = register(alice, bot_url, name="again")
    assert own.status_code == 409 and f"your bot {secret['id']}" in own.json["message"]
    assert anon.get(f"/api/v1/bots/{bobs['id']}").json["version"] == 1  # nothing changed


@pytest.mark.parametrize("env, networks, expected", [
    (None, "", True), ("", "", True), (None, "127.0.0.0/8", False), ("1", "127.0.0.0/8", True),
    ("on", "10.0.0.0/8", True), ("0", "", False), ("off", "", False), ("no", "", False),
])
def test_ownership_proof_is_on_by_default_when_bots_must_be_public(monkeypatch, env, networks,
                                                                   expected):
    from api.config import ServiceConfig

    if env is None:
        monkeypatch.delenv("REFEREE_OWNERSHIP_PROOF", raising=False)
    else:
        monkeypatch.setenv("REFEREE_OWNERSHIP_PROOF", env)
    monkeypatch.setenv("REFEREE_ALLOW_NETWORKS", networks)
    assert ServiceConfig.from_env().proves_ownership is expected


def test_a_bad_ownership_proof_setting_is_a_one_line_error(monkeypatch):
    from api.config import ServiceConfig

    monkeypatch.setenv("REFEREE_OWNERSHIP_PROOF", "maybe")
    with pytest.raises(ValueError, match="REFEREE_OWNERSHIP_PROOF must be 1 or 0"):
        ServiceConfig.from_env()


def test_a_public_service_asks_new_bots_for_the_proof(make_service, bot_url):
    from referee.netpolicy import UrlPolicy, parse_networks

    from service.conftest import Client

    app = make_service(allow_networks="")  # public addresses only: the proof is on ...
    svc = app.extensions["referee"]
    svc.policy = UrlPolicy(parse_networks("127.0.0.0/8"))  # ... and this test's bot on loopback
    alice = Client(app).owner("alice")
    bot = register(alice, bot_url).json
    assert bot["status"] == "unverified" and not bot["verified"] and bot["verify_nonce"]
    report = checked(alice, bot["id"])["report"]
    assert not report["ok"] and "ownership nonce" in report["problems"][0]
    assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "unverified"


def test_names_and_urls_are_unique_among_live_bots(anon, bot_url):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    assert register(alice, bot_url).status_code == 201
    assert register(bob, bot_url, name="other").status_code == 409  # same address
    assert register(bob, bot_url.replace("127.0.0.1", "127.0.0.1") + "/",
                    name="other2").status_code == 409
    clash = register(bob, bot_url, name="mybot")
    assert clash.status_code == 409
    assert register(bob, bot_url, name="random").status_code == 409  # a house bot's name


@pytest.mark.parametrize("body", [
    {"name": "x", "url": "ftp://127.0.0.1", "games": ["toy-race"]},
    {"name": "x", "url": "http://127.0.0.1", "games": []},
    {"name": "x", "url": "http://127.0.0.1", "games": ["chess"]},
    {"name": "x", "url": "not a url", "games": ["toy-race"]},
    {"name": "x\x00", "url": "http://127.0.0.1", "games": ["toy-race"]},
    {"url": "http://127.0.0.1", "games": ["toy-race"]},
    {"name": "x", "url": "http://127.0.0.1", "games": ["toy-race"], "unknown": 1},
])
def test_bad_bot_bodies_are_422(anon, body):
    assert anon.owner("alice").post("/api/v1/bots", json=body).status_code == 422


def test_only_the_owner_changes_or_retires_a_bot(anon, bot_url):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    bot_id = register(alice, bot_url).json["id"]
    assert bob.patch(f"/api/v1/bots/{bot_id}", json={"description": "mine"}).status_code == 403
    assert bob.delete(f"/api/v1/bots/{bot_id}").status_code == 403
    assert bob.post(f"/api/v1/bots/{bot_id}/check").status_code == 403
    assert bob.patch("/api/v1/bots/1", json={"description": "x"}).status_code == 403  # house
    assert bob.patch("/api/v1/bots/999999", json={"description": "x"}).status_code == 404
    assert alice.patch(f"/api/v1/bots/{bot_id}", json={"name": "random"}).status_code == 409
    assert alice.patch(f"/api/v1/bots/{bot_id}", json={"max_concurrency": 9}).status_code == 422
    assert anon.get("/api/v1/bots/999999").status_code == 404
    changed = alice.patch(f"/api/v1/bots/{bot_id}", json={"description": "mine",
                                                           "max_concurrency": 2})
    assert changed.status_code == 200 and changed.json["description"] == "mine"
    assert changed.json["version"] == 1  # no new URL, no new version
    assert alice.delete(f"/api/v1/bots/{bot_id}").status_code == 204
    assert anon.get(f"/api/v1/bots/{bot_id}").json["status"] == "retired"
    assert alice.patch(f"/api/v1/bots/{bot_id}", json={"description": "x"}).status_code == 409
    assert register(bob, bot_url, name="reuse").status_code == 201  # the address is free again


def test_a_new_url_is_probed_and_bumps_the_version(anon, bot_url, second_bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url, games=["tokaido-duo"]).json["id"]
    bad = alice.patch(f"/api/v1/bots/{bot_id}", json={"url": "http://127.0.0.1:9"})
    assert bad.status_code == 422
    moved = alice.patch(f"/api/v1/bots/{bot_id}", json={"url": second_bot_url})
    assert moved.status_code == 200 and moved.json["version"] == 2
    assert moved.json["url"] == second_bot_url
    wrong_game = alice.patch(f"/api/v1/bots/{bot_id}", json={"games": ["toy-race"],
                                                             "url": bot_url})
    assert wrong_game.status_code == 200 and wrong_game.json["version"] == 3
    refused = alice.patch(f"/api/v1/bots/{bot_id}", json={"url": second_bot_url})
    assert refused.status_code == 422  # greedy does not play toy-race


def test_list_filters_and_pagination(anon, bot_url):
    alice = anon.owner("alice")
    register(alice, bot_url)
    page = anon.get("/api/v1/bots?per_page=2&page=2").json
    assert page["page"] == 2 and page["per_page"] == 2 and page["total"] == 4
    assert len(page["items"]) == 2
    mine = anon.get(f"/api/v1/bots?owner={alice.get('/api/v1/me').json['id']}").json
    assert [b["name"] for b in mine["items"]] == ["mybot"]
    assert anon.get("/api/v1/bots?game=toy-race").json["total"] == 3  # greedy has no toy-race
    for bad in ("per_page=0", "per_page=101", "page=0", "game=chess", "status=sleepy",
                "owner=-1", "colour=red"):
        assert anon.get(f"/api/v1/bots?{bad}").status_code == 422, bad


def test_check_reports_each_call(anon, bot_url):
    alice = anon.owner("alice")
    bot_id = register(alice, bot_url).json["id"]
    check = checked(alice, bot_id, "?game=toy-race")
    assert check["state"] == "done" and check["game"] == "toy-race" and check["bot_version"] == 1
    doc = check["report"]
    assert doc["ok"] and not doc["problems"]
    calls = {c["call"]: c for c in doc["calls"]}
    assert list(calls) == ["GET /", "/start", "/decide", "/end"]
    assert all(list(c["statuses"]) == ["ok"] for c in calls.values())
    assert calls["/decide"]["count"] == doc["latency_ms"]["n"] > 0
    assert doc["latency_ms"]["p50"] is not None and doc["kinds"]
    assert alice.post(f"/api/v1/bots/{bot_id}/check?game=tokaido-duo").status_code == 422


def test_check_shows_a_bad_answer(anon):
    class Wrong(BotApp):
        def _decide(self, msg):
            return {"choice": "no-such-option"}

    server = BotServer(Wrong("random", None, 1)).start()
    try:
        alice = anon.owner("alice")
        bot_id = register(alice, server.url).json["id"]
        doc = checked(alice, bot_id)["report"]
    finally:
        server.stop()
    assert not doc["ok"]
    decide = next(c for c in doc["calls"] if c["call"] == "/decide")
    assert decide["statuses"].get("unknown_option", 0) >= 1
    assert any("unknown_option" in p and "no-such-option" in p for p in doc["problems"])


def test_ownership_proof(make_service):
    app = make_service(ownership_proof=True)
    from service.conftest import Client

    alice = Client(app).owner("alice")
    holder: dict[str, str] = {}

    class Echo(BotApp):
        def info(self):
            return {**super().info(), **({"verify": holder["nonce"]} if holder else {})}

    server = BotServer(Echo("random", None, 1)).start()
    moved = BotServer(Echo("random", None, 2)).start()
    try:
        bot = register(alice, server.url).json
        assert bot["status"] == "unverified" and bot["verify_nonce"]
        first = checked(alice, bot["id"])["report"]
        assert not first["ok"] and "verify" in first["problems"][0]
        assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "unverified"
        holder["nonce"] = bot["verify_nonce"]
        second = checked(alice, bot["id"])["report"]
        assert second["ok"]
        assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "active"
        # a new URL is proved again: the proof was of the old one
        changed = alice.patch(f"/api/v1/bots/{bot['id']}", json={"url": moved.url}).json
        assert changed["status"] == "unverified" and not changed["verified"]
        assert checked(alice, bot["id"])["report"]["ok"]
    finally:
        server.stop()
        moved.stop()
    assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "active"
