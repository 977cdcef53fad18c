"""Pull bots on the embedded service: registered without a URL, their requests taken by a
long-poll with the owner's token and answered at a URL named by the request.

Each test plays real matches with the real runner (``run_match``) while a thread plays the
bot's connection through its own Flask test client; bounded waits only (no sleeps racing a
clock but where lateness is the point, by a margin of hundreds of milliseconds).
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

import api.relays
import referee.relay
from api.relays import process_relay
from api.runner import run_match
from bots.server import BotApp, BotServer
from ladder.newmatches import MatchSettings
from ladder.reads import match_log
from ladder.work import incidents, schedule

GAME = "toy-race"
Handler = Callable[[dict[str, Any]], bytes | None]
"""What the bot answers to one envelope (``None``: no answer)."""


@pytest.fixture(autouse=True, params=["memory", "redis"])
def fresh_relay(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[None]:
    """A relay of the test's own (bot ids repeat across the tests' databases), in memory (the
    embedded server's) or through the real Redis (production's), and a short pick-up limit
    so that a bot that stopped polling is struck quickly."""
    from service.test_relay import redis_relay

    monkeypatch.setattr(referee.relay, "PICKUP_MS", 300)
    api.relays.use(None if request.param == "memory" else redis_relay())
    yield
    api.relays.use(None)


def register_pull(client: Any, name: str = "puller") -> int:
    answer = client.post("/api/v1/bots", json={"name": name, "mode": "pull", "games": [GAME],
                                               "ladder": False})
    assert answer.status_code == 201, answer.json
    return int(answer.json["id"])


class Connection:
    """A pull bot's connection in a thread: polls, hands each envelope to ``handler``, posts
    what it returns; ``stop_after`` requests, it stops polling (its connection is gone)."""

    def __init__(self, app: Any, token: str, bot_id: int, handler: Handler,
                 stop_after: int | None = None, resume: bool = False) -> None:
        self.http, self.bot_id, self.handler = app.test_client(), bot_id, handler
        self.resume = resume  # its first poll says it reconnected
        self.headers = {"Authorization": f"Bearer {token}"}
        self.stop_after, self.seen = stop_after, []
        self.statuses: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Connection:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(10)
        assert not self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            resume, self.resume = self.resume, False
            got = self.http.get(f"/api/v1/bots/{self.bot_id}/requests?wait=1"
                                + ("&resume=true" if resume else ""), headers=self.headers)
            assert got.status_code == 200, got.json
            for env in got.json["requests"]:
                self.seen.append(env)
                if self.stop_after is not None and len(self.seen) > self.stop_after:
                    return  # the connection dies holding this request
                body = self.handler(env)
                if body is not None:
                    posted = self.http.post(
                        f"/api/v1/bots/{self.bot_id}/requests/{env['request_id']}", data=body,
                        headers={**self.headers, "Content-Type": "application/json"})
                    self.statuses.append(posted.status_code)


def forward_to(url: str) -> Handler:
    """Answer each request as the HTTP bot at ``url`` does, byte for byte."""
    session = requests.Session()

    def handle(env: dict[str, Any]) -> bytes:
        return session.post(url + env["path"], data=json.dumps(env["body"]),
                            headers={"Content-Type": "application/json"}, timeout=5).content
    return handle


def play(app: Any, seatings: list[tuple[list[int], int]],
         settings: MatchSettings | None = None) -> list[dict[str, Any]]:
    """Schedule and play matches (bots in seat order, seed); their public logs. By default
    with 10 s a decision: the moves depend only on the seeds, and a busy machine must not
    strike a bot whose requests go through a relay, a thread and perhaps Redis."""
    svc = app.extensions["referee"]
    ids = schedule(svc.engine, GAME, [(bots, seed, None) for bots, seed in seatings],
                   rated=False, settings=settings or MatchSettings(time_ms=10_000))
    logs = []
    for pk in ids:
        assert run_match(svc.engine, pk, svc.policy, lease_s=30) == "finished"
        logs.append(json.loads(gzip.decompress(match_log(svc.engine, pk)[0])))
    return logs


def moves(log: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(d["seat"], d["choice"], d["status"]) for d in log["decisions"]]


def test_a_pull_bot_is_registered_without_a_url(anon):
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    mine = alice.get(f"/api/v1/bots/{bot_id}").json
    assert mine["mode"] == "pull" and mine["url"] is None and mine["status"] == "active"
    assert anon.get(f"/api/v1/bots/{bot_id}").json["mode"] == "pull"
    no_url = alice.post("/api/v1/bots", json={"name": "x", "games": [GAME]})
    assert no_url.status_code == 422 and "url" in no_url.json["errors"]["json"]
    both = alice.post("/api/v1/bots", json={"name": "y", "mode": "pull", "url":
                                            "http://127.0.0.1:9", "games": [GAME]})
    assert both.status_code == 422 and "url" in both.json["errors"]["json"]
    changed = alice.patch(f"/api/v1/bots/{bot_id}", json={"url": "http://127.0.0.1:9"})
    assert changed.status_code == 422


def test_a_pull_bot_plays_the_same_matches_as_the_same_bot_in_push_mode(anon):
    alice = anon.owner("alice")
    push_server = BotServer(BotApp("random", GAME, 5, per_match=False)).start()
    pull_server = BotServer(BotApp("random", GAME, 5, per_match=False)).start()
    try:
        made = alice.post("/api/v1/bots", json={"name": "pusher", "url": push_server.url,
                                                "games": [GAME], "ladder": False})
        assert made.status_code == 201, made.json
        push_id, pull_id = made.json["id"], register_pull(alice)
        seeds = [11, 12]
        with Connection(anon.app, alice.token, pull_id, forward_to(pull_server.url)) as conn:
            pulled = play(anon.app, [([pull_id, 1], s) for s in seeds]
                          + [([1, pull_id], s) for s in seeds])
        pushed = play(anon.app, [([push_id, 1], s) for s in seeds]
                      + [([1, push_id], s) for s in seeds])
    finally:
        push_server.stop()
        pull_server.stop()
    assert [moves(log) for log in pulled] == [moves(log) for log in pushed]
    assert [log["result"] for log in pulled] == [log["result"] for log in pushed]
    assert all(status == "ok" for log in pulled for _, _, status in moves(log))
    assert set(conn.statuses) == {200}
    paths = [env["path"] for env in conn.seen]
    assert paths.count("/start") == paths.count("/end") == 4
    decide = next(env for env in conn.seen if env["path"] == "/decide")
    assert decide["body"]["request_id"] == decide["request_id"]
    assert decide["deadline_ms"] == decide["body"]["deadline_ms"]


def test_a_connection_killed_mid_decision_is_a_strike_not_a_void(anon):
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    with Connection(anon.app, alice.token, bot_id, lambda env: b"{}", stop_after=1) as conn:
        [log] = play(anon.app, [([bot_id, 1], 3)], MatchSettings(time_ms=2000))
    assert [env["path"] for env in conn.seen] == ["/start", "/decide"]
    mine = [status for seat, _, status in moves(log) if seat == 0]
    assert mine[:3] == ["timeout", "connection_error", "connection_error"]
    assert set(mine[3:]) <= {"forfeited"}
    assert log["players"][0]["strikes"] == 3 and log["result"]["reason"].startswith("seat(s) 0")


def first_option(env: dict[str, Any]) -> bytes:
    if env["path"] != "/decide":
        return b"{}"
    return json.dumps({"choice": env["body"]["decision"]["options"][0]["id"]}).encode()


def reconnect(anon: Any, pause_s: float) -> tuple[dict[str, Any], Connection, Connection]:
    """A match whose bot's connection dies holding its first ``/decide`` (3 s), and a new
    connection of the bot (``resume``) ``pause_s`` later: the log and both connections."""
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    logs: list[dict[str, Any]] = []
    game = threading.Thread(target=lambda: logs.extend(
        play(anon.app, [([bot_id, 1], 3)], MatchSettings(time_ms=3000))))
    with Connection(anon.app, alice.token, bot_id, first_option, stop_after=1) as dead:
        game.start()
        dead._thread.join(30)
        assert not dead._thread.is_alive() and [e["path"] for e in dead.seen] == [
            "/start", "/decide"]
        time.sleep(pause_s)
        with Connection(anon.app, alice.token, bot_id, first_option, resume=True) as back:
            game.join(60)
    assert not game.is_alive()
    return logs[0], dead, back


def test_a_bot_that_reconnects_within_the_deadline_answers_what_it_held(anon):
    log, dead, back = reconnect(anon, 0.0)
    held, again = dead.seen[1], back.seen[0]
    assert again["request_id"] == held["request_id"] and again["resent"] is True
    assert again["body"] == held["body"] and 0 < again["deadline_ms"] <= held["deadline_ms"]
    assert "resent" not in held
    assert {status for seat, _, status in moves(log) if seat == 0} == {"ok"}
    assert log["players"][0]["strikes"] == 0


def test_a_bot_that_reconnects_after_the_deadline_has_its_timeout_strike(anon):
    log, dead, back = reconnect(anon, 3.5)
    assert not any(env.get("resent") for env in back.seen)
    assert dead.seen[1]["request_id"] not in {env["request_id"] for env in back.seen}
    mine = [status for seat, _, status in moves(log) if seat == 0]
    assert mine[0] == "timeout" and "ok" in mine[1:]


def test_a_pull_bot_is_checked_through_its_connection(anon):
    """A check plays its match through the relay: refused (409, saying to connect) while
    the bot is away, run while it is connected, its ``/start`` the health record."""
    from api.execution import run_check

    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    away = alice.post(f"/api/v1/bots/{bot_id}/check")
    assert away.status_code == 409 and "not connected: connect it first" in away.json["message"]
    svc = anon.app.extensions["referee"]
    with Connection(anon.app, alice.token, bot_id, first_option) as conn:
        wait_until(lambda: process_relay().connected(str(bot_id)))
        asked = alice.post(f"/api/v1/bots/{bot_id}/check")
        assert asked.status_code == 202, asked.json
        assert run_check(svc.engine, asked.json["id"], svc.policy, lease_s=30) == "done"
    check = alice.get(f"/api/v1/bots/{bot_id}/checks/{asked.json['id']}").json
    assert check["state"] == "done" and check["report"]["ok"], check
    assert [c["call"] for c in check["report"]["calls"]] == ["/start", "/decide", "/end"]
    assert {env["path"] for env in conn.seen} == {"/start", "/decide", "/end"}


def test_a_pull_bot_gone_before_its_check_starts_fails_it_with_the_reason(anon, monkeypatch):
    import ladder.relay_redis
    from api.execution import run_check

    for module in (referee.relay, ladder.relay_redis):
        monkeypatch.setattr(module, "PRESENCE_GRACE_S", 1.0)
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    assert alice.get(f"/api/v1/bots/{bot_id}/requests?wait=0").status_code == 200
    asked = alice.post(f"/api/v1/bots/{bot_id}/check")
    assert asked.status_code == 202, asked.json
    wait_until(lambda: not process_relay().connected(str(bot_id)))
    svc = anon.app.extensions["referee"]
    assert run_check(svc.engine, asked.json["id"], svc.policy, lease_s=30) == "failed"
    check = alice.get(f"/api/v1/bots/{bot_id}/checks/{asked.json['id']}").json
    assert check["state"] == "failed" and "is not connected" in check["error"]


def wait_until(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    give_up = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < give_up, "the condition never held"
        time.sleep(0.01)


def test_malformed_unknown_and_late_answers_are_strikes(anon):
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    answers = iter([b"not json", b'{"choice": "no-such-option"}', None])
    late = threading.Event()

    def handler(env: dict[str, Any]) -> bytes | None:
        if env["path"] != "/decide":
            return b"{}"
        body = next(answers, b"{}")
        if body is None:  # answer the third decision after its deadline
            late.wait(env["deadline_ms"] / 1000 + 0.5)
            return json.dumps({"choice": env["body"]["decision"]["options"][0]["id"]}).encode()
        return body

    with Connection(anon.app, alice.token, bot_id, handler) as conn:
        [log] = play(anon.app, [([bot_id, 1], 4)], MatchSettings(time_ms=3000, strikes=3))
    mine = [status for seat, _, status in moves(log) if seat == 0]
    assert mine[:3] == ["bad_json", "unknown_option", "timeout"]
    assert 409 in conn.statuses  # the late answer was told so


def test_a_second_answer_is_a_duplicate_the_first_stands_and_no_strike(anon):
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    told: list[tuple[int, Any]] = []

    def handler(env: dict[str, Any]) -> bytes | None:
        if env["path"] != "/decide" or told:
            return b"{}"
        options = [o["id"] for o in env["body"]["decision"]["options"]]
        path = f"/api/v1/bots/{bot_id}/requests/{env['request_id']}"
        for body in ({"choice": options[0]}, {"choice": "no-such-option"}):
            got = alice.post(path, json=body)
            told.append((got.status_code, got.json))
        return None  # answered twice already

    with Connection(anon.app, alice.token, bot_id, handler):
        [log] = play(anon.app, [([bot_id, 1], 4)])
    (first, accepted), (second, dup) = told
    assert (first, accepted["status"]) == (200, "accepted")
    assert (second, dup) == (200, {"status": "duplicate", "ms": accepted["ms"]})
    seat, choice, status = next(m for m in moves(log) if m[0] == 0)
    assert status == "ok" and choice != "no-such-option"  # the first answer stood


def test_a_pull_bot_takes_and_answers_only_its_own_requests(anon):
    alice, bob = anon.owner("alice"), anon.owner("bob")
    first, second = register_pull(alice, "first"), register_pull(alice, "second")
    assert bob.get(f"/api/v1/bots/{first}/requests?wait=0").status_code == 403
    assert anon.get(f"/api/v1/bots/{first}/requests?wait=0").status_code == 401
    assert alice.get("/api/v1/bots/2/requests?wait=0").status_code == 403  # a house bot
    assert alice.get(f"/api/v1/bots/{first}/requests?wait=31").status_code == 422
    taken: list[dict[str, Any]] = []
    stolen: list[int] = []

    def handler(env: dict[str, Any]) -> bytes:
        taken.append(env)
        if len(taken) == 1:  # the second bot of the same owner, then bob, answer it
            path = f"/api/v1/bots/{{}}/requests/{env['request_id']}"
            stolen.append(alice.post(path.format(second), json={}).status_code)
            stolen.append(bob.post(path.format(first), json={}).status_code)
        return b"{}"

    with Connection(anon.app, alice.token, first, handler):
        play(anon.app, [([first, 1], 5)])
    assert stolen == [404, 403]
    assert alice.get(f"/api/v1/bots/{second}/requests?wait=0").json == {"requests": []}
    unknown = alice.post(f"/api/v1/bots/{first}/requests/nothing", json={})
    assert unknown.status_code == 404


def test_an_answer_over_the_size_cap_is_a_too_large_strike(anon):
    alice = anon.owner("alice")
    bot_id = register_pull(alice)

    def handler(env: dict[str, Any]) -> bytes:
        return b"{}" if env["path"] != "/decide" else b'{"log": "' + b"x" * 70_000 + b'"}'

    with Connection(anon.app, alice.token, bot_id, handler) as conn:
        [log] = play(anon.app, [([bot_id, 1], 6)])
    assert [s for seat, _, s in moves(log) if seat == 0][:3] == ["too_large"] * 3
    assert 413 in conn.statuses


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_pull_bot_with_no_connection_is_away_and_back_when_it_polls(anon):
    clock = FakeClock()
    api.relays.use(referee.relay.MemoryRelay(clock))
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "laptop", "mode": "pull", "games": [GAME]})
    assert made.status_code == 201, made.json
    bot_id, engine = made.json["id"], anon.app.extensions["referee"].engine

    def entry() -> dict[str, Any]:
        [found] = alice.get(f"/api/v1/bots/{bot_id}/ladders").json["items"]
        return found

    assert entry()["paused_reason"] is None
    assert api.relays.sweep_presence(engine) == {bot_id: "paused"}  # never connected
    assert entry()["paused_reason"].startswith("away:")
    refused = alice.http.put(f"/api/v1/bots/{bot_id}/ladders/{GAME}", json={"paused": False},
                             headers=alice.headers())
    assert refused.status_code == 409 and "when it connects" in refused.json["message"]
    assert api.relays.sweep_presence(engine) == {}  # away already: no second alert

    assert alice.get(f"/api/v1/bots/{bot_id}/requests?wait=0").json == {"requests": []}
    assert entry()["paused_reason"] is None  # back at its first poll
    clock.now += referee.relay.PRESENCE_GRACE_S - 1
    assert api.relays.sweep_presence(engine) == {}  # between two polls: still connected
    clock.now += 2
    assert api.relays.sweep_presence(engine) == {bot_id: "paused"}
    alerts = alice.get("/api/v1/me/alerts").json["items"]
    assert [(a["kind"], a["reason"][:5]) for a in alerts] == [
        ("paused", "away:"), ("resumed", "conne"), ("paused", "away:")]
    # an owner's pause is its own: presence neither lifts it nor replaces it
    owned = alice.http.put(f"/api/v1/bots/{bot_id}/ladders/{GAME}", json={"paused": True},
                           headers=alice.headers())
    assert owned.status_code == 200 and owned.json["paused_reason"].startswith("owner:")
    alice.get(f"/api/v1/bots/{bot_id}/requests?wait=0")
    assert entry()["paused_reason"].startswith("owner:")



def test_a_poll_racing_the_away_sweep_leaves_the_bot_playing(anon):
    """The sweep found the bot not connected; before it paused the bot's entries, the bot
    polled (its poll found nothing to resume yet): the bot is connected, so the pause must
    not land (else it sits out every round until the next sweep, polling all the while)."""
    from ladder import presence

    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "laptop", "mode": "pull", "games": [GAME]})
    assert made.status_code == 201, made.json
    bot_id, engine = made.json["id"], anon.app.extensions["referee"].engine
    relay = process_relay()

    def stale(bot: int) -> bool:
        """What the sweep read first: not connected; the bot polls just after."""
        if not relay.connected(str(bot)):
            assert alice.get(f"/api/v1/bots/{bot}/requests?wait=0").status_code == 200
            return False
        return True

    assert presence.sweep(engine, stale) == {}
    assert relay.connected(str(bot_id))
    [entry] = alice.get(f"/api/v1/bots/{bot_id}/ladders").json["items"]
    assert entry["paused_reason"] is None


def test_a_relay_that_fails_is_the_referees_failure_never_a_strike(anon, fresh_relay):
    from ladder.relay_redis import RedisRelay

    api.relays.use(RedisRelay("redis://127.0.0.1:1/0"))  # nothing listens there
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    svc = anon.app.extensions["referee"]
    [pk] = schedule(svc.engine, GAME, [([bot_id, 1], 7, None)], rated=False)
    assert run_match(svc.engine, pk, svc.policy, lease_s=30) == "retry"
    [incident], _ = incidents(svc.engine)
    assert incident["error"].startswith("RelayError") and incident["outcome"] == "retried"
    assert anon.get(f"/api/v1/matches/{pk}").json["state"] == "scheduled"  # played again
    assert alice.get(f"/api/v1/bots/{bot_id}/requests?wait=0").status_code == 503
    assert alice.post(f"/api/v1/bots/{bot_id}/requests/x", json={}).status_code == 503


def test_a_web_process_that_loses_the_relay_strikes_no_bot(anon, monkeypatch):
    """Only the web process fails to reach the relay (the worker still does): the bot's
    answers get a 503 and the worker times them out. The web books what it saw, and the
    match that struck the bot meanwhile is the referee's failure: played again, no strike."""
    import api.routes.pull
    from referee.relay import RelayError

    relay = api.relays.process_relay()

    class AnswersFail:
        def __getattr__(self, name: str) -> Any:
            return getattr(relay, name)

        def answer(self, *args: Any) -> Any:
            raise RelayError("the relay failed: ConnectionError: the web lost it")

    monkeypatch.setattr(api.routes.pull, "process_relay", AnswersFail)
    alice = anon.owner("alice")
    bot_id = register_pull(alice)
    svc = anon.app.extensions["referee"]
    [pk] = schedule(svc.engine, GAME, [([bot_id, 1], 7, None)], rated=False,
                    settings=MatchSettings(time_ms=1000))
    with Connection(anon.app, alice.token, bot_id, first_option) as conn:
        assert run_match(svc.engine, pk, svc.policy, lease_s=30) == "retry"
    assert 503 in conn.statuses
    found, _ = incidents(svc.engine)
    outcomes = {i["outcome"] for i in found}
    assert outcomes == {"relay_down", "retried"}
    retried = next(i for i in found if i["outcome"] == "retried")
    assert "could not reach the relay for pull bot(s) " + str(bot_id) in retried["error"]
    match = anon.get(f"/api/v1/matches/{pk}").json
    assert match["state"] == "scheduled" and match["attempt"] == 1  # played again, no strike
    assert all(not seat.get("strikes") for seat in match["seats"])


