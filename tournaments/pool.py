"""Playing many fixtures at once: :class:`MatchPool`.

Every match is a :class:`~tournaments.fixtures.Fixture`, plain picklable data, played by
:func:`arena.play_match` in a worker process; results come back to the parent, which alone
writes the state and the database.

Two groups of worker processes, each started on first use (a tournament of one kind starts
one):

* matches of built-in bots are CPU-bound: ``concurrency`` processes of one thread each;
* matches with an HTTP seat mostly wait on the bots, but the referee's own work for each
  decision (encoding the view, parsing the answer) is CPU: on threads of one process, every
  match shares one core (one GIL). So they go to as many processes as there are cores (at
  most ``concurrency``), each running its share of ``concurrency`` threads: every core
  referees, and exactly ``concurrency`` matches are played at once, as many as the bots'
  announced ``max_connections`` were checked against.

Each group is a queue of fixtures that the workers' threads pull from, and all send their
outcomes, one message per match as soon as it ends, to one result queue the parent reads: no
result waits for another, so an interruption loses only the matches still being played.

How workers start matters to a tournament of short games, where a spawned worker's quarter of a
second of imports is felt: on Linux they are forked from this process when it runs a single
thread (no other thread can then hold a lock at that instant; a forked worker starts in
milliseconds and inherits the imports; macOS's system libraries are not safe to fork), else
forked from a fork server where the system has one (it imports the referee once for all
workers), else spawned.
"""

from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import pickle
import queue
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from arena import Registries, check_match, init_worker, play_match, snapshot
from tournaments.fixtures import Fixture, Outcome

POLL_S = 0.5
"""How often the parent, waiting for a result, checks that no worker died."""
JOIN_S = 5.0
"""How long a worker gets to leave after being told to (then it is terminated)."""
READY = {False: b"ready:built-in", True: b"ready:http"}
"""A worker's first message, by group (``remote``): started, imports done."""
PRELOAD = ["__main__", "tournaments.pool"]
"""What the fork server imports once, before it forks any worker."""

Result = tuple[Outcome | None, BaseException | None]


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
    """Play one scheduled match (in a worker, or here at concurrency 1)."""
    record = play_match(fixture.match)
    return Outcome.from_log(fixture, record.log, keep_log)


def threads_per_process(concurrency: int, processes: int) -> list[int]:
    """``concurrency`` threads shared as evenly as possible among ``processes``."""
    base, extra = divmod(concurrency, processes)
    return [base + (i < extra) for i in range(processes)]


def http_processes(concurrency: int, cores: int | None = None) -> int:
    """Processes for HTTP matches: one per core (``cores``, default all), never more than
    matches."""
    return max(1, min(concurrency, cores or os.cpu_count() or 1))


def worker_context() -> Any:
    """The multiprocessing context workers start in (see the module)."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and _one_thread():
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _one_thread() -> bool:
    """Whether this process runs a single thread, counting those Python did not start."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


# -- in a worker process ----------------------------------------------------------------------


def serve(tasks: Any, results: Any, threads: int, keep_logs: bool, registries: Registries,
          parent_pid: int, ready: bytes) -> None:
    """A worker process: says it is ``ready``, then ``threads`` threads each play fixtures
    from ``tasks`` until a ``None``, sending every outcome to ``results`` as it ends."""
    init_worker(registries, parent_pid)
    results.put(ready)
    helpers = [threading.Thread(target=_play_from, args=(tasks, results, keep_logs),
                                name=f"match-{n}", daemon=True) for n in range(threads - 1)]
    for helper in helpers:
        helper.start()
    _play_from(tasks, results, keep_logs)
    for helper in helpers:
        helper.join()


def _play_from(tasks: Any, results: Any, keep_logs: bool) -> None:
    while (fixture := tasks.get()) is not None:
        results.put(_result_message(fixture, keep_logs))


def _result_message(fixture: Fixture, keep_log: bool) -> bytes:
    """The pickled ``(outcome, error)`` of playing ``fixture``, pickled here so that an error
    that does not pickle still reaches the parent (a queue's feeder thread would drop it)."""
    try:
        message: Result = (play_fixture(fixture, keep_log), None)
    except Exception as exc:  # raised in the parent, as the match's error
        message = (None, exc)
    try:
        return pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    except Exception:
        error = RuntimeError(f"match {fixture.match_id} failed: {message[1]!r}")
        return pickle.dumps((None, error), pickle.HIGHEST_PROTOCOL)


# -- in the parent ------------------------------------------------------------------------------


class _Group:
    """Worker processes pulling fixtures from one queue; ``threads[i]`` threads in process i."""

    def __init__(self, context: Any, threads: list[int], results: Any, keep_logs: bool,
                 ready: bytes) -> None:
        self.tasks = context.SimpleQueue()
        self.threads = threads
        registries, parent = snapshot(), os.getpid()
        self.processes = [
            context.Process(target=serve, name=f"referee-match-{n}", daemon=True,
                            args=(self.tasks, results, count, keep_logs, registries, parent,
                                  ready))
            for n, count in enumerate(threads)
        ]
        for process in self.processes:
            process.start()

    def submit(self, fixture: Fixture) -> None:
        self.tasks.put(fixture)

    def died(self) -> str | None:
        """What went wrong if a worker process ended while it should be playing."""
        for process in self.processes:
            if process.exitcode is not None:
                return f"a match worker process ended unexpectedly (exit code {process.exitcode})"
        return None

    def close(self, kill: bool) -> None:
        if not kill:
            for _ in range(sum(self.threads)):
                self.tasks.put(None)
            for process in self.processes:
                process.join(JOIN_S)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            process.join(JOIN_S)
        self.tasks.close()


