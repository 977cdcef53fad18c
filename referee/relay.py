"""Requests to bots that connect out (pull mode), and their answers: the :class:`Relay`.

A pull bot has no address: it holds a connection to the service (a long-poll, ``take``) and
posts each answer to a URL named by the request (``answer``). The match that asks (a
:class:`~referee.pull_player.RelayPlayer`) and the connection that carries the question can be
in different processes (a Celery worker, a web process): the relay joins them. Its contract,
the same for every implementation (in memory here, in Redis in production):

* **The match side** :meth:`Relay.exchange` queues one request for a bot and waits for its
  answer. A request no connection of the bot takes within the pick-up limit
  (:func:`pickup_ms`) is a ``connection_error`` fault: the bot is not connected. Once taken,
  the bot has ``deadline_ms`` from that moment, *the moment the request is handed to its
  connection*; an answer within it comes back with the time it took, measured on the
  connection's side, and no answer within it is a ``timeout`` fault.
* **The connection side** :meth:`Relay.take` hands the bot's queued requests to its connection
  (waiting up to ``wait_s`` for one), which starts their clocks; one connection per bot, a newer
  one replaces the older (:class:`Replaced`). A poll with ``resume`` says the bot may have lost
  what it was handed before (it reconnected): it is handed again every request it was handed
  and has not answered whose deadline has not passed, with the time left as its deadline (the
  clock is not restarted). Only on ``resume``: a bot that polls again while it computes (the
  bridge does) is never handed a request twice. :meth:`Relay.answer` delivers one answer, raw, as
  the bot sent it: reading it (strict JSON, an offered id) is the match side's business, with
  the same code as an HTTP bot's answer. An answer to a request that is not the bot's, or not
  asked, is ``unknown``; one after the deadline is ``late`` (the match side has struck it); a
  second answer to a request answered in time is ``duplicate``: the first stands, no strike.
* **A failure of the relay itself** (its store unreachable) raises :class:`RelayError`: the
  referee's failure, never a bot's fault (a service worker books it as an incident and plays
  the match again).

Requests are envelopes (:func:`envelope`): the document an HTTP bot receives at ``path``,
exactly, with the request's id and deadline beside it.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from referee.errors import RefereeError
from referee.faults import Fault, FaultReason

PICKUP_MS = 2000
"""The least time a request waits for the bot's connection to take it (a bot re-polls after
each answer: a round trip on a slow network)."""
PRESENCE_GRACE_S = 10.0
"""A bot whose last poll ended less than this ago is still connected (it is re-polling)."""
RECENT_MAX = 4096
"""Requests remembered after they closed, so that a late answer is told it was late (and a
second one that the first stands)."""


class RelayError(RefereeError):
    """The relay cannot carry requests (its store is down): the referee's failure."""


class Replaced(RefereeError):
    """This connection was replaced by a newer one of the same bot."""


class Request(NamedTuple):
    """One request to a pull bot: its id, the path an HTTP bot would be sent it at, its body
    (the exact document), and the bot's time to answer once its connection has it."""

    request_id: str
    path: str
    body: bytes
    deadline_ms: int


class Reply(NamedTuple):
    """What came back: the answer's raw body, or the fault; ``ms``, the bot's time from the
    hand-off to its answer (measured where the answer arrived)."""

    body: bytes | None
    fault: Fault | None
    ms: float


