"""The match pool: HTTP matches spread over processes with threads inside, exactly
``concurrency`` at once; errors and dead workers reach the parent."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace

import pytest

from arena import MatchDescription, Seat
from referee.core import UnknownGameError
from tournaments import pool as pool_module
from tournaments.fixtures import Fixture
from tournaments.plan import Plan, parse_entrants
from tournaments.pool import MatchPool, http_processes, threads_per_process, worker_context
from tournaments.store import JsonlStateStore
from tournaments.tournament import Tournament, report

import tournament_bots
from support.http_bots import HostileServer


@pytest.fixture(autouse=True)
def with_test_bots():
    with tournament_bots.registered():
        yield


def test_http_matches_are_shared_evenly_over_one_process_per_core():
    assert http_processes(64, cores=2) == 2 and http_processes(1, cores=16) == 1
    assert http_processes(3, cores=8) == 3
    assert threads_per_process(64, 2) == [32, 32]
    assert threads_per_process(5, 2) == [3, 2] and sum(threads_per_process(7, 3)) == 7


def overlap(arrivals: list[tuple[float, str]]) -> int:
    """The most matches a bot was playing at once, from its /decide arrivals."""
    spans: dict[str, list[float]] = {}
    for at, request_id in arrivals:
        spans.setdefault(request_id.split(":")[0], []).append(at)
    events = sorted([(min(s), 1) for s in spans.values()] + [(max(s), -1) for s in spans.values()])
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def http_tournament(tmp_path, url: str, concurrency: int, name: str) -> dict:
    plan = Plan("toy-race", tuple(parse_entrants([f"a={url}", f"b={url}", "strong"])), 4, 2, 5)
    t = Tournament.start(plan, JsonlStateStore(tmp_path / name, "0badcafe"))
    return report(t, t.run(concurrency))


def test_http_matches_run_in_processes_with_threads_and_give_the_same_results(
        tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module.os, "cpu_count", lambda: 2)
    with HostileServer("sleep", delay=0.01) as bot:
        alone = http_tournament(tmp_path, bot.url, 1, "one")
        bot.arrivals.clear()
        spread = http_tournament(tmp_path, bot.url, 3, "three")
        assert 2 <= overlap(bot.arrivals) <= 3  # never more matches at once than asked for
    assert spread == alone and spread["played"] == 12


def test_the_http_group_has_one_process_per_core_each_with_its_threads(monkeypatch):
    monkeypatch.setattr(pool_module.os, "cpu_count", lambda: 2)
    pool = MatchPool(5)
    match = MatchDescription("toy-race", (Seat("http://127.0.0.1:9"), Seat("weak")), seed=1)
    group = pool._group(Fixture(0, 0, (0, 1), match))
    try:
        assert group.threads == [3, 2] and len(group.processes) == 2
        assert all(p.is_alive() and p.pid != os.getpid() for p in group.processes)
    finally:
        pool.close()
    assert not any(p.is_alive() for p in group.processes)


def test_an_error_in_a_worker_is_raised_in_the_parent(tmp_path):
    plan = Plan("toy-race", tuple(parse_entrants(["strong", "weak"])), 4, 2, 1)
    t = Tournament.start(plan, JsonlStateStore(tmp_path, "0badcafe"))
    fixtures = t.fixtures
    fixtures[1] = replace(fixtures[1], match=replace(fixtures[1].match, game="no-such"))
    with pytest.raises(UnknownGameError):
        list(MatchPool(2).run(fixtures))


def test_a_worker_that_dies_breaks_the_pool_instead_of_hanging(tmp_path):
    plan = Plan("toy-race", tuple(parse_entrants(["slow", "noisy"])), 200, 2, 1)
    t = Tournament.start(plan, JsonlStateStore(tmp_path, "0badcafe"))
    pool = MatchPool(2)
    outcomes = pool.run(t.fixtures)
    next(outcomes)
    pool._groups[False].processes[0].kill()
    with pytest.raises(BrokenProcessPool, match="ended unexpectedly"):
        for _ in outcomes:
            pass


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_way_of_starting_workers_gives_the_same_results(tmp_path, monkeypatch, method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    monkeypatch.setattr(pool_module, "worker_context",
                        lambda: multiprocessing.get_context(method))
    bots = ["noisy", "other-noisy", "strong", "weak"]

    def played(name: str, concurrency: int) -> dict:
        plan = Plan("toy-race", tuple(parse_entrants(bots)), 4, 2, 3)
        t = Tournament.start(plan, JsonlStateStore(tmp_path / name, "0badcafe"))
        return report(t, t.run(concurrency))

    assert played("pooled", 2) == played("inline", 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks only on Linux")
def test_workers_fork_from_this_process_only_when_it_runs_one_thread():
    alone = len(os.listdir("/proc/self/task")) == 1
    assert (worker_context().get_start_method() == "fork") == alone
    with HostileServer("ok"):  # a thread that could hold a lock at the fork
        assert threading.active_count() > 1
        assert worker_context().get_start_method() == "forkserver"
