"""A tournament's matches on the service's Celery workers: :class:`BrokerPool`.

``referee tournament … --broker redis://…`` stays the dispatcher: it plans the schedule,
sends each missing match's :class:`~arena.MatchDescription` (as JSON) to the
``referee.play_description`` task, and books every result itself, in its own state file and
ladder, exactly as when it plays them in its own processes. ``referee worker`` processes on any
machine are the engine: each plays a description with :func:`arena.play_match` and returns its
match log through Celery's result backend (the broker's Redis).

Two sides of one contract live here: :func:`play_description`, what a worker does with a
message, and :class:`BrokerPool`, the tournament's :class:`~tournaments.pool.Pool` that sends
them and gathers the results:

* at most ``concurrency`` matches are in flight; results come back in completion order;
* a worker process that dies mid-match is covered by Celery (``acks_late``,
  ``reject_on_worker_lost``: the match is delivered again); a worker *machine* that vanishes
  is covered here: a match started longer than ``match_timeout_s`` ago is sent again, and the
  first result of a match wins (any other is revoked and dropped), so a match is booked once;
* closing the pool (Ctrl-C, an error) revokes every match still queued or playing.

A worker is a service process, so it plays under the service's rules: every HTTP seat goes
through the worker's URL policy (:mod:`referee.netpolicy`; ``REFEREE_ALLOW_NETWORKS`` opens
ranges), a URL with credentials is refused, and a board travels as data, never as a path
(a worker reads no file a message names).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from arena import DescriptionError, MatchDescription, load_board, play_match
from referee.errors import RefereeError
from referee.match import board_data
from referee.netpolicy import BlockedUrl, UrlPolicy
from tournaments.fixtures import Fixture, Outcome

TASK = "referee.play_description"
SUMMARY_KEYS = ("match_id", "result", "players", "faults")
"""What :meth:`Outcome.from_log` reads: all a worker sends back when the log is not kept."""
DEFAULT_MATCH_TIMEOUT_S = 900.0
TRIES = 3
"""How many times one match is sent before the tournament gives up on it."""
IDLE_WARNING_S = 30.0

log = logging.getLogger("referee.broker")


class BrokerError(RefereeError):
    """The broker cannot be reached, or a worker could not play a match (the message says
    which and why, in one line)."""


# -- the worker's side ------------------------------------------------------------------------


def play_description(data: Any, keep_log: bool, policy: UrlPolicy) -> dict[str, Any]:
    """Play one description sent by a tournament; ``{"log": …}`` or ``{"error": "…"}``.

    Errors are returned as data, not raised: a refused message is the sender's problem and
    says so in one line, while Celery would carry an exception as a type to rebuild. The log
    is cut to :data:`SUMMARY_KEYS` unless the tournament keeps logs (it records them).
    """
    try:
        description = checked_description(data, policy)
        match_log = dict(play_match(description, guard=policy.pin).log)
    except (RefereeError, BlockedUrl) as exc:
        return {"error": str(exc)}
    if not keep_log:
        match_log = {key: match_log[key] for key in SUMMARY_KEYS}
    return {"log": match_log}


def checked_description(data: Any, policy: UrlPolicy) -> MatchDescription:
    """The description a message carries, refused unless a service worker may play it."""
    description = MatchDescription.from_dict(data)
    description.check_shape()
    if isinstance(description.board, str):
        raise DescriptionError("a board must be sent as data: a worker reads no file by name")
    if description.over_http:
        raise DescriptionError("over_http is not played by workers")
    for seat in description.seats:
        if seat.remote:
            try:
                policy.check(seat.bot)
            except BlockedUrl as exc:
                raise BlockedUrl(f"seat {seat.shown_name}: {exc}") from None
    return description


# -- the tournament's side --------------------------------------------------------------------


def check_broker(url: str) -> None:
    """:class:`BrokerError` in one line unless ``url`` is a Redis the tournament can reach
    (Redis carries both the matches and their results)."""
    import redis

    from referee.display import redact

    if not url.startswith(("redis://", "rediss://")):
        raise BrokerError(f"--broker: {redact(url)!r} is not a redis:// or rediss:// URL")
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, ValueError, OSError) as exc:
        raise BrokerError(f"--broker: cannot reach {redact(url)}: {exc}") from None


def wire_description(description: MatchDescription,
                     boards: dict[str, Any] | None = None) -> dict[str, Any]:
    """The message of one match: its description with a board file's data in place of its
    path (the worker's machine has not got the file). ``boards`` caches data by path."""
    if isinstance(description.board, str):
        path = description.board
        cache = boards if boards is not None else {}
        if path not in cache:
            cache[path] = board_data(load_board(description.game, path))
        description = replace(description, board=cache[path])
    return description.to_dict()


@dataclass
class _Flight:
    """One task of one fixture: when it was sent, and when a worker was seen playing it."""

    fixture: Fixture
    sent: float
    started: float | None = None
    resent: bool = False


@dataclass
class _Waiting:
    """The poll's pace: quick after a result, slower while nothing happens."""

    delay: float = 0.01
    low: float = 0.01
    high: float = 0.25
    quiet_since: float = field(default_factory=time.monotonic)

    def after(self, progressed: bool) -> float:
        if progressed:
            self.delay, self.quiet_since = self.low, time.monotonic()
        else:
            self.delay = min(self.high, self.delay * 1.5)
        return self.delay


class BrokerPool:
    """Plays fixtures on Celery workers; a :class:`~tournaments.pool.Pool`.

    ``app`` is the service's Celery app (:func:`api.tasks.make_celery`) with the broker's Redis
    as its result backend; ``queue`` the workers' queue. ``warn`` receives the lines a user
    should see (no worker has taken a match for a while; a match was sent again).
    """

    def __init__(self, app: Any, queue: str, concurrency: int, keep_logs: bool = False, *,
                 match_timeout_s: float = DEFAULT_MATCH_TIMEOUT_S, tries: int = TRIES,
                 idle_warning_s: float = IDLE_WARNING_S,
                 warn: Callable[[str], None] | None = None) -> None:
        self.app, self.queue = app, queue
        self.concurrency, self.keep_logs = max(1, concurrency), keep_logs
        self.match_timeout_s, self.tries = match_timeout_s, max(1, tries)
        self.idle_warning_s = idle_warning_s
        self.warn = warn or log.warning
        self._flights: dict[str, _Flight] = {}
        self._tasks: dict[int, list[str]] = {}
        """Fixture index -> its tasks still awaited (the first result wins)."""
        self._boards: dict[str, Any] = {}
        self._warned_idle = False

    @classmethod
    def factory(cls, app: Any, queue: str, **options: Any) -> Callable[[int, bool], BrokerPool]:
        """A :data:`~tournaments.pool.PoolFactory` for :meth:`Tournament.run`."""
        return lambda concurrency, keep_logs: cls(app, queue, concurrency, keep_logs, **options)

    def run(self, fixtures: Iterable[Fixture]) -> Generator[Outcome, None, None]:
        """Yield outcomes as workers finish matches. Closing the generator revokes the rest."""
        source = iter(fixtures)
        waiting = _Waiting()
        try:
            while True:
                self._fill(source)
                if not self._tasks:
                    return
                outcomes = self._poll()
                for outcome in outcomes:
                    yield outcome
                if not outcomes:
                    self._check_idle(waiting.quiet_since)
                time.sleep(waiting.after(bool(outcomes)))
        finally:
            self.close()

    def close(self) -> None:
        """Revoke every task still awaited and drop the results that are in. A match already
        playing is not cut short (ending a pool process could hit the task it takes next):
        it finishes on its worker, and its result expires unread."""
        ids = list(self._flights)
        self._flights.clear()
        self._tasks.clear()
        if ids:
            try:
                self.app.control.revoke(ids)
                for task_id in ids:
                    self.app.backend.forget(task_id)
            except Exception as exc:  # closing after the broker went away: nothing to revoke
                log.info("revoking %d tasks: %s", len(ids), exc)

    # -- sending ----------------------------------------------------------------------------

    def _fill(self, source: Iterator[Fixture]) -> None:
        while len(self._tasks) < self.concurrency:
            fixture = next(source, None)
            if fixture is None:
                return
            self._send(fixture)

    def _send(self, fixture: Fixture) -> None:
        message = wire_description(fixture.match, self._boards)
        task_id = str(uuid.uuid4())
        try:
            result = self.app.send_task(TASK, args=[message, self.keep_logs], queue=self.queue,
                                        task_id=task_id)
        except Exception as exc:
            raise BrokerError(f"--broker: cannot send match {fixture.match_id}: {exc}") from None
        del result  # only the id is kept: a result object would hold a subscription
        self._flights[task_id] = _Flight(fixture, time.monotonic())
        self._tasks.setdefault(fixture.index, []).append(task_id)

    # -- gathering ----------------------------------------------------------------------------

    def _poll(self) -> list[Outcome]:
        """One look at the results of every task in flight (one round trip to Redis)."""
        ids = list(self._flights)
        backend = self.app.backend
        try:
            raws = backend.mget([backend.get_key_for_task(task_id) for task_id in ids])
        except Exception as exc:
            raise BrokerError(f"--broker: cannot read results: {exc}") from None
        outcomes = []
        now = time.monotonic()
        for task_id, raw in zip(ids, raws):
            flight = self._flights.get(task_id)
            if flight is None:  # its fixture was finished by another task in this poll
                continue
            try:
                meta = backend.decode_result(raw) if raw is not None else {"status": "PENDING"}
            except Exception as exc:  # not a result Celery wrote
                raise BrokerError(f"match {flight.fixture.match_id}: an unreadable result "
                                  f"({exc})") from None
            status = meta.get("status")
            if status == "SUCCESS":
                outcomes.append(self._finish(flight, meta.get("result")))
            elif status in ("FAILURE", "REVOKED"):
                self._failed(task_id, flight, f"{status.lower()}: {meta.get('result')}")
            elif status == "STARTED":
                flight.started = flight.started or now
                if now - flight.started > self.match_timeout_s and not flight.resent:
                    self._overdue(task_id, flight)
        return outcomes

    def _finish(self, flight: _Flight, envelope: Any) -> Outcome:
        fixture = flight.fixture
        if isinstance(envelope, Mapping) and "error" in envelope:
            raise BrokerError(f"match {fixture.match_id}: the worker refused it: "
                              f"{envelope['error']}")
        try:
            match_log = envelope["log"]
            if match_log.get("match_id") != fixture.match_id:
                raise ValueError(f"the log is of match {match_log.get('match_id')!r}")
            outcome = Outcome.from_log(fixture, match_log, self.keep_logs)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise BrokerError(f"match {fixture.match_id}: a worker sent back no match log "
                              f"({exc!r})") from None
        self._drop_fixture(fixture.index)
        return outcome

    def _drop_fixture(self, index: int) -> None:
        """The fixture is done: its other tasks (sent again, or delivered twice) are revoked."""
        ids = self._tasks.pop(index, [])
        for task_id in ids:
            self._flights.pop(task_id, None)
        try:
            if len(ids) > 1:
                self.app.control.revoke(ids)
            for task_id in ids:
                self.app.backend.forget(task_id)
        except Exception as exc:
            raise BrokerError(f"--broker: {exc}") from None

    def _failed(self, task_id: str, flight: _Flight, why: str) -> None:
        fixture = flight.fixture
        siblings = self._tasks[fixture.index]
        siblings.remove(task_id)
        del self._flights[task_id]
        if not siblings:
            raise BrokerError(f"match {fixture.match_id}: the worker failed ({why})")

    def _overdue(self, task_id: str, flight: _Flight) -> None:
        """A match playing longer than the timeout: its worker may be gone. Send it again,
        keeping the first task (whichever answers first is taken), up to :attr:`tries`."""
        fixture = flight.fixture
        flight.resent = True
        if len(self._tasks[fixture.index]) >= self.tries:
            raise BrokerError(
                f"match {fixture.match_id}: no result {self.match_timeout_s:g} s after a worker "
                f"started it (tries: {self.tries}; raise --match-timeout if matches are this "
                "long)")
        self.warn(f"match {fixture.match_id}: no result {self.match_timeout_s:g} s after a "
                  "worker started it; sent again")
        self._send(fixture)

    def _check_idle(self, quiet_since: float) -> None:
        """Say once when nothing has moved for a while and no worker plays any match."""
        if self._warned_idle or time.monotonic() - quiet_since < self.idle_warning_s:
            return
        if any(f.started is not None for f in self._flights.values()):
            return
        self._warned_idle = True
        self.warn(f"no worker has taken a match for {self.idle_warning_s:g} s: is `referee "
                  f"worker` running on queue {self.queue!r} of this broker?")