def test_a_pull_bot_plays_rated_rounds_goes_away_and_comes_back(anon):
    """The living ladder with a pull bot: it plays its rounds' fixtures while connected; the
    health tick finds it away once it stops polling (no new fixture for it); it is back at
    its next poll."""
    from api.health import probe_due
    from api.scheduling import tick_and_enqueue
    from ladder.accounts import now_utc

    from service.conftest import drain

    clock = FakeClock()
    api.relays.use(referee.relay.MemoryRelay(clock))
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "laptop", "mode": "pull",
                                            "games": ["tokaido-duo"]})
    bot_id, svc = made.json["id"], anon.app.extensions["referee"]

    def rounds(count: int) -> None:
        for _ in range(count):
            tick_and_enqueue(svc.engine, svc.config.matchmaker(), svc.dispatcher)
            assert set(drain(anon.app)) <= {"finished"}

    answer_all = forward_to_random()
    played = f"/api/v1/bots/{bot_id}/matches?rated=true&state=finished"
    with Connection(anon.app, alice.token, bot_id, answer_all):
        rounds(6)  # three bots (random and greedy in the house): byes rotate
    mine = alice.get(played).json
    assert mine["total"] >= 2
    assert all(not seat["strikes"] for m in mine["items"] for seat in m["seats"]
               if seat["bot"]["id"] == bot_id)

    clock.now += referee.relay.PRESENCE_GRACE_S + 1  # it stopped polling a while ago
    run = probe_due(svc.engine, svc.policy, now_utc())
    assert run.paused == {bot_id: "away"}
    [entry] = alice.get(f"/api/v1/bots/{bot_id}/ladders").json["items"]
    assert entry["paused_reason"].startswith("away:")
    before = mine["total"]
    rounds(1)  # a round without it
    assert alice.get(played).json["total"] == before

    alice.get(f"/api/v1/bots/{bot_id}/requests?wait=0")
    [entry] = alice.get(f"/api/v1/bots/{bot_id}/ladders").json["items"]
    assert entry["paused_reason"] is None


