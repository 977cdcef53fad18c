"""The OpenAPI document states the constraints the server enforces, and the server enforces
what the document states: distinct bots in a challenge, a checked game the bot plays, a
ladder entry body with `active` or `paused`, a bot URL without credentials."""

from __future__ import annotations

import re

import marshmallow as ma
import pytest
from hypothesis import given, strategies as st

from api.schemas import URL_PATTERN, URL_SHAPE, bot_create_schema, challenge_create_schema


@pytest.fixture
def document(anon):
    return anon.get("/api/openapi.json").json


def test_the_document_states_the_constraints(document, app):
    schemas, paths = document["components"]["schemas"], document["paths"]
    bots = schemas["ChallengeCreate"]["properties"]["bots"]
    assert bots["uniqueItems"] is True and "distinct" in bots["description"]
    assert "tokaido-duo: 2" in bots["description"]
    check = paths["/api/v1/bots/{bot_id}/check"]["post"]
    game = next(p for p in check["parameters"] if p["name"] == "game")
    assert game["schema"]["enum"] == app.extensions["referee"].games
    assert "one of the bot's `games`" in game["description"]
    assert {"200", "202", "409"} <= set(check["responses"])
    assert "Location" in check["responses"]["202"]["headers"]
    body = paths["/api/v1/bots/{bot_id}/ladders/{game}"]["put"]["requestBody"]
    whole = body["content"]["application/json"]["schema"]
    assert whole["minProperties"] == 1
    assert whole["allOf"] == [{"$ref": "#/components/schemas/LadderEntryBody"}]
    url = schemas["BotCreate"]["properties"]["url"]
    assert url["pattern"] == URL_PATTERN and "without credentials" in url["description"]
    assert schemas["BotUpdate"]["properties"]["url"]["pattern"] == URL_PATTERN
    state = schemas["CheckOut"]["properties"]["state"]
    assert state["enum"] == ["queued", "running", "done", "failed"]


def test_the_server_refuses_what_the_document_refuses(anon, bot_url):
    alice = anon.owner("alice")
    bot = alice.post("/api/v1/bots", json={"name": "a", "url": bot_url,
                                           "games": ["toy-race"]}).json
    twice = alice.post("/api/v1/challenges", json={"game": "toy-race",
                                                   "bots": [bot["id"], bot["id"]]})
    assert twice.status_code == 422 and "only one seat" in str(twice.json["errors"])
    empty = alice.http.put(f"/api/v1/bots/{bot['id']}/ladders/toy-race", json={},
                           headers=alice.headers())
    assert empty.status_code == 422 and "`active`" in str(empty.json["errors"])
    secret = bot_url.replace("http://", "http://user:pw@")
    refused = alice.post("/api/v1/bots", json={"name": "b", "url": secret,
                                               "games": ["toy-race"]})
    assert refused.status_code == 422 and "credentials" in refused.json["message"]
    assert alice.post(f"/api/v1/bots/{bot['id']}/check?game=tokaido-duo").status_code == 422


def _loads(schema: type[ma.Schema], body: dict) -> bool:
    try:
        schema().load(body)
    except ma.ValidationError:
        return False
    return True


@given(st.text(alphabet=st.sampled_from("htps:/@?#ab1.-:8 \t%"), max_size=40)
       .map(lambda tail: "http" + tail))
def test_a_url_the_document_allows_passes_the_validation_and_the_policy_refuses_the_rest(url):
    """The body's validation accepts what the documented pattern allows; what else it
    accepts (URLs with credentials) the URL policy refuses (the same 422)."""
    from referee.netpolicy import BlockedUrl, UrlPolicy

    schema = bot_create_schema(["toy-race"])
    accepted = _loads(schema, {"name": "a", "url": url, "games": ["toy-race"]})
    documented = bool(re.search(URL_PATTERN, url))
    assert accepted == bool(re.search(URL_SHAPE, url))
    if accepted and not documented:
        assert "@" in url
        with pytest.raises(BlockedUrl):
            UrlPolicy().split(url)


@given(st.lists(st.integers(1, 6), max_size=6))
def test_challenge_bots_pass_exactly_when_distinct_and_one_to_four(ids):
    """One bot passes the body's validation (a solo challenge: whether the game has a solo
    mode and the level is given is the next check's, also a 422)."""
    schema = challenge_create_schema(["toy-race"])
    accepted = _loads(schema, {"game": "toy-race", "bots": ids})
    assert accepted == (1 <= len(ids) <= 4 and len(set(ids)) == len(ids))
