"""The production layout under faults: it heals by itself, loses nothing and blames no bot.

PostgreSQL, a Redis of the test's own, a supervised ``referee worker`` and ``referee beat``,
and four owners' HTTP bots on both ladders (Tokaido Duo and Doubletrack, with the house
``random`` and ``greedy``). While the ladders play, the test injects, one after another:

* Redis stopped and started again (empty: it keeps nothing, so the queued ids are lost too);
* the worker's match processes frozen (SIGSTOP) for longer than a decision's time, well
  under the lease, then thawed: the referee's stall, not the bots';
* the Celery worker process and its pool processes killed outright (SIGKILL), matches in
  the middle.

After each, both ladders must go on playing by themselves. At the end: every match scheduled
before the last fault is finished (none voided, none lost), no bot was struck (they all
answer at once), the referee booked no failure of its own, and the ratings equal a recompute.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from ladder.leaderboard import leaderboard
from ladder.models import RUNNING, Incident, Match, MatchSeat
from ladder.recompute import recompute
from ladder.store import open_db

from service.conftest import Client
from service.test_celery import TESTS
from service.test_living_ladder_e2e import free_port
from support.processes import child_pids
from support.redis_service import redis_ok

GAMES = ("tokaido-duo", "doubletrack")
LEASE_S = 6.0
FREEZE_S = 2.5
"""Longer than a decision's time (1 s), shorter than what is left of a lease (two thirds)."""


class Redis:
    """A redis-server of the test's own, to stop and start (it keeps nothing on disk)."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder = free_port(), folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self.answers, 10, "redis-server did not start")

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    give_up = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > give_up:
            raise AssertionError(what)
        time.sleep(0.1)
    return found


class Layout:
    """The supervised worker and beat, and the test's view of the database."""

    def __init__(self, db_url: str, broker: str, tmp: Path) -> None:
        self.tmp, self.engine = tmp, open_db(db_url)
        self.env = {**os.environ, "PYTHONPATH": str(TESTS), "REFEREE_DB": db_url,
                    "REFEREE_BROKER": broker,
                    "REFEREE_QUEUE": f"referee-faults-{os.getpid()}-{secrets.token_hex(3)}",
                    "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8", "REFEREE_LEASE_S": str(LEASE_S),
                    "REFEREE_SWEEP_S": "0.5", "REFEREE_REQUEUE_AFTER_S": "2",
                    "REFEREE_TICK_S": "1", "REFEREE_HEALTH_S": "3600"}
        self.procs = [self._start("worker", "--concurrency", "2", "--loglevel", "info"),
                      self._start("beat", "--schedule", str(tmp / "beat-schedule"),
                                  "--loglevel", "warning")]

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"{args[0]}.log", "wb")
        return subprocess.Popen([sys.executable, "-m", "support.service_worker", *args],
                                env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def celery_worker(self) -> int:
        """The Celery process ``referee worker`` supervises (it is started again when it dies)."""
        found: set[int] = wait_until(lambda: child_pids(self.procs[0].pid), 30,
                                     "no Celery worker process")
        return found.pop()

    def match_processes(self) -> set[int]:
        return child_pids(self.celery_worker())

    def finished(self, game: str) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(Match).where(
                Match.game == game, Match.state == "finished")).scalar_one())

    def more_finished(self, count: int, timeout: float, what: str) -> None:
        """Until ``count`` more matches of each game are finished than now."""
        start = {game: self.finished(game) for game in GAMES}
        wait_until(lambda: all(self.finished(g) >= start[g] + count for g in GAMES), timeout,
                   f"{what}: the ladders did not go on ({start}); "
                   f"worker log: {self.log('worker')}")

    def kill_worker_mid_match(self) -> tuple[int, list[int]]:
        """SIGKILL the Celery worker and its pool processes while a match is running: they are
        frozen first, so that the matches running then cannot finish before the kill.  The
        worker's pid and the ids of the matches cut off."""
        for _ in range(200):
            worker = self.celery_worker()
            group = {worker} | child_pids(worker)
            for pid in group:
                os.kill(pid, signal.SIGSTOP)
            with self.engine.connect() as conn:
                running = conn.execute(
                    select(Match.id).where(Match.state == RUNNING)).scalars().all()
            if running:
                for pid in group:
                    os.kill(pid, signal.SIGKILL)
                return worker, list(running)
            for pid in group:
                os.kill(pid, signal.SIGCONT)
            time.sleep(0.05)
        raise AssertionError("no match was ever running to kill the worker in")

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-2500:]

    def stop(self) -> None:
        """Worker and beat told to stop (a warm shutdown), then waited for."""
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def layout(pg_admin: Any, pg_session_prefix: str, tmp_path: Path) -> Iterator[Layout]:
    from api import create_app
    from api.config import ServiceConfig
    from bots.server import BotApp, BotServer

    from support.ladder_db import service_schema

    redis_ok()
    redis = Redis(tmp_path)
    redis.start()
    servers = [BotServer(BotApp("random", None, seed)).start() for seed in range(4)]
    with service_schema(pg_admin, f"{pg_session_prefix}_faults") as url:
        app = create_app(ServiceConfig(db_url=url, broker_url=redis.url, ratelimit=False,
                                       allow_networks="127.0.0.0/8"))
        anon = Client(app)
        for i, server in enumerate(servers):
            owner = anon.owner(f"owner{i}")
            answer = owner.post("/api/v1/bots", json={"name": f"bot{i}", "url": server.url,
                                                      "games": list(GAMES)})
            assert answer.status_code == 201, answer.json
        app.extensions["referee"].dispatcher.close()
        running = Layout(url, redis.url, tmp_path)
        running.redis = redis  # type: ignore[attr-defined]
        try:
            yield running
        finally:
            running.stop()
            running.engine.dispose()
            redis.stop()
            for server in servers:
                server.stop()


