"""`GET /api/v1/matches/{id}/frames`: a finished match's spectator frames, under the log's
publication rule, cached, gzip, strong ETag; and a service match's log replays as stored."""

from __future__ import annotations

import gzip
import json

import pytest

from api.replays import FRAMES, FramesCache, encode
from referee.frames import build_frames
from referee.replay import replay

from service.conftest import drain


def finished_challenge(anon, bot_url, game="tokaido-duo", games=2):
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                            "games": [game]}).json["id"]
    answer = alice.post("/api/v1/challenges", json={"game": game, "bots": [mine, 1],
                                                    "games": games})
    assert answer.status_code == 202, answer.json
    return answer.json["match_ids"]


@pytest.mark.parametrize("game", ["tokaido-duo", "doubletrack"])
def test_the_frames_are_those_of_the_served_log(app, anon, bot_url, second_bot_url, game):
    """Played by the real runner against a real HTTP bot, stored, served: the log replays
    to its result (its board's key order kept), and the frames are built from it."""
    if game == "doubletrack":
        alice = anon.owner("alice")
        ids = [alice.post("/api/v1/bots", json={"name": f"b{n}", "url": url,
                                                "games": [game]}).json["id"]
               for n, url in enumerate([bot_url, second_bot_url])]
        match_ids = alice.post("/api/v1/challenges", json={"game": game, "bots": ids + [1],
                                                           "games": 3}).json["match_ids"]
    else:
        match_ids = finished_challenge(anon, bot_url, game)
    assert set(drain(app)) == {"finished"}
    for pk in match_ids:
        log = anon.get(f"/api/v1/matches/{pk}/log").json
        assert replay(log).matches, replay(log).differences
        answer = anon.get(f"/api/v1/matches/{pk}/frames")
        assert answer.status_code == 200 and answer.mimetype == "application/json"
        assert answer.json == json.loads(json.dumps(build_frames(log)))
        assert "immutable" in answer.headers["Cache-Control"]


def test_frames_are_gzip_with_an_etag_known_before_they_are_built(app, anon, bot_url):
    pk = finished_challenge(anon, bot_url)[0]
    drain(app)
    zipped = anon.get(f"/api/v1/matches/{pk}/frames", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data))["format"] == "referee-frames"
    etag = zipped.headers["ETag"]
    assert anon.get(f"/api/v1/matches/{pk}/frames").headers["ETag"] == etag
    again = anon.get(f"/api/v1/matches/{pk}/frames", headers={"If-None-Match": f'"x", {etag}'})
    assert again.status_code == 304 and again.data == b""


def test_no_frames_before_the_log_is_public(app, anon, bot_url):
    from api.runner import run_match

    first, second = finished_challenge(anon, bot_url)
    assert anon.get(f"/api/v1/matches/{first}/frames").status_code == 409  # scheduled
    svc = app.extensions["referee"]
    assert run_match(svc.engine, first, svc.policy, lease_s=30) == "finished"
    blocked = anon.get(f"/api/v1/matches/{first}/frames")
    assert blocked.status_code == 409 and "sharing its seed" in blocked.json["message"]
    assert run_match(svc.engine, second, svc.policy, lease_s=30) == "finished"
    assert anon.get(f"/api/v1/matches/{first}/frames").status_code == 200


def test_unknown_voided_and_unreplayable_matches(app, anon):
    from arena import MatchDescription, Seat, play_match
    from ladder.store import record_match
    from ladder.work import schedule, void

    engine = app.extensions["referee"].engine
    assert anon.get("/api/v1/matches/999/frames").status_code == 404
    [pk] = schedule(engine, "tokaido-duo", [([1, 2], 5, None)], rated=False)
    void(engine, pk, "test")
    assert anon.get(f"/api/v1/matches/{pk}/frames").status_code == 404
    log = play_match(MatchDescription("tokaido-duo", (Seat("random"), Seat("random")), 3,
                                      match_id="tampered")).log
    log["decisions"][4]["choice"] = "nonsense"  # a log this server cannot replay
    record_match(engine, log, bots={0: "ta", 1: "tb"})
    tampered = anon.get("/api/v1/matches").json["items"][0]["id"]
    answer = anon.get(f"/api/v1/matches/{tampered}/frames")
    assert answer.status_code == 409 and "cannot be replayed" in answer.json["message"]


def test_frames_are_built_once_per_process(app, anon, bot_url, monkeypatch):
    from api import replays

    pk = finished_challenge(anon, bot_url)[0]
    drain(app)
    calls = []
    real = replays.build_frames
    monkeypatch.setattr(replays, "build_frames", lambda log: calls.append(1) or real(log))
    for _ in range(3):
        assert anon.get(f"/api/v1/matches/{pk}/frames").status_code == 200
    assert len(calls) == 1 and len(FRAMES) >= 1


def test_the_cache_keeps_the_most_recently_used_within_its_budget(monkeypatch):
    """Sizes made exact with a stand-in log store: 100-byte frames, a 250-byte budget."""
    from types import SimpleNamespace

    from api import replays

    built: list[int] = []
    sizes = {4: 300}
    monkeypatch.setattr(replays, "match_log", lambda engine, pk: (b"", f"sha{pk}"))
    monkeypatch.setattr(replays, "_build", lambda pk, gz: built.append(pk) or
                        (b"x" * sizes.get(pk, 100), {}))
    cache, db = FramesCache(max_bytes=250), SimpleNamespace(url="db")
    for pk in (0, 1, 2):
        cache.get(db, pk)
    assert [k[1] for k in cache._items] == [1, 2]  # the oldest went
    cache.get(db, 1)  # a hit: now the most recent
    cache.get(db, 3)
    assert [k[1] for k in cache._items] == [1, 3] and built == [0, 1, 2, 3]
    assert cache.get(db, 4).gz == b"x" * 300  # served, but over the whole budget: not kept
    assert [k[1] for k in cache._items] == [1, 3] and cache._bytes == 200


@pytest.mark.parametrize("value", [0.4, 12.345, 0.0, 1e-05, 5e-07, 0.0001, 1e16, 2 ** 70,
                                   float("nan"), "face-down 3e-", "\u2028\x1f<&>"])
def test_frames_are_written_as_the_standard_encoder_writes_them(value):
    """The frames' bytes are those of ``json.dumps`` (compact, UTF-8), whichever encoder wrote
    them: floats under 1e-4 and NaN (which orjson writes otherwise), integers past 64 bits
    (which it refuses) and strings that look like them included."""
    doc = build_frames(play_log())
    doc["frames"][1]["decisions"][0]["ms"] = value
    doc["match"]["options"] = {1: value, "s": [value]}
    log_text = json.dumps({"ms": value}).encode()
    assert encode(doc, log_text) == json.dumps(doc, separators=(",", ":"),
                                               ensure_ascii=False).encode()


def play_log():
    from referee import play

    return play("tokaido-duo", ["random", "random"], seed=3).log
