"""Live spectating in the service: a running match's progress published as it plays, and the
spectator frames served from it while the seed-sharing rule allows (:mod:`ladder.live`).

The worker side (:func:`publishing`): while a match plays, one thread of the process reads the
runner's log so far every :data:`EVERY_S` and, when it grew, publishes it (the bots' own words left out) to
this process's :class:`~ladder.live.Progress`: Redis when the broker is Redis (every process
of the service shares it), else memory (the embedded server).  Publishing reads the runner
and never blocks it; a failure to publish is logged, never the match's.

The web side (:func:`live_document`): the frames of the latest snapshot from ``since`` on,
built by :func:`referee.frames.build_live` (the spectator's view only, as the finished
frames), once per snapshot and process.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from ladder import ConflictError
from ladder.live import LiveStatus, MemoryProgress, Progress, RedisProgress, Snapshot, live_status
from ladder.models import RUNNING
from ladder.work import Claim
from referee.frames import LogError, build_live
from referee.match import Runner, board_data
from referee.matchlog import LOG_FORMAT, LOG_VERSION
from referee.protocol import encode

log = logging.getLogger("referee.live")

EVERY_S = 0.5
"""How often a playing match's progress is looked at (published only when it grew)."""
OWN_WORDS = ("log", "stderr")
"""A decision's fields that are its bot's own words: owner-only, never published."""
CACHE_ITEMS = 256

_lock = threading.Lock()
_progress: Progress | None = None
_follows: tuple[str | None, str] | None = None
"""The Redis broker and queue :data:`_progress` was made for (an app factory may change
them, as it does the relay's: :func:`api.relays.configure`)."""


def process_progress() -> Progress:
    """This process's store of progress (made on first use, and again when the service's
    broker changes): Redis when the broker is, else memory."""
    global _progress, _follows
    from api.relays import redis_broker

    settings = redis_broker()
    with _lock:
        if _progress is None or _follows != settings:
            broker, queue = settings
            _progress = (RedisProgress(broker, prefix=f"referee:{queue}:live") if broker
                         else MemoryProgress())
            _follows = settings
        return _progress


def use(progress: Progress | None) -> None:
    """Make ``progress`` this process's store (``None``: a fresh one on next use), for
    tests."""
    global _progress, _follows
    from api.relays import redis_broker

    with _lock:
        _progress, _follows = progress, redis_broker()


def unavailable(mode: str) -> str | None:
    """Why this layout cannot show live matches (``None`` when it can): workers in other
    processes reach the web only through Redis."""
    from api.relays import redis_broker

    if mode == "embedded" or redis_broker()[0]:
        return None
    return "live matches need Redis as the broker: the workers publish their progress there"


# -- the worker's side --------------------------------------------------------------------

def snapshot(runner: Runner) -> dict[str, Any]:
    """The runner's log so far, without the bots' own words.  Read from another thread while
    it plays: the decisions are copied first, then the faults, so that every fault of a copied
    decision is in (a fault is recorded before its decision)."""
    decisions = [{k: v for k, v in d.items() if k not in OWN_WORDS}
                 for d in list(runner.decisions)]
    faults = [f.to_log() for f in list(runner.faults)]
    return {
        "format": LOG_FORMAT, "version": LOG_VERSION, "match_id": runner.match_id,
        "game": runner.game.name, "rules_version": runner.game.rules_version,
        "seed": runner.seed, "options": runner.options, "board": board_data(runner.board),
        "time_control": runner.time_control.to_dict(), "strike_limit": runner.strike_limit,
        "players": [{"seat": i, "name": s.name, "strikes": s.strikes,
                     "forfeited": s.forfeited} for i, s in enumerate(runner.seats)],
        "decisions": decisions, "faults": faults,
    }


class Publisher:
    """Publishes one attempt's progress while it plays: the process's :class:`Watcher` asks
    it every :data:`EVERY_S`, and it publishes when the log grew.  A match over before the
    first look (a game between built-in bots) publishes nothing and costs nothing."""

    def __init__(self, progress: Progress, match_pk: int, attempt: int) -> None:
        self.progress, self.match_pk, self.attempt = progress, match_pk, attempt
        self._runner: Runner | None = None
        self._seen = (-1, -1)
        self._closed = False
        self._lock = threading.Lock()

    def watch(self, runner: Runner) -> None:
        """Start following ``runner`` (``play_match``'s ``watch``)."""
        self._runner = runner
        WATCHER.add(self)

    def publish(self) -> None:
        """Publish the log so far if it grew since the last time (never after :meth:`close`)."""
        with self._lock:
            runner = self._runner
            if self._closed or runner is None:
                return
            seen = (len(runner.decisions), len(runner.faults))
            if seen == self._seen:
                return
            try:
                doc = encode(snapshot(runner))  # orjson: a whole log so far, each time
                self.progress.publish(self.match_pk, Snapshot(self.attempt, doc))
                self._seen = seen
            except Exception:  # spectators miss a step; the match plays on
                log.warning("match %s: publishing its progress failed", self.match_pk,
                            exc_info=True)

    def close(self) -> None:
        """Stop, and forget what was published (the stored log takes over)."""
        WATCHER.remove(self)
        with self._lock:
            self._closed = True
            if self._seen == (-1, -1):
                return
        try:
            self.progress.drop(self.match_pk, self.attempt)
        except Exception:  # it expires
            log.warning("match %s: dropping its progress failed", self.match_pk, exc_info=True)


