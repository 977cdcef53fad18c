"""One attempt of one match, as every worker runs it (Celery task or embedded thread).

Claim (compare-and-swap), play with no transaction open while a timer renews the lease, then
finish (compare-and-swap on the attempt, with the rating step in the same transaction).  A
duplicate delivery claims nothing and returns at once; a crash mid-match leaves the lease to
expire and the sweeper to hand the match to the next attempt.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from ladder.work import Claim, claim, finish, renew, void
from referee.netpolicy import UrlPolicy

log = logging.getLogger("referee.runner")
Play = Callable[[Claim, UrlPolicy], dict[str, Any]]


def worker_name() -> str:
    """Who holds a lease: host, process and thread (several threads share a process)."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"[:200]


class LeaseKeeper:
    """Renews a claim's lease every third of its length until stopped or the row is lost."""

    def __init__(self, engine: Engine, held: Claim, lease_s: float) -> None:
        self.engine, self.held, self.lease_s = engine, held, lease_s
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-m{held.match_pk}",
                                        daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            try:
                if not renew(self.engine, self.held, self.lease_s):
                    self.lost.set()
                    return
            except Exception:  # a database hiccup: try again at the next beat
                log.exception("renewing the lease of match %s", self.held.match_pk)


def run_match(engine: Engine, match_pk: int, policy: UrlPolicy, *, lease_s: float,
              play: Play | None = None, worker: str | None = None,
              after: Callable[[str], object] | None = None) -> str:
    """Run the next attempt of ``match_pk``; what happened: ``nothing`` (no claim),
    ``finished``, ``superseded`` (another attempt owns it now) or ``voided``.  ``after``
    is called with the game once the attempt is over (finished or voided: its bots are free
    again), to run the matchmaker; its failures are logged, never the match's."""
    from api.execution import play as default_play

    began = time.perf_counter()
    held = claim(engine, match_pk, worker or worker_name(), lease_s)
    if held is None:
        return "nothing"
    try:
        with LeaseKeeper(engine, held, lease_s):
            claimed, cpu = time.perf_counter(), time.process_time()
            record = (play or default_play)(held, policy)
            played, cpu = time.perf_counter(), time.process_time() - cpu
    except Exception as exc:  # an engine or referee bug: this match cannot be played
        log.exception("match %s attempt %s failed", match_pk, held.attempt)
        void(engine, match_pk, f"referee error: {type(exc).__name__}: {exc}"[:200],
             attempt=held.attempt)
        _after(after, held.game)
        return "voided"
    outcome = "finished" if finish(engine, held, record) else "superseded"
    log.info("match %s attempt %s %s: claim %.3f s, play %.3f s (cpu %.3f s), finish %.3f s",
             match_pk, held.attempt, outcome, claimed - began, played - claimed, cpu,
             time.perf_counter() - played)
    if outcome == "finished":
        _after(after, held.game)
    return outcome


def _after(after: Callable[[str], object] | None, game: str) -> None:
    if after is None:
        return
    try:
        after(game)
    except Exception:  # the beat's next tick does the same work
        log.exception("matchmaker tick after a match of %s", game)
