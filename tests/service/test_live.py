"""Live spectating: a running match's frames while it plays, only when no match sharing its
seed is unfinished, nothing a spectator may not see; published in memory (the embedded
server) or through the real Redis at ``REFEREE_TEST_REDIS`` (production)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from api import live
from arena import MatchDescription, Seat, play_match
from bots.server import BotApp, BotServer
from ladder import LadderError
from ladder.live import MemoryProgress, RedisProgress, Snapshot
from ladder.newmatches import MatchSettings
from ladder.work import schedule
from referee.frames import build_frames, build_live
from referee.match import Runner

from support.redis_service import REDIS, redis_ok

WAIT_S = 20.0
"""A generous bound on every wait: the test fails, never hangs."""
NOTE = "my-secret-plan"


class GatedBot(BotApp):
    """The built-in random bot behind HTTP that answers each ``/decide`` only when the test
    lets it (one permit a decision), with a note of its own that spectators must not see."""

    def __init__(self) -> None:
        super().__init__("random", None, 7)
        self.gate = threading.Semaphore(0)
        self.asked = threading.Semaphore(0)

    def _decide(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.asked.release()
        if not self.gate.acquire(timeout=WAIT_S):
            raise RuntimeError("the test never opened the gate")
        return {**super()._decide(msg), "log": NOTE}

    def wait_asked(self) -> None:
        assert self.asked.acquire(timeout=WAIT_S), "the bot was not asked"

    def open(self) -> None:
        self.gate.release(100_000)


@pytest.fixture
def gated() -> Iterator[tuple[GatedBot, str]]:
    bot = GatedBot()
    server = BotServer(bot).start()
    yield bot, server.url
    bot.open()
    server.stop()


@pytest.fixture
def memory(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryProgress]:
    monkeypatch.setattr(live, "EVERY_S", 0.01)
    progress = MemoryProgress()
    live.use(progress)
    yield progress
    live.use(None)


def until(probe: Callable[[], Any]) -> Any:
    """``probe()`` once it is truthy, within :data:`WAIT_S`."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        got = probe()
        if got:
            return got
        time.sleep(0.01)
    raise AssertionError("timed out")


def started(app: Any, pk: int) -> threading.Thread:
    from api.runner import run_match

    svc = app.extensions["referee"]
    thread = threading.Thread(target=run_match, args=(svc.engine, pk, svc.policy),
                              kwargs={"lease_s": 30}, daemon=True)
    thread.start()
    return thread


