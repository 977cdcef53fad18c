"""Solo on the service: challenges against Tokaido Duo's Automa, played by the real runner
over HTTP, and their bad requests."""

from __future__ import annotations

import gzip
import json

import pytest

from service.conftest import drain

DUO = "tokaido-duo"


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
        seeds.add(match["seed"])
    assert len(seeds) == 3  # one seed per game: nothing to swap alone
    margins = [g["margin"] for g in solo["matches"]]
    assert solo["mean_margin"] == pytest.approx(sum(margins) / 3, abs=1e-3)
    low, high = solo["win_interval"]
    assert 0 <= low <= solo["win_rate"] <= high <= 1 and solo["margin_interval"] > 0
    # the match page shows it like any match
    page = anon.get(f"/matches/{solo['matches'][0]['match_id']}")
    assert page.status_code == 200 and b"solo-bot" in page.data


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
