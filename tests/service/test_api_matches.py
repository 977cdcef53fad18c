"""Challenges and matches: scheduling, playing on the real runner, results, logs."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from service.conftest import Client, drain


def setup_challenge(anon, bot_url, games=2, game="toy-race"):
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": [game]}).json["id"]
    answer = alice.post("/api/v1/challenges", json={"game": game, "bots": [mine, 1],
                                                    "games": games})
    return alice, mine, answer


def test_a_challenge_is_202_with_its_matches_then_plays_out(app, anon, bot_url):
    alice, mine, answer = setup_challenge(anon, bot_url, games=4)
    assert answer.status_code == 202, answer.json
    doc = answer.json
    assert doc["status"] == "scheduled" and len(doc["match_ids"]) == 4
    assert doc["progress"] == {"scheduled": 4, "running": 0, "finished": 0, "voided": 0}
    matches = [anon.get(f"/api/v1/matches/{m}").json for m in doc["match_ids"]]
    seatings = [[s["bot"]["id"] for s in m["seats"]] for m in matches]
    assert seatings == [[mine, 1], [1, mine], [mine, 1], [1, mine]]  # swapped in pairs
    assert all(m["seed"] is None and not m["log_available"] for m in matches)
    assert drain(app) == ["finished"] * 4
    done = anon.get(f"/api/v1/challenges/{doc['id']}").json
    assert done["status"] == "finished" and done["progress"]["finished"] == 4
    tallies = {t["bot_id"]: t for t in done["results"]}
    assert tallies[mine]["games"] == tallies[1]["games"] == 4
    assert tallies[mine]["points"] + tallies[1]["points"] == pytest.approx(4)
    first = anon.get(f"/api/v1/matches/{doc['match_ids'][0]}").json
    assert first["state"] == "finished" and first["end_reason"] == "normal"
    assert first["log_available"] and first["seed"] is not None
    assert first["result"]["winners"] and first["seats"][0]["mean_ms"] is not None
    assert first["rated"] is False and first["seats"][0]["rating_change"] is None
    assert anon.get("/api/v1/leaderboards/toy-race").json["items"] == []  # unrated


def test_seed_sharing_matches_publish_no_log_until_all_are_over(app, anon, bot_url):
    """A Duo pair shares the dice: game 1's log would show game 2's rolls."""
    from api.runner import run_match

    _, _, answer = setup_challenge(anon, bot_url, games=2)
    first, second = answer.json["match_ids"]
    svc = app.extensions["referee"]
    assert run_match(svc.engine, first, svc.policy, lease_s=30) == "finished"
    assert anon.get(f"/api/v1/matches/{first}").json["seed"] is None
    blocked = anon.get(f"/api/v1/matches/{first}/log")
    assert blocked.status_code == 409 and "sharing its seed" in blocked.json["message"]
    assert anon.get(f"/api/v1/matches/{second}/log").status_code == 409  # not finished
    assert run_match(svc.engine, second, svc.policy, lease_s=30) == "finished"
    assert anon.get(f"/api/v1/matches/{first}/log").status_code == 200


def test_the_log_is_gzip_with_a_strong_etag_and_immutable(app, anon, bot_url):
    _, _, answer = setup_challenge(anon, bot_url, games=2)
    drain(app)
    match_id = answer.json["match_ids"][0]
    zipped = anon.get(f"/api/v1/matches/{match_id}/log", headers={"Accept-Encoding": "gzip"})
    assert zipped.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
    raw = gzip.decompress(zipped.data)
    log = json.loads(raw)
    assert log["format"] == "referee-match-log" and log["match_id"] == f"m{match_id}.1"
    assert zipped.headers["ETag"] == f'"{hashlib.sha256(raw).hexdigest()}"'
    assert "immutable" in zipped.headers["Cache-Control"]
    plain = anon.get(f"/api/v1/matches/{match_id}/log")
    assert "Content-Encoding" not in plain.headers and plain.data == raw
    again = anon.get(f"/api/v1/matches/{match_id}/log",
                     headers={"If-None-Match": zipped.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert all("log" not in d for d in log["decisions"])


def test_bot_log_lines_go_to_their_owner_only(app, anon):
    from bots.server import BotApp, BotServer

    class Chatty(BotApp):
        def _decide(self, msg):
            answer = super()._decide(msg)
            return {**answer, "log": f"thinking about {msg['request_id']}"}

    server = BotServer(Chatty("random", None, 3)).start()
    try:
        alice, mine, answer = setup_challenge(anon, server.url, games=2)
        drain(app)
    finally:
        server.stop()
    match_id = answer.json["match_ids"][0]
    public = json.loads(anon.get(f"/api/v1/matches/{match_id}/log").data)
    assert "thinking" not in json.dumps(public)
    own = alice.get(f"/api/v1/matches/{match_id}/seats/0/log")
    assert own.status_code == 200 and own.json["bot_id"] == mine
    assert own.json["lines"] and own.json["lines"][0]["log"].startswith("thinking about")
    bob = anon.owner("bob")
    assert bob.get(f"/api/v1/matches/{match_id}/seats/0/log").status_code == 403
    assert alice.get(f"/api/v1/matches/{match_id}/seats/1/log").status_code == 403  # house
    assert anon.get(f"/api/v1/matches/{match_id}/seats/0/log").status_code == 401
    assert alice.get(f"/api/v1/matches/{match_id}/seats/9/log").status_code == 404


def test_stderr_lines_go_to_their_owner_only_like_log_lines(app, anon, bot_url, monkeypatch):
    """A bot the referee started leaves ``stderr`` lines on its decisions (added here to the
    logs the real runner plays): the public log, frames and match page hold none of them; the
    owner's seat log has them, beside the ``log`` text where the bot sent both."""
    from api import execution

    real = execution.play

    def with_stderr(claim, policy):
        log = real(claim, policy)
        seen = set()
        for d in log["decisions"]:
            d["stderr"] = [f"STDERR-{d['step']}"]
            if d["seat"] not in seen:
                seen.add(d["seat"])
                d["log"] = "LOG-TEXT"
        return log

    monkeypatch.setattr(execution, "play", with_stderr)
    alice, mine, answer = setup_challenge(anon, bot_url, games=2)
    assert answer.status_code == 202, answer.json
    assert drain(app) == ["finished", "finished"]
    match_id = answer.json["match_ids"][0]
    seat = next(s["seat"] for s in anon.get(f"/api/v1/matches/{match_id}").json["seats"]
                if s["bot"]["id"] == mine)
    for public in (f"/api/v1/matches/{match_id}/log", f"/api/v1/matches/{match_id}/frames",
                   f"/matches/{match_id}"):
        answered = anon.get(public)
        assert answered.status_code == 200, public
        text = answered.get_data(as_text=True)
        assert "STDERR-" not in text and "LOG-TEXT" not in text, public
    lines = alice.get(f"/api/v1/matches/{match_id}/seats/{seat}/log").json["lines"]
    assert len(lines) > 1 and lines[0]["log"] == "LOG-TEXT" and lines[1]["log"] == ""
    assert [line["stderr"] for line in lines] == [[f"STDERR-{line['step']}"] for line in lines]
    assert anon.owner("bob").get(f"/api/v1/matches/{match_id}/seats/{seat}/log").status_code == 403


