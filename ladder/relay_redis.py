"""The relay through Redis (:class:`RedisRelay`): pull bots in the production layout, where a
match runs on a Celery worker and the bot's connection is held by a web process.

The contract is :mod:`referee.relay`'s; the keys, under ``<prefix>:`` (one service, one
prefix), are per bot ``B`` and request ``R``:

* ``q:B``: the bot's queue, a list of ``R\\nDEADLINE_MS\\nPATH\\nBODY`` items (the worker
  pushes, a web process pops when the bot's poll takes them);
* ``o:B``: the bot's requests handed over and not yet answered or given up, ``R`` to its item
  (what a resumed connection is handed again, with the time left);
* ``h:B:R``: the request once handed over: the hand-off time, its deadline and its state
  (``open``, ``answered`` with the bot's ``ms``: a second answer is a duplicate, ``late``,
  ``closed``), written by a script so that the hand-off and the answer are both timed on the
  Redis server's clock (``TIME``: one clock for every web process);
* ``a:B:R``: the worker's mailbox: ``H`` when the request is handed over, then the reply;
* ``g:B``: the generation of the bot's connection (a newer poll replaces an older one);
  ``p:B``: present while the bot polls, and for the grace period after a poll.

Round trips, as each is latency added to a decision: the worker pushes the request (one),
then blocks on its mailbox; a waiting poll's blocking pop wakes as the request comes and one
script (:data:`_TAKE`) checks the connection's generation, takes whatever else is queued and
hands it all over; the answer is one script (:data:`_ANSWER`) that pushes the reply to the
blocked worker. Nothing polls Redis on a timer.

Every key expires (:data:`TTL_S`), set again by each push that may make it anew: a list a
blocking pop emptied is deleted, its expiry with it, and a reply whose worker died or an item
a replaced poll pushes back would otherwise live for ever. The database is never involved. A
Redis error is a :class:`~referee.relay.RelayError`: the referee's failure (the match is
played again).
"""

from __future__ import annotations

import time
from typing import Any

from referee.faults import Fault, FaultReason
from referee.relay import (
    PRESENCE_GRACE_S, Delivered, Relay, RelayError, Replaced, Reply, Request, envelope, not_taken,
    pickup_ms, timed_out,
)

TTL_S = 900
"""How long a request's keys live (longer than any decision's wait and its late answers)."""
SLACK_S = 1.0
"""How much longer than the deadline the worker waits for the reply (the connection side
decides lateness on Redis's clock; this only bounds a reply lost in transit)."""
SLICE_S = 1.0
"""How often a waiting poll looks whether a newer connection replaced it."""
MAX_TAKEN = 64
"""Requests one poll takes at most (one per match the bot plays at once)."""
SOCKET_TIMEOUT_S = 600.0
"""A last resort against a Redis that stops answering mid-command: longer than any blocking
wait (a decision's deadline, its bank included, plus the pick-up)."""

