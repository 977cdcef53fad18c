"""Live spectating: where a running match's progress is kept, and when it may be shown.

The worker playing a match publishes its log so far (a snapshot, the bots' own words left
out) under the match's id; the web process reads it and builds spectator frames from it.
They are different processes in production: the snapshot goes through Redis
(:class:`RedisProgress`, a key per match that expires), never through the database; an
embedded server keeps it in memory (:class:`MemoryProgress`).

When (:func:`live_status`): a running match may be watched only while no other match that
shares its seed (``pair_key``: a fixture's games, a challenge's rotation block) is unfinished,
scheduled or running.  Otherwise its dice would leak to the bots of that match: the same rule
that withholds logs (:mod:`ladder.reads`), applied before the end.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, select

from ladder import LadderError, NotFoundError
from ladder.db import reader, translate_errors
from ladder.models import RUNNING, SCHEDULED, Match

TTL_S = 900
"""How long a snapshot outlives its last update (a worker that dies leaves nothing for long)."""


@dataclass(frozen=True)
class Snapshot:
    """One attempt's progress: the attempt number and its log so far, as JSON bytes."""

    attempt: int
    log_json: bytes

    @property
    def stamp(self) -> tuple[int, int]:
        """What tells two snapshots apart: the attempt, and the length of its log so far (a
        log only grows)."""
        return self.attempt, len(self.log_json)


class Progress:
    """Where snapshots are kept: the last one per match."""

    def publish(self, match_pk: int, snapshot: Snapshot) -> None:
        raise NotImplementedError

    def latest(self, match_pk: int) -> Snapshot | None:
        raise NotImplementedError

    def drop(self, match_pk: int, attempt: int) -> None:
        """Forget the match's snapshot if it is still this attempt's."""
        raise NotImplementedError

    def stamp(self, match_pk: int) -> tuple[int, int] | None:
        """The latest snapshot's :attr:`Snapshot.stamp`, read without the snapshot where the
        store can (a poll whose document is built already reads a few bytes, not the log)."""
        found = self.latest(match_pk)
        return None if found is None else found.stamp


class MemoryProgress(Progress):
    """One process's snapshots (the embedded server: matches play on its own threads)."""

    def __init__(self) -> None:
        self._items: dict[int, Snapshot] = {}
        self._lock = threading.Lock()

    def publish(self, match_pk: int, snapshot: Snapshot) -> None:
        with self._lock:
            self._items[match_pk] = snapshot

    def latest(self, match_pk: int) -> Snapshot | None:
        with self._lock:
            return self._items.get(match_pk)

    def drop(self, match_pk: int, attempt: int) -> None:
        with self._lock:
            found = self._items.get(match_pk)
            if found is not None and found.attempt == attempt:
                del self._items[match_pk]


class RedisProgress(Progress):
    """Snapshots in Redis, ``<prefix>:<match>`` = ``ATTEMPT\\nLOG_JSON`` and, beside it,
    ``<prefix>:<match>:stamp`` = ``ATTEMPT:LENGTH``, both expiring after :data:`TTL_S`.  A
    Redis error is a :class:`~ladder.LadderError` (the API's 503)."""

    def __init__(self, url: str, prefix: str = "referee:live") -> None:
        import redis

        self._redis: Any = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self._errors = (redis.RedisError, OSError)
        self.prefix = prefix

    def _key(self, match_pk: int) -> str:
        return f"{self.prefix}:{match_pk}"

    def publish(self, match_pk: int, snapshot: Snapshot) -> None:
        value = str(snapshot.attempt).encode() + b"\n" + snapshot.log_json
        stamp = "%d:%d" % snapshot.stamp
        try:
            with self._redis.pipeline(transaction=True) as both:  # never one without the other
                both.set(self._key(match_pk), value, ex=TTL_S)
                both.set(self._key(match_pk) + ":stamp", stamp, ex=TTL_S)
                both.execute()
        except self._errors as exc:
            raise LadderError(f"live progress store: {type(exc).__name__}: {exc}") from exc

    def latest(self, match_pk: int) -> Snapshot | None:
        try:
            value = self._redis.get(self._key(match_pk))
        except self._errors as exc:
            raise LadderError(f"live progress store: {type(exc).__name__}: {exc}") from exc
        if value is None:
            return None
        attempt, _, log_json = bytes(value).partition(b"\n")
        return Snapshot(int(attempt), log_json)

    def stamp(self, match_pk: int) -> tuple[int, int] | None:
        try:
            value = self._redis.get(self._key(match_pk) + ":stamp")
        except self._errors as exc:
            raise LadderError(f"live progress store: {type(exc).__name__}: {exc}") from exc
        if value is None:  # none published, or by a worker that wrote no stamp
            return super().stamp(match_pk)
        attempt, _, size = bytes(value).partition(b":")
        return int(attempt), int(size)

    def drop(self, match_pk: int, attempt: int) -> None:
        found = self.latest(match_pk)
        if found is not None and found.attempt == attempt:
            try:
                self._redis.delete(self._key(match_pk), self._key(match_pk) + ":stamp")
            except self._errors as exc:
                raise LadderError(f"live progress store: {type(exc).__name__}: {exc}") from exc


@dataclass(frozen=True)
class LiveStatus:
    """What the database says of a match for spectators."""

    state: str
    attempt: int
    waiting_on: tuple[int, ...]
    """The unfinished matches sharing its seed (none: it may be watched while it runs)."""

    @property
    def watchable(self) -> bool:
        return self.state == RUNNING and not self.waiting_on


def live_status(engine: Engine, match_pk: int) -> LiveStatus:
    """Its state and attempt, and the other matches sharing its seed that are not over;
    :class:`~ladder.NotFoundError` for no such match."""
    with translate_errors(engine), reader(engine) as conn:
        m = conn.execute(select(Match.state, Match.attempt, Match.pair_key)
                         .where(Match.id == match_pk)).one_or_none()
        if m is None:
            raise NotFoundError(f"no match {match_pk}")
        waiting: tuple[int, ...] = ()
        if m.pair_key:
            waiting = tuple(conn.execute(
                select(Match.id).where(Match.pair_key == m.pair_key, Match.id != match_pk,
                                       Match.state.in_((SCHEDULED, RUNNING)))
                .order_by(Match.id)).scalars())
    return LiveStatus(m.state, int(m.attempt or 0), waiting)