class MatchPool:
    """Plays fixtures with ``concurrency`` matches at once; results in completion order.

    ``concurrency == 1`` plays in this process (no pool to start). Otherwise see the module:
    built-in matches on ``concurrency`` processes, HTTP matches on threads spread over one
    process per core. ``keep_logs`` sends each match log back with its outcome.
    """

    def __init__(self, concurrency: int, keep_logs: bool = False,
                 http_processes: int | None = None) -> None:
        self.concurrency, self.keep_logs = max(1, concurrency), keep_logs
        self.http_processes = http_processes
        """Processes for HTTP matches (default: one per core; a bench sets it)."""
        self.depth = 2 * self.concurrency
        """Matches in flight: one queued behind each running one, so no worker waits for the
        parent's round trip between two quick games."""
        self._context: Any = None
        self._results: Any = None
        self._groups: dict[bool, _Group] = {}
        self._ready: set[bytes] = set()
        self._received: collections.deque[Result] = collections.deque()
        self._check_at = 0.0

    def _group(self, fixture: Fixture) -> _Group:
        """The workers for ``fixture``'s kind of match, started on first use."""
        remote = fixture.match.remote
        group = self._groups.get(remote)
        if group is None:
            if self._results is None:
                self._context = worker_context()
                self._results = self._context.Queue()
            if self._context.get_start_method() == "fork":
                # Workers forked now inherit the game, the bots and the board (read once per
                # process, and reading one costs as much as a quick game).
                check_match(fixture.match)
            if remote:
                processes = http_processes(self.concurrency, self.http_processes)
                threads = threads_per_process(self.concurrency, processes)
            else:
                threads = [1] * self.concurrency
            group = _Group(self._context, threads, self._results, self.keep_logs,
                           READY[remote])
            self._groups[remote] = group
        return group

    def run(self, fixtures: Iterable[Fixture]) -> Generator[Outcome, None, None]:
        """Yield outcomes as matches finish. Closing the generator stops the rest; an error
        playing a match (a bad seat, say) is raised here, and stops the rest too.

        Until the first worker for built-in matches is ready, this process plays built-in
        matches itself rather than wait idle; matches with an HTTP seat are only ever played
        by workers, so that no more of them run at once than ``concurrency``.
        """
        if self.concurrency == 1:
            for fixture in fixtures:
                yield play_fixture(fixture, self.keep_logs)
            return
        source = iter(fixtures)
        in_flight = 0
        try:
            while True:
                for fixture in itertools.islice(source, self.depth - in_flight):
                    self._group(fixture).submit(fixture)
                    in_flight += 1
                if not in_flight:
                    return
                extra = next(source, None) if self._warming() else None
                if extra is not None and extra.match.remote:
                    self._group(extra).submit(extra)
                    in_flight += 1
                elif extra is not None:
                    yield play_fixture(extra, self.keep_logs)
                else:
                    outcome, error = self._next_result()
                    in_flight -= 1
                    if error is not None:
                        raise error
                    assert outcome is not None
                    yield outcome
        finally:
            self.close(kill=in_flight > 0)

    def _warming(self) -> bool:
        """Whether workers for built-in matches were started and none is ready yet."""
        if False not in self._groups or READY[False] in self._ready:
            return False
        while True:  # take what has come in meanwhile, without waiting
            try:
                self._take(self._results.get_nowait())
            except queue.Empty:
                return READY[False] not in self._ready

    def _take(self, message: bytes) -> None:
        if message in (READY[False], READY[True]):
            self._ready.add(message)
        else:
            self._received.append(pickle.loads(message))

    def _next_result(self) -> Result:
        """The next match's ``(outcome, error)``; :class:`BrokenProcessPool` as soon as a worker
        is found dead (checked every :data:`POLL_S`, results coming or not): the
        match it was playing would otherwise be waited for forever."""
        while not self._received:
            if time.monotonic() >= self._check_at:
                self._check_at = time.monotonic() + POLL_S
                for group in self._groups.values():
                    problem = group.died()
                    if problem:
                        raise BrokenProcessPool(problem)
            try:
                self._take(self._results.get(timeout=POLL_S))
            except queue.Empty:
                continue
        return self._received.popleft()

    def close(self, kill: bool = False) -> None:
        """Stop the workers; ``kill`` ends those still playing a match."""
        groups, self._groups = self._groups, {}
        for group in groups.values():
            group.close(kill)
        results, self._results = self._results, None
        if results is not None:
            results.cancel_join_thread()
            results.close()
        self._ready.clear()
        self._received.clear()