def test_a_pair_is_live_only_once_the_other_game_is_over(app, anon, gated, memory):
    bot, url = gated
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "slow", "url": url,
                                            "games": ["tokaido-duo"]}).json["id"]
    engine = app.extensions["referee"].engine
    first, second = schedule(engine, "tokaido-duo", [([mine, 1], 11, "p1"), ([1, mine], 11, "p1")],
                             rated=False, settings=MatchSettings(time_ms=60_000))
    waiting = anon.get(f"/api/v1/matches/{first}/live").json
    assert waiting["state"] == "scheduled" and waiting["frames"] == []

    # the first game plays while the second, on the same dice, has not: nothing is shown
    playing = started(app, first)
    bot.wait_asked()
    refused = anon.get(f"/api/v1/matches/{first}/live")
    assert refused.status_code == 409
    assert "live after the pair ends" in refused.json["message"]
    assert f"match {second}" in refused.json["message"]
    page = anon.get(f"/matches/{first}").get_data(as_text=True)
    assert "Live after the pair ends" in page and "data-referee-live" not in page
    bot.open()
    playing.join(WAIT_S)
    assert not playing.is_alive()

    # the second game, its pair's other game over: watched as it plays
    bot.gate, bot.asked = threading.Semaphore(0), threading.Semaphore(0)  # none left over
    playing = started(app, second)
    bot.wait_asked()
    now = until(lambda: (r := anon.get(f"/api/v1/matches/{second}/live")).json.get("total")
                and r)
    assert now.status_code == 200 and now.headers["Cache-Control"] == "no-store"
    doc = now.json
    assert doc["state"] == "running" and doc["attempt"] == 1 and doc["match"]["result"] is None
    assert doc["format"] == "referee-frames" and doc["frames"][0]["ply"] == 0
    before = doc["total"]
    page = anon.get(f"/matches/{second}").get_data(as_text=True)
    assert "state-live" in page and "data-referee-live" in page and "rv-viewer" in page

    bot.gate.release()  # one more decision of the bot: the frames grow
    bot.wait_asked()
    grown = until(lambda: (r := anon.get(f"/api/v1/matches/{second}/live?since={before}"))
                  .json["total"] > before and r).json
    assert grown["since"] == before and grown["frames"][0]["ply"] == before
    assert "match" not in grown  # the header comes with since=0 only
    seen = anon.get(f"/api/v1/matches/{second}/live").get_data(as_text=True)
    assert NOTE not in seen and '"seed"' not in seen
    # the bot's answer (seat 1), with its note, is in the runner's log: not in what is kept
    published = until(lambda: (p := memory.latest(second)) and b'"seat":1' in p.log_json and p)
    assert NOTE.encode() not in published.log_json
    shown = json.loads(seen)["frames"]

    bot.open()
    playing.join(WAIT_S)
    assert not playing.is_alive()
    over = anon.get(f"/api/v1/matches/{second}/live").json
    assert over["state"] == "finished" and over["frames"] == []
    # what was shown live is exactly the start of the finished match's spectator frames
    stored = build_frames(anon.get(f"/api/v1/matches/{second}/log").json)["frames"]
    assert json.loads(json.dumps(stored[:len(shown)])) == shown
    assert live.process_progress().latest(second) is None  # forgotten once played


def test_a_match_without_a_sibling_is_live_at_once(app, anon, gated, memory):
    bot, url = gated
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "slow", "url": url,
                                            "games": ["tokaido-duo"]}).json["id"]
    engine = app.extensions["referee"].engine
    [pk] = schedule(engine, "tokaido-duo", [([mine, 1], 5, None)], rated=False,
                    settings=MatchSettings(time_ms=60_000))
    playing = started(app, pk)
    bot.wait_asked()
    doc = until(lambda: anon.get(f"/api/v1/matches/{pk}/live").json.get("total") and
                anon.get(f"/api/v1/matches/{pk}/live").json)
    assert doc["frames"][0]["view"] and doc["total"] >= 1
    assert anon.get(f"/api/v1/matches/{pk}/live?since=x").status_code == 422
    assert anon.get(f"/api/v1/matches/{pk}/live?foo=1").status_code == 422
    assert anon.get("/api/v1/matches/999/live").status_code == 404
    bot.open()
    playing.join(WAIT_S)


def test_a_stale_attempt_shows_nothing(app, anon, memory):
    """A snapshot left by an earlier attempt (its worker died) is not the match now."""
    from ladder.work import claim

    engine = app.extensions["referee"].engine
    [pk] = schedule(engine, "tokaido-duo", [([1, 2], 5, None)], rated=False)
    claim(engine, pk, "w", 30)
    memory.publish(pk, Snapshot(0, b"{}"))
    doc = anon.get(f"/api/v1/matches/{pk}/live").json
    assert doc["total"] == 0 and doc["frames"] == [] and "match" not in doc
    page = anon.get(f"/matches/{pk}").get_data(as_text=True)
    assert "The match is starting" in page and "data-referee-live" in page  # it polls


def redis_progress() -> RedisProgress:
    redis_ok()
    return RedisProgress(REDIS, prefix=f"referee:test-{secrets.token_hex(4)}:live")