def forward_to_random() -> Handler:
    """Answer every request as a random bot would: the first option (any is fine here)."""
    def handle(env: dict[str, Any]) -> bytes:
        if env["path"] != "/decide":
            return b"{}"
        return json.dumps({"choice": env["body"]["decision"]["options"][0]["id"]}).encode()
    return handle


def test_an_owners_waiting_polls_are_bounded_and_wait_0_always_passes(anon, monkeypatch):
    """Each waiting poll holds a server thread: at most MAX_WAITING_POLLS of one owner's wait
    at once (another owner's are not counted against it)."""
    import api.routes.pull as pull

    alice, bob = anon.owner("alice"), anon.owner("bob")
    mine, theirs = register_pull(alice), register_pull(bob, "bobs")
    alice_id = alice.get("/api/v1/me").json["id"]
    monkeypatch.setitem(pull._waiting, alice_id, pull.MAX_WAITING_POLLS)  # all held now
    refused = alice.get(f"/api/v1/bots/{mine}/requests?wait=1")
    assert refused.status_code == 429 and "wait=0" in refused.json["message"]
    assert alice.get(f"/api/v1/bots/{mine}/requests?wait=0").status_code == 200
    assert bob.get(f"/api/v1/bots/{theirs}/requests?wait=1").status_code == 200
    monkeypatch.setitem(pull._waiting, alice_id, pull.MAX_WAITING_POLLS - 1)
    assert alice.get(f"/api/v1/bots/{mine}/requests?wait=1").status_code == 200
    assert pull._waiting[alice_id] == pull.MAX_WAITING_POLLS - 1  # its slot given back