class Delivered(StrEnum):
    """What became of an answer the connection side delivered."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    """The request was answered already: the first answer stands (no strike), this one is
    dropped (a bridge's re-post after a lost connection may be one)."""
    LATE = "late"
    UNKNOWN = "unknown"


def pickup_ms(deadline_ms: int) -> int:
    """How long a request waits for a connection of its bot to take it."""
    return max(PICKUP_MS, deadline_ms)


def envelope(request: Request, left_ms: int | None = None) -> bytes:
    """The request as its bot's connection receives it: ``{"request_id", "path",
    "deadline_ms", "body"}``, the body inserted as it is (never re-encoded). ``left_ms``: the
    request is handed again (a resumed connection): its ``deadline_ms`` is the time left, and
    ``"resent": true`` says so (the body keeps the first hand-over's ``deadline_ms``)."""
    from referee.protocol import encode  # the protocol imports the players: not at load

    deadline, resent = ((request.deadline_ms, b"") if left_ms is None
                        else (left_ms, b',"resent":true'))
    return b"".join((b'{"request_id":', encode(request.request_id), b',"path":',
                     encode(request.path), b',"deadline_ms":', str(deadline).encode(), resent,
                     b',"body":', request.body, b"}"))


def not_taken(request: Request) -> Reply:
    wait = pickup_ms(request.deadline_ms)
    return Reply(None, Fault(FaultReason.CONNECTION_ERROR,
                             f"the bot is not connected: no connection of it took the "
                             f"request within {wait} ms"), 0.0)


def timed_out(request: Request) -> Reply:
    return Reply(None, Fault(FaultReason.TIMEOUT, f"no answer within {request.deadline_ms} ms "
                             "of the request reaching the bot's connection"),
                 float(request.deadline_ms))


class Relay(ABC):
    """Requests to pull bots and their answers, between the match and the bot's connection
    (the contract is the module's docstring). ``bot`` is the bot's key (its id as a string)."""

    @abstractmethod
    def exchange(self, bot: str, request: Request) -> Reply:
        """Ask ``bot`` ``request`` and wait for the answer or the fault; never raises for
        the bot's doing, :class:`RelayError` for the relay's own failure."""

    @abstractmethod
    def take(self, bot: str, wait_s: float, resume: bool = False) -> list[bytes]:
        """The bot's queued requests as envelopes, waiting up to ``wait_s`` for one (an empty
        list when none came); their clocks start now. ``resume``: first, the requests handed
        before and still unanswered within their deadline, again (their clocks running on).
        :class:`Replaced` when a newer connection of the bot took over meanwhile."""

    @abstractmethod
    def answer(self, bot: str, request_id: str, body: bytes | None,
               fault: Fault | None = None) -> tuple[Delivered, float]:
        """Deliver the bot's answer to ``request_id`` (``fault``: one found on the way, a body
        over the size cap); what became of it and the bot's time."""

    @abstractmethod
    def connected(self, bot: str) -> bool:
        """Whether the bot has a connection now (polling, or between two polls)."""


@dataclass
class _Slot:
    request: Request
    bot: str
    state: str = "queued"
    """``queued``, ``handed`` (its clock running), ``done`` (answered or given up)."""
    handed_at: float = 0.0
    reply: Reply | None = None
    answered_ms: float | None = None
    """The bot's time of the answer accepted (``None``: none was): a second one is a duplicate."""


@dataclass
class _Line:
    """One bot's side: its queue, its connection's generation, when it was last seen."""

    queue: deque[_Slot] = field(default_factory=deque)
    generation: int = 0
    polling: int = 0
    last_seen: float | None = None


class MemoryRelay(Relay):
    """The relay of a single process (the embedded server: matches on its threads, the
    bots' connections on its web threads): one lock, one condition, no store to fail."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or time.perf_counter
        self._cond = threading.Condition()
        self._lines: dict[str, _Line] = {}
        self._open: dict[tuple[str, str], _Slot] = {}
        self._recent: OrderedDict[tuple[str, str], float | None] = OrderedDict()
        """Closed requests: the time of their accepted answer, ``None`` for none."""

    def _line(self, bot: str) -> _Line:
        return self._lines.setdefault(bot, _Line())

    def exchange(self, bot: str, request: Request) -> Reply:
        key = (bot, request.request_id)
        slot = _Slot(request, bot)
        with self._cond:
            if key in self._open:
                raise RelayError(f"request {request.request_id!r} of bot {bot} is asked twice")
            self._open[key] = slot
            self._line(bot).queue.append(slot)
            self._cond.notify_all()
            try:
                if not self._cond.wait_for(lambda: slot.state != "queued",
                                           pickup_ms(request.deadline_ms) / 1000):
                    self._line(bot).queue.remove(slot)
                    return not_taken(request)
                left = slot.handed_at + request.deadline_ms / 1000 - self._clock()
                self._cond.wait_for(lambda: slot.reply is not None, max(0.0, left))
                return slot.reply or timed_out(request)
            finally:
                slot.state = "done"
                self._close(key, slot.answered_ms)

    def _close(self, key: tuple[str, str], answered_ms: float | None) -> None:
        self._open.pop(key, None)
        self._recent[key] = answered_ms
        while len(self._recent) > RECENT_MAX:
            self._recent.popitem(last=False)

    def take(self, bot: str, wait_s: float, resume: bool = False) -> list[bytes]:
        with self._cond:
            line = self._line(bot)
            line.generation += 1
            mine = line.generation
            line.polling += 1
            self._cond.notify_all()  # an older connection waiting learns it is replaced
            try:
                again = self._handed(bot) if resume else []
                self._cond.wait_for(lambda: bool(line.queue) or line.generation != mine,
                                    0 if again else wait_s)
                if line.generation != mine:
                    raise Replaced("a newer connection of this bot took over")
                now, taken = self._clock(), again
                while line.queue:
                    slot = line.queue.popleft()
                    slot.state, slot.handed_at = "handed", now
                    taken.append(envelope(slot.request))
                self._cond.notify_all()
                return taken
            finally:
                line.polling -= 1
                line.last_seen = self._clock()

    def _handed(self, bot: str) -> list[bytes]:
        """The envelopes of ``bot``'s requests handed over, unanswered, within their
        deadline, with the time left (a resumed connection's)."""
        now, again = self._clock(), []
        for (owner, _), slot in self._open.items():
            if owner != bot or slot.state != "handed" or slot.reply is not None:
                continue
            left = int(slot.handed_at * 1000 + slot.request.deadline_ms - now * 1000)
            if left > 0:
                again.append(envelope(slot.request, left))
        return again

    def answer(self, bot: str, request_id: str, body: bytes | None,
               fault: Fault | None = None) -> tuple[Delivered, float]:
        key = (bot, request_id)
        with self._cond:
            now = self._clock()
            slot = self._open.get(key)
            first = slot.answered_ms if slot is not None else self._recent.get(key)
            if first is not None:  # the first answer stands, whether the match woke or not
                return Delivered.DUPLICATE, first
            if slot is None or slot.state != "handed":
                return (Delivered.LATE if key in self._recent else Delivered.UNKNOWN), 0.0
            if slot.reply is not None:  # answered too late already: struck
                return Delivered.LATE, 0.0
            ms = (now - slot.handed_at) * 1000
            if ms > slot.request.deadline_ms:
                slot.reply = timed_out(slot.request)._replace(ms=ms)
                self._cond.notify_all()
                return Delivered.LATE, ms
            slot.reply, slot.answered_ms = Reply(None if fault else body, fault, ms), ms
            self._cond.notify_all()
            return Delivered.ACCEPTED, ms

    def connected(self, bot: str) -> bool:
        with self._cond:
            line = self._lines.get(bot)
            if line is None:
                return False
            return line.polling > 0 or (line.last_seen is not None and
                                        self._clock() - line.last_seen < PRESENCE_GRACE_S)