def test_the_layout_heals_itself_loses_nothing_and_strikes_no_bot(layout: Layout) -> None:
    redis: Redis = layout.redis  # type: ignore[attr-defined]
    layout.more_finished(1, 90, "at start")

    redis.stop()  # the broker goes away with everything queued in it
    time.sleep(3)
    redis.start()
    layout.more_finished(3, 90, "after Redis came back")

    frozen = layout.match_processes()
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    time.sleep(FREEZE_S)
    for pid in frozen:
        os.kill(pid, signal.SIGCONT)
    layout.more_finished(3, 90, "after the freeze")

    # The worker dies with its pool processes (its machine goes down) while it plays: a match
    # cut off then is played again.
    killed, cut_off = layout.kill_worker_mid_match()
    with layout.engine.connect() as conn:
        before_kill = int(conn.execute(select(func.max(Match.id))).scalar_one())
    wait_until(lambda: layout.celery_worker() != killed, 60, "the worker was not restarted")
    layout.more_finished(3, 120, "after the worker was killed")

    engine = layout.engine

    def all_over() -> bool:
        with engine.connect() as conn:
            return not conn.execute(select(Match.id).where(
                Match.id <= before_kill, Match.state.not_in(("finished",)))).first()

    wait_until(all_over, 120, "a match scheduled before the kill never finished")
    layout.stop()
    with engine.connect() as conn:
        struck = conn.execute(select(MatchSeat.match_pk, MatchSeat.strike_reasons).where(
            MatchSeat.strikes > 0)).all()
        incidents = conn.execute(select(func.count()).select_from(Incident)).scalar_one()
        replayed = conn.execute(select(Match.id).where(
            Match.id.in_(cut_off), Match.attempt >= 2)).scalars().all()
    # Every match the kill cut off was played again, to its end.
    assert sorted(replayed) == sorted(cut_off), f"cut off: {cut_off}, played again: {replayed}"
    assert struck == [], f"bots struck for the referee's faults: {struck}"
    assert incidents == 0
    for game in GAMES:
        before = [(r["bot"], round(r["rating"], 9), round(r["elo"], 9), r["games"])
                  for r in leaderboard(engine, game)]
        recompute(engine, game)
        assert [(r["bot"], round(r["rating"], 9), round(r["elo"], 9), r["games"])
                for r in leaderboard(engine, game)] == before
