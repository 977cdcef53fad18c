"""Owners and tokens: created once, shown once, stored hashed, revocable, last use recorded."""

from __future__ import annotations

import hashlib

from sqlalchemy import select

from ladder.models import ApiToken


def test_an_owner_gets_a_first_token_that_works(anon):
    alice = anon.owner("alice")
    me = alice.get("/api/v1/me")
    assert me.status_code == 200
    assert me.json["name"] == "alice" and me.json["bots"] == []


def test_tokens_are_stored_as_sha256_never_in_clear(app, anon):
    alice = anon.owner("alice")
    secret = alice.token.split("_", 2)[2]
    with app.extensions["referee"].engine.connect() as conn:
        stored = conn.execute(select(ApiToken.sha256)).scalars().all()
    assert stored == [hashlib.sha256(secret.encode()).hexdigest()]


def test_a_taken_owner_name_is_a_409(anon):
    anon.owner("alice")
    again = anon.post("/api/v1/owners", json={"name": "alice"})
    assert again.status_code == 409 and "taken" in again.json["message"]


def test_bad_owner_bodies_are_422_with_the_field(anon):
    for body in ({}, {"name": ""}, {"name": "has space"}, {"name": "x" * 65},
                 {"name": "ok", "extra": 1}, {"name": "ok", "email": "not-an-email"}):
        answer = anon.post("/api/v1/owners", json=body)
        assert answer.status_code == 422, body
        assert answer.json["errors"]["json"]


def test_mint_list_and_revoke_tokens(anon):
    alice = anon.owner("alice")
    minted = alice.post("/api/v1/me/tokens", json={"name": "ci"})
    assert minted.status_code == 201 and minted.json["token"].startswith("rk_")
    listed = alice.get("/api/v1/me/tokens").json["items"]
    assert [t["name"] for t in listed] == ["first token", "ci"]
    assert all("token" not in t for t in listed)
    assert listed[0]["last_used_at"] is not None  # used by this very request
    second = type(alice)(alice.app, minted.json["token"])
    assert second.get("/api/v1/me").status_code == 200
    revoked = alice.delete(f"/api/v1/me/tokens/{minted.json['id']}")
    assert revoked.status_code == 204
    assert second.get("/api/v1/me").status_code == 401
    assert alice.get("/api/v1/me/tokens").json["items"][1]["revoked_at"] is not None


def test_another_owners_token_cannot_be_revoked(anon):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    bobs = bob.get("/api/v1/me/tokens").json["items"][0]["id"]
    assert alice.delete(f"/api/v1/me/tokens/{bobs}").status_code == 404
    assert bob.get("/api/v1/me").status_code == 200


def test_missing_malformed_and_wrong_tokens_are_401(anon):
    alice = anon.owner("alice")
    token_id = alice.token.split("_")[1]
    for header in ({}, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"},
                   {"Authorization": "Bearer nonsense"},
                   {"Authorization": f"Bearer rk_{token_id}_{'A' * 43}"},
                   {"Authorization": "Bearer rk_999_" + "B" * 43}):
        answer = anon.http.get("/api/v1/me", headers=header)
        assert answer.status_code == 401, header
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        assert answer.json["message"]


def test_every_write_needs_a_token(app, anon):
    """Every POST, PATCH, PUT and DELETE of the document answers 401 without a token
    (except creating an owner, which is how one gets a token)."""
    doc = anon.get("/api/openapi.json").json
    writes = [(path, method) for path, item in doc["paths"].items()
              for method in item if method in ("post", "patch", "put", "delete")]
    assert len(writes) >= 7
    for path, method in writes:
        if path == "/api/v1/owners":
            assert "security" not in doc["paths"][path][method]
            continue
        assert doc["paths"][path][method]["security"] == [{"bearer": []}], path
        concrete = path.replace("{bot_id}", "1").replace("{token_id}", "1") \
            .replace("{match_id}", "1").replace("{game}", "toy-race").replace("{level}", "1")
        answer = anon.http.open(concrete, method=method.upper(), json={})
        assert answer.status_code == 401, (method, path, answer.json)
