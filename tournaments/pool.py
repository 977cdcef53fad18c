"""Playing many fixtures at once: :class:`MatchPool`.

Every match is a :class:`~tournaments.fixtures.Fixture`, plain picklable data, so matches of
built-in bots run in a spawn-context process pool (CPU-bound bots gain nothing from threads);
matches with an HTTP bot run on threads, since they mostly wait. Each is played by
:func:`arena.play_match`. Results come back to the parent, which alone writes the state and
the database.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Protocol

from arena import init_worker, play_match, snapshot
from tournaments.fixtures import Fixture, Outcome


class Pool(Protocol):
    """What plays a tournament's matches: :class:`MatchPool` here, or another machine's
    workers (``api.broker_pool``, above this layer, injected through :meth:`Tournament.run
    <tournaments.tournament.Tournament.run>`).

    ``run`` yields one :class:`Outcome` per fixture, in completion order (closing the
    generator stops the rest); the parent alone books them, so results, standings and resume
    do not depend on where a match was played.
    """

    def run(self, fixtures: Iterable[Fixture]) -> Generator[Outcome, None, None]: ...

    def close(self) -> None: ...


PoolFactory = Callable[[int, bool], Pool]
"""Makes the pool of one run from its concurrency and ``keep_logs`` (:class:`MatchPool` is one)."""


def play_fixture(fixture: Fixture, keep_log: bool) -> Outcome:
    """Play one scheduled match. Top-level so a process pool can pickle it by name."""
    record = play_match(fixture.match)
    return Outcome.from_log(fixture, record.log, keep_log)


class MatchPool:
    """Plays fixtures on ``concurrency`` workers; results in completion order.

    ``concurrency == 1`` plays in this process (no pool to start). Otherwise in-process matches
    go to a spawn-context pool of ``concurrency`` processes and matches with an HTTP seat to a
    pool of as many threads; each pool is created on first use, so a tournament of one kind
    starts only one. ``keep_logs`` sends each match log back with its outcome.
    """

    def __init__(self, concurrency: int, keep_logs: bool = False) -> None:
        self.concurrency, self.keep_logs = max(1, concurrency), keep_logs
        self.depth = 2 * self.concurrency
        """Matches in flight: one queued behind each running one, so no worker waits for the
        parent's round trip between two quick games."""
        self._processes: ProcessPoolExecutor | None = None
        self._threads: ThreadPoolExecutor | None = None

    def _executor(self, fixture: Fixture) -> Executor:
        if fixture.match.remote:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.concurrency, "referee-match")
            return self._threads
        if self._processes is None:
            self._processes = ProcessPoolExecutor(
                self.concurrency, mp_context=multiprocessing.get_context("spawn"),
                initializer=init_worker, initargs=(snapshot(), os.getpid()),
            )
        return self._processes

    def run(self, fixtures: Iterable[Fixture]) -> Generator[Outcome, None, None]:
        """Yield outcomes as matches finish. Closing the generator stops the rest."""
        if self.concurrency == 1:
            for fixture in fixtures:
                yield play_fixture(fixture, self.keep_logs)
            return
        pending: set[Future[Outcome]] = set()
        source = iter(fixtures)
        try:
            while True:
                for fixture in itertools.islice(source, self.depth - len(pending)):
                    executor = self._executor(fixture)
                    pending.add(executor.submit(play_fixture, fixture, self.keep_logs))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: f.result().index):
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()
            self.close(kill=bool(pending))

    def close(self, kill: bool = False) -> None:
        """Shut the pools down; ``kill`` ends worker processes still playing a match."""
        if self._processes is not None:
            workers = list(getattr(self._processes, "_processes", {}).values())
            self._processes.shutdown(wait=not kill, cancel_futures=True)
            if kill:
                for proc in workers:
                    proc.terminate()
                for proc in workers:
                    proc.join(timeout=5)
            self._processes = None
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
            self._threads = None
