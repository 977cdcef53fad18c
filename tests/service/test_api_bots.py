"""Bots: registration through the URL policy and a GET / probe; changes by the owner only."""

from __future__ import annotations

import socket

import pytest

from bots.server import BotApp, BotServer


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
    report = alice.post(f"/api/v1/bots/{bot_id}/check?game=toy-race")
    assert report.status_code == 200, report.json
    doc = report.json
    assert doc["ok"] and doc["game"] == "toy-race" and not doc["problems"]
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
        doc = alice.post(f"/api/v1/bots/{bot_id}/check").json
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
    try:
        bot = register(alice, server.url).json
        assert bot["status"] == "unverified" and bot["verify_nonce"]
        first = alice.post(f"/api/v1/bots/{bot['id']}/check").json
        assert not first["ok"] and "verify" in first["problems"][0]
        holder["nonce"] = bot["verify_nonce"]
        second = alice.post(f"/api/v1/bots/{bot['id']}/check").json
        assert second["ok"]
    finally:
        server.stop()
    assert alice.get(f"/api/v1/bots/{bot['id']}").json["status"] == "active"