class Watcher:
    """One thread per process that asks every playing match's :class:`Publisher` to publish,
    every :data:`EVERY_S` (started with the first match; a daemon)."""

    def __init__(self) -> None:
        self._publishers: set[Publisher] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, publisher: Publisher) -> None:
        with self._lock:
            self._publishers.add(publisher)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="live-progress",
                                                daemon=True)
                self._thread.start()

    def remove(self, publisher: Publisher) -> None:
        with self._lock:
            self._publishers.discard(publisher)

    def _run(self) -> None:
        while True:
            time.sleep(EVERY_S)
            with self._lock:
                publishers = list(self._publishers)
            for publisher in publishers:
                publisher.publish()


WATCHER = Watcher()


@contextmanager
def publishing(claim: Claim) -> Iterator[Callable[[Runner], None]]:
    """The ``watch`` for playing ``claim``: its progress is published while the block runs,
    and forgotten when it ends (the stored log takes over)."""
    publisher = Publisher(process_progress(), claim.match_pk, claim.attempt)
    try:
        yield publisher.watch
    finally:
        publisher.close()


# -- the web's side -----------------------------------------------------------------------

def refusal(pk: int, status: LiveStatus) -> str | None:
    """Why running match ``pk`` cannot be watched live now (``None``: it can, or it is not
    running: then there is nothing live to show, and nothing to refuse)."""
    if status.state != RUNNING or not status.waiting_on:
        return None
    others = ", ".join(str(m) for m in status.waiting_on)
    return (f"match {pk} is live after the pair ends: it shares its seed with match "
            f"{others}, not over yet, whose bots could read the dice to come")


class LiveCache:
    """The latest built live document of each running match: one build per snapshot, and one
    document per match kept (a newer snapshot replaces the older: a long match polled all
    along holds one copy, not one per snapshot)."""

    def __init__(self, items: int = CACHE_ITEMS) -> None:
        self.items = items
        self._docs: OrderedDict[int, tuple[tuple[int, int], dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def built(self, match_pk: int, stamp: tuple[int, int]) -> dict[str, Any] | None:
        """The document built from the snapshot of that stamp, if it is the one kept."""
        with self._lock:
            cached = self._docs.get(match_pk)
            if cached is None or cached[0] != stamp:
                return None
            self._docs.move_to_end(match_pk)
            return cached[1]

    def get(self, match_pk: int, found: Snapshot) -> dict[str, Any]:
        version = found.stamp
        kept = self.built(match_pk, version)
        if kept is not None:
            return kept
        try:
            doc = build_live(json.loads(found.log_json))
        except (LogError, ValueError, KeyError, TypeError) as exc:
            raise ConflictError(f"match {match_pk} cannot be shown here: {exc}") from exc
        with self._lock:
            self._docs[match_pk] = (version, doc)
            self._docs.move_to_end(match_pk)
            while len(self._docs) > self.items:
                self._docs.popitem(last=False)
        return doc


LIVE = LiveCache()


@dataclass(frozen=True)
class Live:
    """A running match as spectators may see it now."""

    status: LiveStatus
    reason: str | None
    """Why it cannot be watched (``None``: it can)."""
    doc: dict[str, Any] | None
    """Its frames document so far (``None``: refused, or nothing published yet)."""


def live(engine: Engine, match_pk: int, mode: str) -> Live:
    """The match's live state: refused with the reason, or its frames so far (none while it
    is not running, or before its attempt has published); NotFoundError for no such match."""
    status = live_status(engine, match_pk)
    reason = refusal(match_pk, status)
    if reason is None and status.state == RUNNING:
        reason = unavailable(mode)
    if reason is not None or status.state != RUNNING:
        return Live(status, reason, None)
    progress = process_progress()
    stamp = progress.stamp(match_pk)  # a few bytes: the snapshot only when it is new here
    doc = None if stamp is None or stamp[0] != status.attempt else LIVE.built(match_pk, stamp)
    if doc is not None:
        return Live(status, None, doc)
    found = progress.latest(match_pk)
    if found is None or found.attempt != status.attempt:
        return Live(status, None, None)  # the attempt has just begun
    return Live(status, None, LIVE.get(match_pk, found))


def live_document(engine: Engine, match_pk: int, mode: str, since: int) -> dict[str, Any]:
    """``GET /matches/{id}/live``'s answer: the frames from ``since`` on (the header and
    board too when ``since`` is 0); ConflictError with the reason when it may not be shown.
    A match not running has no frames here (``state`` says what it is: a finished one's are
    at ``/frames`` once public)."""
    now = live(engine, match_pk, mode)
    if now.reason is not None:
        raise ConflictError(now.reason)
    frames = now.doc["frames"] if now.doc is not None else []
    out: dict[str, Any] = {"match_id": match_pk, "state": now.status.state,
                           "attempt": now.status.attempt, "since": since,
                           "total": len(frames), "frames": frames[since:]}
    if since == 0 and now.doc is not None:
        out.update(format=now.doc["format"], version=now.doc["version"],
                   match=now.doc["match"], board=now.doc["board"])
    return out
