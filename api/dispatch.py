"""Handing work to workers: Celery in production, threads when embedded.

The work is scheduled matches (:func:`api.runner.run_match`) and bot checks
(:func:`api.execution.run_check`); the database decides who runs what, so a dispatcher only
has to deliver ids at least once (the sweepers cover a lost delivery).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Engine

from api.scheduling import after_match, sweep_and_enqueue, tick_and_enqueue
from ladder import checks
from ladder.matchmaking import MatchmakerConfig
from ladder.work import SweepPolicy, pending_ids
from referee.netpolicy import UrlPolicy

log = logging.getLogger("referee.dispatch")
PUBLISH_SOCKET = {"socket_timeout": 1, "socket_connect_timeout": 1}
PUBLISH: dict[str, Any] = {
    "ignore_result": True,  # else Celery subscribes to the result first (its backend is Redis)
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.5,
                     "interval_max": 0.5},
}
MATCH, CHECK = "match", "check"


class Dispatcher(Protocol):
    def start(self) -> None:
        """Begin delivering: the embedded pool starts its threads (a server's step, never
        the app factory's); Celery has nothing to start."""

    def enqueue(self, ids: Sequence[int]) -> None: ...

    def enqueue_checks(self, ids: Sequence[int]) -> None: ...

    def close(self) -> None: ...


class CeleryDispatcher:
    """Sends ``run_match(id)`` tasks to the broker (the workers are ``referee worker``)."""

    def __init__(self, broker_url: str, queue_name: str) -> None:
        from api.tasks import make_celery

        self.app = make_celery(broker_url, queue_name)
        # it publishes from a request thread: a broker down or hanging costs seconds, and a
        # lost id is enqueued again by the sweeper
        self.app.conf.broker_transport_options = {
            **self.app.conf.broker_transport_options, **PUBLISH_SOCKET}

    def start(self) -> None:
        pass

    def enqueue(self, ids: Sequence[int]) -> None:
        for match_pk in ids:
            self.app.send_task("referee.run_match", args=[match_pk], **PUBLISH)

    def enqueue_checks(self, ids: Sequence[int]) -> None:
        for check_id in ids:
            self.app.send_task("referee.run_check", args=[check_id], **PUBLISH)

    def close(self) -> None:
        self.app.close()


class EmbeddedPool:
    """``workers`` threads playing matches and running bot checks in this process, a sweeper
    thread and (given ``health_s``) a thread probing the bots' health every ``health_s``
    seconds.  A check goes before the matches waiting (its owner is waiting for it).

    At start it queues every match not over (but those the matchmaker holds back) and every
    queued check (a restarted server picks up where it was).  Its ticker, sweeper and the
    tick after each match are :mod:`api.scheduling`'s.
    """

    def __init__(self, engine: Engine, policy: UrlPolicy, *, workers: int, lease_s: float,
                 sweep_s: float, sweep_policy: SweepPolicy, start: bool = True,
                 tick_s: float = 20.0, matchmaker: MatchmakerConfig | None = None,
                 health_s: float | None = None, probe_interval_s: float = 1800.0) -> None:
        self.engine, self.policy, self.lease_s = engine, policy, lease_s
        self.sweep_s, self.sweep_policy = sweep_s, sweep_policy
        self.tick_s, self.matchmaker = tick_s, matchmaker or MatchmakerConfig()
        self.health_s, self.probe_interval_s = health_s, probe_interval_s
        self._queue: queue.Queue[int] = queue.Queue()  # matches
        self._checks: queue.Queue[int] = queue.Queue()  # taken before the matches
        self._ready = threading.Semaphore(0)  # released once per job queued, and to stop
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._work, name=f"match-worker-{i}",
                                          daemon=True) for i in range(workers)]
        self._threads.append(threading.Thread(target=self._sweep, name="sweeper",
                                              daemon=True))
        self._threads.append(threading.Thread(target=self._ticker, name="matchmaker",
                                              daemon=True))
        if health_s:
            self._threads.append(threading.Thread(target=self._health, name="health",
                                                  daemon=True))
        if start:
            self.start()

    def start(self) -> None:
        self.enqueue_checks(checks.pending_ids(self.engine))
        self.enqueue(pending_ids(self.engine))
        for thread in self._threads:
            thread.start()

    def enqueue(self, ids: Sequence[int]) -> None:
        for match_pk in ids:
            self._queue.put(match_pk)
            self._ready.release()

    def enqueue_checks(self, ids: Sequence[int]) -> None:
        for check_id in ids:
            self._checks.put(check_id)
            self._ready.release()

    def close(self) -> None:
        self._stop.set()
        for _ in self._threads:
            self._ready.release()

    def _work(self) -> None:
        from api.execution import run_check
        from api.runner import RETRY_DELAY_S, run_match

        after = after_match(self.engine, self.matchmaker, self)
        while True:
            self._ready.acquire()
            if self._stop.is_set():
                return
            try:
                kind, job_id = CHECK, self._checks.get_nowait()
            except queue.Empty:
                try:
                    kind, job_id = MATCH, self._queue.get_nowait()
                except queue.Empty:  # taken by someone else
                    continue
            try:
                if kind == CHECK:
                    run_check(self.engine, job_id, self.policy, lease_s=self.lease_s)
                    continue
                outcome = run_match(self.engine, job_id, self.policy, lease_s=self.lease_s,
                                    after=after)
            except Exception:  # the database went away: the sweeper will offer it again
                log.exception("%s %s", kind, job_id)
                continue
            if outcome == "retry":  # the referee failed that attempt: the next one, soon
                timer = threading.Timer(RETRY_DELAY_S, self.enqueue, args=[[job_id]])
                timer.daemon = True
                timer.start()

    def tick(self, wait: bool = True) -> None:
        """Run the matchmaker and queue what it released."""
        tick_and_enqueue(self.engine, self.matchmaker, self, wait=wait)

    def _ticker(self) -> None:
        while True:
            try:
                self.tick()
            except Exception:
                log.exception("matchmaker tick")
            if self._stop.wait(self.tick_s):
                return

    def _sweep(self) -> None:
        while not self._stop.wait(self.sweep_s):
            try:
                sweep_and_enqueue(self.engine, self.sweep_policy, self)
            except Exception:
                log.exception("sweeping")

    def _health(self) -> None:
        from api.health import probe_now

        while not self._stop.wait(self.health_s):
            try:
                probe_now(self.engine, self.policy, self.probe_interval_s)
            except Exception:
                log.exception("probing bots")