def test_progress_is_published_through_redis():
    """A worker's publisher writes the runner's log so far to Redis; another process builds
    the same spectator frames from it as from the finished log; the key expires, and goes
    when the match is over."""
    progress = redis_progress()
    publisher = live.Publisher(progress, 77, 2)
    runners: list[Runner] = []
    record = play_match(MatchDescription("doubletrack", (Seat("random"), Seat("greedy"),
                                                         Seat("random")), 3),
                        watch=runners.append)
    assert progress.latest(77) is None
    publisher._runner = runners[0]  # as if watched: the watcher's next look, now
    publisher.publish()
    found = progress.latest(77)
    assert found is not None and found.attempt == 2
    assert progress._redis.ttl(f"{progress.prefix}:77") > 0
    doc = build_live(json.loads(found.log_json))
    assert doc["frames"] == build_frames(record.log)["frames"]
    progress.drop(77, 1)  # another attempt's: kept
    assert progress.latest(77) is not None
    publisher.close()
    assert progress.latest(77) is None
    publisher.publish()  # a look in flight when the match ended publishes nothing
    assert progress.latest(77) is None


def test_the_process_store_follows_a_redis_broker(monkeypatch):
    from api import relays

    redis_progress()
    monkeypatch.setattr(relays, "_relay", None)
    monkeypatch.setattr(relays, "_settings", (REDIS, "q"))
    live.use(None)
    try:
        assert isinstance(live.process_progress(), RedisProgress)
        assert live.unavailable("celery") is None
        monkeypatch.setattr(relays, "_settings", ("memory://", "q"))
        assert isinstance(live.process_progress(), MemoryProgress)  # the broker changed
        assert "need Redis" in (live.unavailable("celery") or "")
        assert live.unavailable("embedded") is None
    finally:
        live.use(None)


def test_a_dead_store_never_stops_the_match():
    dead = RedisProgress("redis://127.0.0.1:1/0")
    with pytest.raises(LadderError):
        dead.latest(1)
    publisher = live.Publisher(dead, 1, 1)
    runners: list[Runner] = []
    record = play_match(MatchDescription("tokaido-duo", (Seat("random"), Seat("random")), 3),
                        watch=runners.append)
    publisher._runner = runners[0]
    publisher.publish()  # logged, not raised
    publisher.close()
    assert record.result is not None


def test_the_match_page_follows_a_live_match_then_shows_its_replay(app, gated, memory, page):
    """In Chromium: the page opens at the latest frame with a live badge, the viewer grows
    as the bot decides, and when the match is over the page shows the stored replay."""
    from werkzeug.serving import make_server

    bot, url = gated
    anon = app.test_client()
    token = anon.post("/api/v1/owners", json={"name": "alice"}).json["token"]
    mine = anon.post("/api/v1/bots", json={"name": "slow", "url": url, "games": ["tokaido-duo"]},
                     headers={"Authorization": f"Bearer {token}"}).json["id"]
    [pk] = schedule(app.extensions["referee"].engine, "tokaido-duo", [([mine, 1], 5, None)],
                    rated=False, settings=MatchSettings(time_ms=60_000))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    playing = started(app, pk)
    try:
        bot.wait_asked()
        until(lambda: (p := memory.latest(pk)) and b'"seat":0' in p.log_json)
        page.goto(f"http://127.0.0.1:{server.server_port}/matches/{pk}")
        root = "[data-referee-viewer]"
        page.wait_for_selector(f"{root}[data-mounted] svg")
        assert page.is_visible(".state-live")
        # the frame shown and how many there are, read together (the page polls every second)
        where = ("(() => { const v = document.querySelector('[data-referee-viewer]');"
                 " return [Number(v.getAttribute('data-ply')), v.viewer.frames.length]; })()")
        ply, held = until(lambda: (n := page.evaluate(where))[0] == n[1] - 1 and n)  # latest
        bot.gate.release()
        bot.wait_asked()
        until(lambda: page.evaluate(where)[1] > held)
        until(lambda: (now := page.evaluate(where))[0] == now[1] - 1)  # it followed
        bot.open()
        playing.join(WAIT_S)
        page.wait_for_selector("text=Download the log", timeout=WAIT_S * 1000)
        assert not page.is_visible(".state-live")
        page.goto("about:blank")  # no poll left to outlive the server
    finally:
        bot.open()
        server.shutdown()
        server.server_close()