_TAKE = """
local first = ARGV[6]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  if first ~= '' then
    redis.call('LPUSH', KEYS[1], first)
    redis.call('EXPIRE', KEYS[1], ARGV[2])
  end
  return {'replaced'}
end
local items = {}
if first ~= '' then items[1] = first end
local more = redis.call('LPOP', KEYS[1], ARGV[7])
if more then
  for _, item in ipairs(more) do items[#items + 1] = item end
end
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local out = {'taken'}
for _, item in ipairs(items) do
  local a = string.find(item, '\\n', 1, true)
  local b = string.find(item, '\\n', a + 1, true)
  local rid = string.sub(item, 1, a - 1)
  local handed, box = ARGV[4] .. rid, ARGV[5] .. rid
  redis.call('HSET', handed, 'handed', now, 'deadline', string.sub(item, a + 1, b - 1),
             'state', 'open')
  redis.call('EXPIRE', handed, ARGV[2])
  redis.call('RPUSH', box, 'H')
  redis.call('EXPIRE', box, ARGV[2])
  redis.call('HSET', KEYS[3], rid, item)
  out[#out + 1] = item
end
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('SET', KEYS[4], '1', 'EX', ARGV[3])
return out
"""
_AGAIN = """
local t = redis.call('TIME')
local now = t[1] * 1000 + t[2] / 1000
local open = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #open, 2 do
  local h = redis.call('HMGET', ARGV[1] .. open[i], 'handed', 'deadline', 'state')
  local left = 0
  if h[1] and h[3] == 'open' then left = tonumber(h[1]) + tonumber(h[2]) - now end
  if left >= 1 then
    out[#out + 1] = open[i + 1]
    out[#out + 1] = tostring(math.floor(left))
  else
    redis.call('HDEL', KEYS[1], open[i])
  end
end
return out
"""
_ANSWER = """
local h = redis.call('HMGET', KEYS[1], 'handed', 'deadline', 'state', 'ms')
if not h[1] then return {'unknown', '0'} end
if h[3] == 'answered' then return {'duplicate', h[4]} end
if h[3] ~= 'open' then return {'late', '0'} end
local t = redis.call('TIME')
local ms = t[1] * 1000 + t[2] / 1000 - tonumber(h[1])
redis.call('HDEL', KEYS[3], ARGV[3])
if ms > tonumber(h[2]) then
  redis.call('HSET', KEYS[1], 'state', 'late')
  redis.call('RPUSH', KEYS[2], 'late\\n' .. tostring(ms))
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return {'late', tostring(ms)}
end
redis.call('HSET', KEYS[1], 'state', 'answered', 'ms', tostring(ms))
redis.call('RPUSH', KEYS[2], ARGV[1] .. '\\n' .. tostring(ms) .. '\\n' .. ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {'accepted', tostring(ms)}
"""
_CLOSE = """
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[1], 'state') == 'open' then
  redis.call('HSET', KEYS[1], 'state', 'closed')
  return 1
end
return 0
"""


