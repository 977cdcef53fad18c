"""GET /rounds and /rounds/{id}: a round's fixtures and byes, and refusals."""

from __future__ import annotations

from ladder import matchmaking as mm

from service.matchmaking_support import add_bot, add_owner


def test_rounds_list_and_detail(app, anon):
    engine = app.extensions["referee"].engine
    for i in range(5):
        mm.join(engine, add_bot(engine, f"r{i}", add_owner(engine, f"ro{i}")), "tokaido-duo")
    mm.tick(engine)
    page = anon.get("/api/v1/rounds?game=tokaido-duo")
    assert page.status_code == 200, page.json
    assert page.json["total"] == 2 and page.json["items"][0]["number"] == 2
    first = page.json["items"][1]
    assert first["eligible"] == 5 and first["progress"]["fixtures"] == 2
    assert first["progress"]["byes"] == 1 and first["progress"]["dispatched"] == 2
    detail = anon.get(f"/api/v1/rounds/{first['id']}")
    assert detail.status_code == 200, detail.json
    seated = [b["id"] for f in detail.json["fixtures"] for b in f["bots"]]
    rested = [b["bot"]["id"] for b in detail.json["byes"]]
    assert sorted(seated + rested) == sorted(b["id"] for b in detail.json["eligible_bots"])
    assert all(len(f["matches"]) == 2 and f["games"] == 2 for f in detail.json["fixtures"])
    assert detail.json["byes"][0]["reason"] == "rotation"


def test_rounds_refuse_unknown_games_params_and_ids(anon):
    assert anon.get("/api/v1/rounds?game=chess").status_code == 422
    assert anon.get("/api/v1/rounds?colour=red").status_code == 422
    assert anon.get("/api/v1/rounds/999").status_code == 404
    assert anon.get("/api/v1/rounds/1?x=1").status_code == 422
    assert anon.get("/api/v1/rounds").json["items"] == []


def test_rounds_are_in_the_openapi_document(anon):
    doc = anon.get("/api/openapi.json").json
    assert {"/api/v1/rounds", "/api/v1/rounds/{round_id}"} <= set(doc["paths"])
    params = {p["name"] for p in doc["paths"]["/api/v1/rounds"]["get"]["parameters"]}
    assert {"game", "page", "per_page"} <= params
    assert "RoundDetailOut" in doc["components"]["schemas"]