def test_the_cache_keeps_one_document_per_match_built_once_per_snapshot(monkeypatch):
    """A long match polled all along holds one built document, the latest snapshot's."""
    built: list[int] = []
    monkeypatch.setattr(live, "build_live", lambda log: built.append(len(log)) or {"n": len(log)})
    cache = live.LiveCache(items=8)
    first, longer = Snapshot(1, b'{"a": 1}'), Snapshot(1, b'{"a": 1, "b": 2}')
    assert cache.get(7, first) == cache.get(7, first) == {"n": 1}
    assert cache.get(7, longer) == {"n": 2} and built == [1, 2]
    assert cache.get(7, Snapshot(2, b'{"a": 1}')) == {"n": 1} and built == [1, 2, 1]  # retried
    for pk in range(100, 110):
        cache.get(pk, first)
    assert len(cache._docs) == 8 and 7 not in cache._docs  # the oldest match left


def test_a_poll_whose_document_is_built_reads_the_stamp_not_the_snapshot(monkeypatch):
    """Redis holds the snapshot and its stamp; a poll finding the stamp of the document it
    built already reads nothing more; a new snapshot (a new stamp) is read and built."""
    progress = redis_progress()
    built: list[int] = []
    monkeypatch.setattr(live, "build_live", lambda log: built.append(len(log)) or {"n": len(log)})
    cache = live.LiveCache(items=8)
    first, longer = Snapshot(1, b'{"a": 1}'), Snapshot(1, b'{"a": 1, "b": 2}')
    progress.publish(5, first)
    assert progress.stamp(5) == first.stamp and progress.stamp(6) is None
    assert cache.get(5, progress.latest(5)) == {"n": 1}
    assert cache.built(5, progress.stamp(5)) == {"n": 1}
    progress.publish(5, longer)
    assert progress.stamp(5) == (1, len(longer.log_json))
    assert cache.built(5, progress.stamp(5)) is None  # a new snapshot: read and build it
    assert cache.get(5, progress.latest(5)) == {"n": 2} and built == [1, 2]
    progress.drop(5, 1)
    assert progress.stamp(5) is None and progress.latest(5) is None


def test_a_repeated_poll_reads_no_snapshot_from_redis(app, monkeypatch):
    """``live()`` on a running match: the first poll reads the snapshot and builds it; the
    next ones, the snapshot unchanged, read only its stamp."""
    from ladder.work import claim

    progress = redis_progress()
    monkeypatch.setattr(live, "build_live", lambda log: {"frames": [log]})
    monkeypatch.setattr(live, "LIVE", live.LiveCache())
    live.use(progress)
    try:
        engine = app.extensions["referee"].engine
        [pk] = schedule(engine, "tokaido-duo", [([1, 2], 5, None)], rated=False)
        held = claim(engine, pk, "w", 30)
        assert held is not None
        progress.publish(pk, Snapshot(held.attempt, b'{"a": 1}'))
        assert live.live(engine, pk, "embedded").doc == {"frames": [{"a": 1}]}
        reads: list[int] = []
        latest = progress.latest
        monkeypatch.setattr(progress, "latest", lambda k: reads.append(k) or latest(k))
        assert live.live(engine, pk, "embedded").doc == {"frames": [{"a": 1}]} and reads == []
        progress.publish(pk, Snapshot(held.attempt, b'{"a": 1, "b": 2}'))
        assert live.live(engine, pk, "embedded").doc == {"frames": [{"a": 1, "b": 2}]}
        assert reads == [pk]
    finally:
        live.use(None)