def test_match_filters(app, anon, bot_url):
    _, mine, answer = setup_challenge(anon, bot_url, games=2)
    drain(app)
    everything = anon.get("/api/v1/matches").json
    assert everything["total"] == 2 and everything["items"][0]["id"] == 2  # newest first
    assert anon.get(f"/api/v1/matches?bot={mine}&state=finished").json["total"] == 2
    assert anon.get("/api/v1/matches?state=running").json["total"] == 0
    assert anon.get("/api/v1/matches?rated=true").json["total"] == 0
    assert anon.get("/api/v1/matches?game=tokaido-duo").json["total"] == 0
    assert anon.get(f"/api/v1/matches?challenge={answer.json['id']}").json["total"] == 2
    for bad in ("state=lost", "rated=maybe", "bot=abc", "game=chess", "sort=id"):
        assert anon.get(f"/api/v1/matches?{bad}").status_code == 422, bad
    assert anon.get("/api/v1/matches/999999").status_code == 404
    assert anon.get("/api/v1/matches/99999999999").status_code == 404  # beyond an id: no 500
    assert anon.get("/api/v1/matches/999999/log").status_code == 404
    assert anon.get("/api/v1/challenges/999999").status_code == 404


@pytest.mark.parametrize("body, status, needle", [
    ({"game": "toy-race", "bots": [1, 3]}, 403, "one of your own"),
    ({"game": "toy-race", "bots": ["MINE", "MINE"]}, 422, "only one seat"),
    ({"game": "toy-race", "bots": ["MINE", 999]}, 404, "no bot 999"),
    ({"game": "toy-race", "bots": ["MINE", 1], "games": 3}, 422, "multiple of 2"),
    ({"game": "toy-race", "bots": ["MINE", 1], "games": 11}, 422, ""),
    ({"game": "tokaido-duo", "bots": ["MINE", 1]}, 422, "does not play tokaido-duo"),
    ({"game": "chess", "bots": ["MINE", 1]}, 422, ""),
    ({"game": "toy-race", "bots": ["MINE"]}, 422, ""),
])
def test_bad_challenges(anon, bot_url, body, status, needle):
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    body = {**body, "bots": [mine if b == "MINE" else b for b in body["bots"]]}
    answer = alice.post("/api/v1/challenges", json=body)
    assert answer.status_code == status, answer.json
    assert needle in answer.json["message"] + json.dumps(answer.json.get("errors", {}))


def test_a_retired_bot_voids_its_scheduled_matches(app, anon, bot_url):
    alice, mine, answer = setup_challenge(anon, bot_url, games=2)
    alice.delete(f"/api/v1/bots/{mine}")
    assert drain(app) == ["nothing", "nothing"]
    states = {anon.get(f"/api/v1/matches/{m}").json["void_reason"]
              for m in answer.json["match_ids"]}
    assert states == {"bot retired before the match: mine"}
    assert anon.get(f"/api/v1/matches/{answer.json['match_ids'][0]}/log").status_code == 404


def test_challenges_work_on_postgresql(make_service, pg_head_url, bot_url):
    app = make_service(pg_head_url)
    anon = Client(app)
    _, _, answer = setup_challenge(anon, bot_url, games=2)
    assert drain(app) == ["finished", "finished"]
    assert anon.get(f"/api/v1/challenges/{answer.json['id']}").json["status"] == "finished"
    assert anon.get(f"/api/v1/matches/{answer.json['match_ids'][1]}/log").status_code == 200
