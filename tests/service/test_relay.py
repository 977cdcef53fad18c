"""The relay's contract (``referee.relay``), the same for both implementations: in memory (the
embedded server) and through the real Redis at ``REFEREE_TEST_REDIS`` (production).

The match side runs on a thread, the connection side in the test; waits are bounded events.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from referee.relay import Delivered, MemoryRelay, Relay, RelayError, Replaced, Request

from support.redis_service import REDIS, redis_ok


def redis_relay() -> Relay:
    from ladder.relay_redis import RedisRelay

    redis_ok()
    return RedisRelay(REDIS, prefix=f"referee:test-{secrets.token_hex(4)}:pull")


@pytest.fixture(params=["memory", "redis"])
def relay(request: pytest.FixtureRequest) -> Relay:
    return MemoryRelay() if request.param == "memory" else redis_relay()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(4) as executor:
        yield executor


def ask(pool: ThreadPoolExecutor, relay: Relay, bot: str, rid: str,
        deadline_ms: int = 2000) -> Future:
    return pool.submit(relay.exchange, bot, Request(rid, "/decide", b'{"n":1}', deadline_ms))


def test_a_request_is_handed_over_as_its_envelope_and_its_answer_comes_back(relay, pool):
    asked = ask(pool, relay, "7", "m1:0:0")
    [env] = relay.take("7", 5)
    assert env == (b'{"request_id":"m1:0:0","path":"/decide","deadline_ms":2000,'
                   b'"body":{"n":1}}')
    assert relay.connected("7") and not relay.connected("8")
    outcome, ms = relay.answer("7", "m1:0:0", b'{"choice":"a"}')
    assert outcome is Delivered.ACCEPTED and 0 <= ms < 2000
    reply = asked.result(10)
    assert reply.body == b'{"choice":"a"}' and reply.fault is None
    assert reply.ms == pytest.approx(ms, abs=1)
    assert relay.answer("7", "m1:0:0", b"{}") == (Delivered.DUPLICATE, ms)  # answered once


def test_a_second_answer_is_a_duplicate_and_the_first_stands(relay, pool):
    """Answered twice before the match side woke (a re-post after a lost connection): the
    second is told ``duplicate``, not ``late`` (no strike), and never replaces the first."""
    from contextlib import nullcontext

    asked = ask(pool, relay, "7", "m1:0:0")
    [_] = relay.take("7", 5)
    held = relay._cond if isinstance(relay, MemoryRelay) else nullcontext()
    with held:  # the match side cannot wake between the two answers
        first, ms = relay.answer("7", "m1:0:0", b'{"choice":"a"}')
        second = relay.answer("7", "m1:0:0", b'{"choice":"b"}')
    assert first is Delivered.ACCEPTED and second == (Delivered.DUPLICATE, ms)
    reply = asked.result(10)
    assert reply.body == b'{"choice":"a"}' and reply.fault is None
    assert relay.answer("7", "m1:0:0", b'{"choice":"b"}') == (Delivered.DUPLICATE, ms)


def test_a_request_is_only_its_bots(relay, pool):
    asked = ask(pool, relay, "7", "m1:0:0", deadline_ms=300)
    assert relay.take("8", 0.2) == []  # another bot's poll sees nothing
    [_] = relay.take("7", 5)
    assert relay.answer("8", "m1:0:0", b"{}")[0] is Delivered.UNKNOWN
    assert relay.answer("7", "made-up", b"{}")[0] is Delivered.UNKNOWN
    assert asked.result(10).fault.reason == "timeout"


def test_a_request_no_connection_takes_is_a_connection_error(relay, pool, monkeypatch):
    import referee.relay

    monkeypatch.setattr(referee.relay, "PICKUP_MS", 100)
    reply = ask(pool, relay, "7", "m1:0:0", deadline_ms=100).result(10)
    assert reply.fault.reason == "connection_error" and "not connected" in reply.fault.detail
    assert relay.take("7", 0) == []  # withdrawn: no poll gets it later


def test_a_late_answer_is_a_timeout_and_the_bot_is_told(relay, pool):
    asked = ask(pool, relay, "7", "m1:0:0", deadline_ms=150)
    [_] = relay.take("7", 5)
    reply = asked.result(10)  # the match gave up at the deadline
    assert reply.fault.reason == "timeout" and reply.body is None
    assert relay.answer("7", "m1:0:0", b'{"choice":"a"}')[0] is Delivered.LATE


def test_a_fault_found_on_the_way_is_passed_on(relay, pool):
    from referee.faults import Fault, FaultReason

    asked = ask(pool, relay, "7", "m1:0:0")
    [_] = relay.take("7", 5)
    too_big = Fault(FaultReason.TOO_LARGE, "over the cap")
    assert relay.answer("7", "m1:0:0", None, too_big)[0] is Delivered.ACCEPTED
    reply = asked.result(10)
    assert reply.fault == too_big and reply.body is None


def test_a_reconnected_bot_is_handed_again_what_it_had_not_answered(relay, pool):
    """The connection dropped after the hand-over: a poll with ``resume`` (the bot says it
    reconnected) gets the request again, its clock running on, and the answer counts."""
    import json

    asked = ask(pool, relay, "7", "m1:0:0", deadline_ms=5000)
    [first] = relay.take("7", 5)
    assert relay.take("7", 0.2) == []  # polling again while it computes: never twice
    time.sleep(0.1)
    [again] = relay.take("7", 5, resume=True)
    env = json.loads(again)
    assert env["request_id"] == "m1:0:0" and env["resent"] is True
    assert env["body"] == json.loads(first)["body"] == {"n": 1}
    assert 0 < env["deadline_ms"] <= 4900  # the time left, not a fresh deadline
    assert relay.take("7", 0.1) == []  # handed again once per resume, not on every poll
    assert relay.answer("7", "m1:0:0", b'{"choice":"a"}')[0] is Delivered.ACCEPTED
    reply = asked.result(10)
    assert reply.fault is None and reply.body == b'{"choice":"a"}' and reply.ms >= 100
    assert relay.take("7", 0.1, resume=True) == []  # answered: nothing to hand again


def test_a_bot_reconnected_after_the_deadline_has_the_timeout_strike(relay, pool):
    asked = ask(pool, relay, "7", "m1:0:0", deadline_ms=300)
    [_] = relay.take("7", 5)
    reply = asked.result(10)
    assert reply.fault.reason == "timeout"
    assert relay.take("7", 0.1, resume=True) == []  # its deadline passed: not handed again
    assert relay.answer("7", "m1:0:0", b'{"choice":"a"}')[0] is Delivered.LATE


def test_resume_hands_again_before_what_is_queued(relay, pool):
    first = ask(pool, relay, "7", "m1:0:0", deadline_ms=5000)
    [_] = relay.take("7", 5)
    second = ask(pool, relay, "7", "m2:0:0", deadline_ms=5000)
    got: list[bytes] = []
    give_up = time.monotonic() + 30
    while len(got) < 2:  # the second request may reach the queue a little later
        assert time.monotonic() < give_up, "the second request never came"
        got += relay.take("7", 1, resume=not got)
    assert [b'"resent":true' in env for env in got] == [True, False]
    for rid in ("m1:0:0", "m2:0:0"):
        assert relay.answer("7", rid, b"{}")[0] is Delivered.ACCEPTED
    assert first.result(10).fault is None and second.result(10).fault is None


def test_a_newer_connection_replaces_a_waiting_one(relay, pool):
    older = pool.submit(relay.take, "7", 20)
    give_up = time.monotonic() + 30  # the older poll has taken its turn (the bot's connection)
    while not relay.connected("7"):
        assert time.monotonic() < give_up, "the first poll never became the bot's connection"
        time.sleep(0.005)
    newest = pool.submit(relay.take, "7", 0.5)
    with pytest.raises(Replaced):
        older.result(10)
    assert newest.result(10) == []


def test_a_store_that_is_down_is_the_referees_failure():
    from ladder.relay_redis import RedisRelay

    dead = RedisRelay("redis://127.0.0.1:1/0")
    with pytest.raises(RelayError):
        dead.exchange("7", Request("m1:0:0", "/decide", b"{}", 100))
    with pytest.raises(RelayError):
        dead.take("7", 0)



def no_expiry(relay: Any) -> list[str]:
    """The relay's keys in Redis that would live for ever."""
    red = relay._redis
    return sorted(key.decode() for key in red.scan_iter(f"{relay.prefix}:*")
                  if red.ttl(key) == -1)


def test_every_redis_key_expires_even_when_its_worker_is_gone():
    """A worker that dies (or fails on a Redis blip) after the hand-over leaves no one to pop
    its mailbox: the bot's answer, on time or late, must not make a key that lives for ever.
    Nor may a replaced connection that pushes back what it popped from a queue it emptied."""
    relay: Any = redis_relay()
    red = relay._redis
    for rid, deadline in (("m1:0:0", 5000), ("m2:0:0", 100)):
        red.rpush(relay._key("q", "7"), f"{rid}\n{deadline}\n/decide\n{{}}".encode())
        [_] = relay.take("7", 5)
        assert red.blpop([relay._key("a", "7", rid)], 5)  # the worker saw it handed, then died
        if deadline < 1000:
            time.sleep(deadline / 1000 + 0.05)  # answered late
        relay.answer("7", rid, b"{}")
    assert no_expiry(relay) == []
    red.rpush(relay._key("q", "8"), b"m3:0:0\n5000\n/decide\n{}")
    with pytest.raises(Replaced):
        relay._wait("8", 0, 1)  # popped the only item, then found itself replaced
    assert red.llen(relay._key("q", "8")) == 1  # pushed back for the newer connection
    assert no_expiry(relay) == []
