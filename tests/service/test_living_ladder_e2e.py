"""The living ladder end to end: real HTTP bots, a real Celery worker, Redis and PostgreSQL.

Five owners register five bots (``referee bot serve random`` processes on loopback) for Tokaido
Duo through the API, which enters them in the ladder.  The test drives what ``referee beat``
would (the matchmaker's tick, the health probes with a short interval) while a ``referee
worker`` plays the matches and ticks after each one.  After two rounds one bot's process is
killed in the middle of a match: the probes pause it (with a reason and an alert), a round goes
on without it; restarted on the same port, two good probes resume it and it is scheduled again.
Then every owner leaves the ladder and the last matches are played or cancelled.

Checked at the end: every match finished or voided; no fixture or match for the killed bot
while it was paused; the four other bots, eligible until they leave, are in every round opened
before that (none of them waits on a make-up or a retry here; the one whose fixture with the
killed bot was cancelled rests in that round and plays the next, it does not sit it out), and
over the rounds all four were in, their planned fixtures are at most one apart (byes rotate);
only the killed bot's owner got alerts; the leaderboard's provisional section is the bots with
placement games left.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from ladder.accounts import now_utc, utc
from ladder.models import Alert, Fixture, LadderEntry, Match, MatchSeat, Round

from service.conftest import Client
from service.test_celery import TESTS
from support.redis_service import REDIS, redis_ok

DUO = "tokaido-duo"
BOTS = 5
PROBE_S = 0.4
"""The probe interval: a dead bot is paused about a second after it dies."""
GRACE = timedelta(seconds=2)
"""A tick that took the matchmaker's lock before the pause did may still seat the bot: it
read the entry before the pause was committed (a tick lasts well under this)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Processes:
    """Bot servers and a worker as subprocesses (each its own process group)."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *args: str) -> None:
        log = open(self.tmp / f"{name}.log", "ab")
        self.running[name] = subprocess.Popen(
            [sys.executable, "-m", "support.service_worker", *args], env=self.env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def bot(self, i: int, port: int) -> str:
        self.start(f"bot{i}", "bot", "serve", "random", "--port", str(port), "--seed", str(i),
                   "--game", DUO)
        url = f"http://127.0.0.1:{port}"
        give_up = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=2) as answer:
                    if DUO in json.load(answer).get("games", []):
                        return url
            except OSError:
                if time.monotonic() > give_up:
                    raise AssertionError(f"bot {i} did not start: {self.log(f'bot{i}')}")
                time.sleep(0.1)

    def kill(self, name: str) -> None:
        proc = self.running.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-3000:]

    def close(self) -> None:
        for proc in self.running.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.running.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def pg_service(pg_admin: Any, pg_session_prefix: str) -> Iterator[str]:
    """A migrated PostgreSQL schema with the house bots (as a started service has)."""
    from support.ladder_db import service_schema

    redis_ok()
    with service_schema(pg_admin, f"{pg_session_prefix}_e2e") as url:
        yield url


def test_the_living_ladder_end_to_end(pg_service: str, tmp_path: Path) -> None:
    from api import create_app
    from api.config import ServiceConfig
    from api.health import probe_due
    from ladder import matchmaking as mm

    began = time.monotonic()
    queue = f"referee-e2e-{os.getpid()}-{secrets.token_hex(4)}"
    env = {**os.environ, "PYTHONPATH": str(TESTS), "REFEREE_DB": pg_service,
           "REFEREE_BROKER": REDIS, "REFEREE_QUEUE": queue,
           "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8", "REFEREE_HOUSE_LADDERS": ""}
    procs = Processes(tmp_path, env)
    config = ServiceConfig(db_url=pg_service, broker_url=REDIS, queue=queue, ratelimit=False,
                           allow_networks="127.0.0.0/8", house_ladders=())
    app = create_app(config)
    svc = app.extensions["referee"]
    engine, policy, cfg = svc.engine, svc.policy, config.matchmaker()
    try:
        procs.start("worker", "worker", "--concurrency", "2", "--loglevel", "warning")
        ports = [free_port() for _ in range(BOTS)]
        urls = [procs.bot(i, port) for i, port in enumerate(ports)]
        anon = Client(app)
        owners = [anon.owner(f"owner{i}") for i in range(BOTS)]
        bots = []
        for i, (owner, url) in enumerate(zip(owners, urls)):
            answer = owner.post("/api/v1/bots", json={"name": f"e2e{i}", "url": url,
                                                      "games": [DUO]})
            assert answer.status_code == 201, answer.json
            bots.append(answer.json["id"])
        for owner, bot in zip(owners, bots):
            [entry] = owner.get(f"/api/v1/bots/{bot}/ladders").json["items"]
            assert entry["active"] and entry["placement_remaining"] == 10

        def step() -> None:
            """What beat does: a tick (its released matches to the worker) and a health run."""
            released = mm.tick(engine, config=cfg).enqueue
            if released:
                svc.dispatcher.enqueue(released)
            probe_due(engine, policy, interval_s=PROBE_S)

        phases: list[str] = []

        def drive(done: Callable[[], bool], what: str, timeout: float) -> None:
            start = time.monotonic()
            while not done():
                if time.monotonic() > start + timeout:
                    raise AssertionError(f"{what}: not after {timeout} s\n"
                                         f"{procs.log('worker')}")
                step()
                time.sleep(0.15)
            phases.append(f"{what} {time.monotonic() - start:.1f} s")

        def closed_rounds(since: datetime | None = None) -> int:
            with engine.connect() as conn:
                return len(conn.execute(select(Round.id).where(
                    Round.game == DUO, Round.closed_at.is_not(None),
                    *([Round.opened_at > since] if since else []))).all())

        def paused_reason(bot: int) -> str | None:
            with engine.connect() as conn:
                return conn.execute(select(LadderEntry.paused_reason).where(
                    LadderEntry.bot_id == bot, LadderEntry.game == DUO)).scalar_one()

        def playing(bot: int) -> bool:
            with engine.connect() as conn:
                return conn.execute(select(Match.id).join(
                    MatchSeat, MatchSeat.match_pk == Match.id).where(
                    MatchSeat.bot_id == bot, Match.state == "running")).first() is not None

        drive(lambda: closed_rounds() >= 2, "two rounds played", 40)

        victim, victim_owner = bots[0], owners[0]
        drive(lambda: playing(victim), "the victim in a match", 15)
        procs.kill("bot0")  # in the middle of its match
        drive(lambda: paused_reason(victim) is not None, "the dead bot paused", 15)
        # three failed probes, as a rule (five forfeits in a row could come first: the
        # health rules pause for either, and only their good probes lift it)
        reason = paused_reason(victim)
        assert reason in ("health: 3 failed probes in a row", "forfeits: 5 forfeits in a row")
        [alert] = victim_owner.get("/api/v1/me/alerts").json["items"]
        assert alert["kind"] == "paused" and alert["bot"]["id"] == victim
        assert alert["games"] == [DUO] and alert["reason"] == reason
        paused_at = utc(datetime.fromisoformat(alert["at"]))
        [entry] = victim_owner.get(f"/api/v1/bots/{victim}/ladders").json["items"]
        assert entry["paused"] and entry["paused_reason"] == reason

        drive(lambda: closed_rounds(since=paused_at + GRACE) >= 1, "a round without it", 40)

        procs.bot(0, ports[0])  # back on the same port
        drive(lambda: paused_reason(victim) is None, "the bot resumed", 15)
        alerts = victim_owner.get("/api/v1/me/alerts").json["items"]
        assert [a["kind"] for a in alerts] == ["resumed", "paused"]
        assert alerts[0]["reason"] == "2 good probes in a row"
        resumed_at = utc(datetime.fromisoformat(alerts[0]["at"]))

        def fixtures_of(bot: int, after: datetime) -> int:
            with engine.connect() as conn:
                rows = conn.execute(select(Fixture.bots, Fixture.created_at).where(
                    Fixture.game == DUO, Fixture.kind.in_(("fixture", "makeup")))).all()
            return sum(1 for r in rows if bot in r.bots and utc(r.created_at) > after)

        drive(lambda: closed_rounds(since=resumed_at) >= 1 and fixtures_of(victim, resumed_at),
              "a round after the resume, with it", 40)

        leaving = now_utc()  # a round opened before this snapshotted every bot still on
        for owner, bot in zip(owners, bots):  # everyone leaves: the last matches end
            answer = owner.http.put(f"/api/v1/bots/{bot}/ladders/{DUO}",
                                    json={"active": False}, headers=owner.headers())
            assert answer.status_code == 200 and answer.json["active"] is False

        def all_over() -> bool:
            with engine.connect() as conn:
                states = set(conn.execute(select(Match.state)).scalars())
            return states <= {"finished", "voided"}

        drive(all_over, "every match over", 30)

        # -- what happened ----------------------------------------------------------------
        with engine.connect() as conn:
            fixtures = conn.execute(select(Fixture.__table__).where(Fixture.game == DUO)).all()
            rounds = {r.id: r for r in conn.execute(select(Round.__table__))}
            matches = conn.execute(select(Match.id, Match.state, Match.recorded_at,
                                          MatchSeat.bot_id)
                                   .join(MatchSeat, MatchSeat.match_pk == Match.id)).all()
        assert {m.state for m in matches} <= {"finished", "voided"}
        finished = Counter(m.bot_id for m in matches if m.state == "finished")
        assert all(finished[b] > 0 for b in bots), finished

        window = (paused_at + GRACE, resumed_at)
        for f in fixtures:
            if victim in f.bots and f.kind in ("fixture", "makeup"):
                assert not window[0] < utc(f.created_at) < window[1], f
        for m in matches:
            if m.bot_id == victim:
                assert not window[0] < utc(m.recorded_at) < window[1], m
        without = [r for r in rounds.values() if utc(r.opened_at) > window[0]
                   and utc(r.opened_at) < window[1]]
        assert without and all(victim not in r.eligible for r in without)

        established = set(bots[1:])
        shared = {r.id for r in rounds.values() if established <= set(r.eligible)}
        left_out = sorted((r.number, sorted(established - set(r.eligible)))
                          for r in rounds.values()
                          if utc(r.opened_at) < leaving and r.id not in shared)
        assert not left_out, left_out  # (round, the bots that sat it out)
        assert len(shared) >= 3
        planned = Counter({b: 0 for b in established})
        for f in fixtures:
            if f.round_id in shared and f.kind == "fixture":
                planned.update(b for b in f.bots if b in established)
        assert max(planned.values()) - min(planned.values()) <= 1, planned

        for i, owner in enumerate(owners[1:], start=1):
            assert owner.get("/api/v1/me/alerts").json["total"] == 0, i

        board = anon.get(f"/api/v1/leaderboards/{DUO}").json
        provisional = {r["bot"]["id"] for r in board["provisional"]}
        for owner, bot in zip(owners, bots):
            [entry] = owner.get(f"/api/v1/bots/{bot}/ladders").json["items"]
            assert (bot in provisional) == entry["provisional"], (bot, entry)
            assert entry["provisional"] == (entry["placement_remaining"] > 0)
        print(f"living ladder e2e: {len(rounds)} rounds, {len({m.id for m in matches})} "
              f"matches, {time.monotonic() - began:.1f} s ({'; '.join(phases)})")
    finally:
        svc.dispatcher.close()
        procs.close()
        engine.dispose()