class RedisRelay(Relay):
    """The relay of a service with a broker: every process of it, one Redis."""

    def __init__(self, url: str, prefix: str = "referee:pull") -> None:
        import redis

        self._redis: Any = redis.Redis.from_url(url, socket_connect_timeout=2,
                                                socket_timeout=SOCKET_TIMEOUT_S)
        self._errors = (redis.RedisError, OSError)
        self.prefix = prefix
        self._take = self._redis.register_script(_TAKE)
        self._answer = self._redis.register_script(_ANSWER)
        self._close = self._redis.register_script(_CLOSE)
        self._again = self._redis.register_script(_AGAIN)
        self._seen: dict[str, float] = {}
        """Bots whose poll this process ended, and when (monotonic): see :meth:`connected`."""

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def exchange(self, bot: str, request: Request) -> Reply:
        rid = request.request_id
        mailbox, handed = self._key("a", bot, rid), self._key("h", bot, rid)
        item = b"\n".join((rid.encode(), str(request.deadline_ms).encode(),
                           request.path.encode(), request.body))
        try:
            with self._redis.pipeline() as pipe:  # a worker that dies leaves nothing for long
                pipe.rpush(self._key("q", bot), item).expire(self._key("q", bot), TTL_S)
                pipe.execute()
            got = self._redis.blpop([mailbox], pickup_ms(request.deadline_ms) / 1000)
            if got is None:
                if self._redis.lrem(self._key("q", bot), 1, item):
                    return not_taken(request)
                got = self._redis.blpop([mailbox], request.deadline_ms / 1000 + SLACK_S)
            if got is None:  # taken but not handed within its deadline: the web side failed
                raise RelayError(f"request {rid!r} was taken but never handed over")
            reply = self._redis.blpop([mailbox], request.deadline_ms / 1000 + SLACK_S)
            if reply is None and not self._close(keys=[handed, self._key("o", bot)],
                                                 args=[rid]):
                reply = self._redis.blpop([mailbox], SLACK_S)  # answered meanwhile: it is there
        except self._errors as exc:
            raise RelayError(f"the relay failed: {type(exc).__name__}: {exc}") from exc
        return _reply(request, None if reply is None else reply[1])

    def take(self, bot: str, wait_s: float, resume: bool = False) -> list[bytes]:
        queue, presence, generation, handing = (self._key("q", bot), self._key("p", bot),
                                                self._key("g", bot), self._key("o", bot))
        try:
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.incr(generation).expire(generation, TTL_S)
                pipe.set(presence, b"1", ex=int(wait_s + PRESENCE_GRACE_S) + 1)
                if resume:
                    self._again(keys=[handing], args=[self._key("h", bot, "")], client=pipe)
                done = pipe.execute()
            mine, again = int(done[0]), (done[3] if resume else [])
            handed = [_envelope(item, int(left)) for item, left in zip(again[::2], again[1::2])]
            handed += [_envelope(item) for item in self._wait(bot, mine, 0 if handed else wait_s)]
        except self._errors as exc:
            raise RelayError(f"the relay failed: {type(exc).__name__}: {exc}") from exc
        self._seen[bot] = time.monotonic()
        return handed

    def _wait(self, bot: str, mine: int, wait_s: float) -> list[bytes]:
        """The items of the bot's queue, handed over, waiting up to ``wait_s`` in slices: a
        blocking pop wakes as soon as an item comes, then one script (:data:`_TAKE`) checks
        that no newer connection took over, takes the rest and hands them all over."""
        queue, until = self._key("q", bot), time.monotonic() + wait_s
        keys = [queue, self._key("g", bot), self._key("o", bot), self._key("p", bot)]
        while True:
            left = until - time.monotonic()
            got = None  # (Redis times a blocking wait out at its own tick: 100 ms)
            if left > 0:
                got = self._redis.blpop([queue], max(0.01, min(SLICE_S, left)))
            taken = self._take(keys=keys, args=[
                mine, TTL_S, int(PRESENCE_GRACE_S), self._key("h", bot, ""),
                self._key("a", bot, ""), b"" if got is None else got[1], MAX_TAKEN])
            if taken[0] == b"replaced":
                raise Replaced("a newer connection of this bot took over")
            if len(taken) > 1 or left <= SLICE_S:
                return list(taken[1:])

    def answer(self, bot: str, request_id: str, body: bytes | None,
               fault: Fault | None = None) -> tuple[Delivered, float]:
        kind, payload = ((b"ok", body or b"") if fault is None else
                         (b"fault", f"{fault.reason}\n{fault.detail}".encode()))
        try:
            outcome, ms = self._answer(keys=[self._key("h", bot, request_id),
                                             self._key("a", bot, request_id),
                                             self._key("o", bot)],
                                       args=[kind, payload, request_id, TTL_S])
        except self._errors as exc:
            raise RelayError(f"the relay failed: {type(exc).__name__}: {exc}") from exc
        return Delivered(outcome.decode()), float(ms)

    def connected(self, bot: str) -> bool:
        """Present in Redis; or a poll of this process ended less than half the grace ago
        (it marked the bot present for the whole grace): a bot re-polls after every answer,
        and each poll asks whether it was connected."""
        if self._seen.get(bot, 0.0) > time.monotonic() - PRESENCE_GRACE_S / 2:
            return True
        if len(self._seen) > 10_000:
            self._seen.clear()
        try:
            return bool(self._redis.exists(self._key("p", bot)))
        except self._errors as exc:
            raise RelayError(f"the relay failed: {type(exc).__name__}: {exc}") from exc


def _envelope(item: bytes, left_ms: int | None = None) -> bytes:
    """The envelope of a queued ``item`` (``left_ms``: handed again, with the time left)."""
    rid, deadline, path, body = item.split(b"\n", 3)
    return envelope(Request(rid.decode(), path.decode(), body, int(deadline)), left_ms)


def _reply(request: Request, raw: bytes | None) -> Reply:
    """The reply a mailbox held (``None``: none came, a timeout)."""
    if raw is None:
        return timed_out(request)
    kind, rest = raw.split(b"\n", 1)
    if kind == b"late":
        return timed_out(request)._replace(ms=float(rest))
    ms_text, body = rest.split(b"\n", 1)
    if kind == b"fault":
        reason, detail = body.decode().split("\n", 1)
        return Reply(None, Fault(FaultReason(reason), detail), float(ms_text))
    return Reply(body, None, float(ms_text))
