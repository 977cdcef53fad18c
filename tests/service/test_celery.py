"""The production path for real: PostgreSQL, Redis and ``referee worker`` / ``referee beat``
subprocesses (a Celery prefork worker), on a queue and a key prefix unique to this run.

Durability: pool processes are SIGKILLed in the middle of matches, 20 times; every match must
still end finished or voided, none twice, with ratings equal to a recompute from the results.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from ladder.identity import claim_names
from ladder.leaderboard import leaderboard
from ladder.models import Match, MatchLog, RatingHistory
from ladder.recompute import recompute
from ladder.store import open_db
from ladder.work import rotations, schedule

from service.conftest import Client
from support.http_bots import free_port
from support.processes import grandchild_pids
from support.redis_service import REDIS, redis_ok

TESTS = Path(__file__).resolve().parent.parent
LEASE_S = 1.0


class Stack:
    """A worker and a beat on a private queue, and the test's own view of the database."""

    def __init__(self, db_url: str, tmp: Path) -> None:
        self.db_url, self.tmp = db_url, tmp
        self.queue = f"referee-test-{os.getpid()}-{secrets.token_hex(4)}"
        path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)
        self.env = {**os.environ, "PYTHONPATH": path, "REFEREE_DB": db_url,
                    "REFEREE_BROKER": REDIS, "REFEREE_QUEUE": self.queue,
                    "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8", "REFEREE_LEASE_S": str(LEASE_S),
                    "REFEREE_SWEEP_S": "0.5", "REFEREE_REQUEUE_AFTER_S": "3"}
        self.engine = open_db(db_url)
        self.metrics_port = free_port()
        self.worker = self._start("worker", "--concurrency", "2", "--loglevel", "warning",
                                  "--metrics-port", str(self.metrics_port))
        self.beat = self._start("beat", "--schedule", str(tmp / "beat-schedule"),
                                "--loglevel", "warning")

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"{args[0]}.log", "wb")
        return subprocess.Popen([sys.executable, "-m", "support.service_worker", *args],
                                env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def children(self) -> set[int]:
        """The worker's pool processes: the children of the Celery process that ``referee
        worker`` supervises."""
        return grandchild_pids(self.worker.pid)

    def states(self, ids: list[int]) -> dict[int, tuple[str, int, str | None]]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(Match.id, Match.state, Match.attempt, Match.lease_owner)
                                .where(Match.id.in_(ids))).all()
        return {r.id: (r.state, r.attempt, r.lease_owner) for r in rows}

    def wait_over(self, ids: list[int], timeout: float) -> dict[int, tuple[str, int, Any]]:
        give_up = time.monotonic() + timeout
        while True:
            states = self.states(ids)
            if all(s[0] in ("finished", "voided") for s in states.values()):
                return states
            if time.monotonic() > give_up:
                logs = (self.tmp / "worker.log").read_text(errors="replace")[-3000:]
                raise AssertionError(f"not over after {timeout} s: {states}\n{logs}")
            time.sleep(0.1)

    def close(self) -> None:
        for proc in (self.worker, self.beat):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in (self.worker, self.beat):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.engine.dispose()


@pytest.fixture(scope="module")
def stack(pg_admin: Any, pg_session_prefix: str, tmp_path_factory: Any) -> Iterator[Stack]:
    from support.ladder_db import service_schema

    redis_ok()
    with service_schema(pg_admin, f"{pg_session_prefix}_celery") as url:
        running = Stack(url, tmp_path_factory.mktemp("celery"))
        try:
            yield running
        finally:
            running.close()


def sleepy_bots(engine: Any, prefix: str, count: int) -> list[int]:
    names = {f"{prefix}{i}": "sleepy" for i in range(count)}
    claim_names(engine, names)
    with engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT name, id FROM bots")).all())
    return [rows[n] for n in names]


def enqueue(stack: Stack, ids: list[int]) -> None:
    from api.dispatch import CeleryDispatcher

    dispatcher = CeleryDispatcher(REDIS, stack.queue)
    try:
        dispatcher.enqueue(ids)
    finally:
        dispatcher.close()


def test_a_challenge_through_the_api_is_played_by_the_worker(stack, bot_url):
    from api import create_app
    from api.config import ServiceConfig

    app = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS, queue=stack.queue,
                                   ratelimit=False, allow_networks="127.0.0.0/8"))
    try:
        anon = Client(app)
        alice = anon.owner("alice")
        mine = alice.post("/api/v1/bots", json={"name": "alice-bot", "url": bot_url,
                                                "games": ["toy-race"]}).json["id"]
        answer = alice.post("/api/v1/challenges", json={"game": "toy-race", "bots": [mine, 1],
                                                        "games": 4})
        assert answer.status_code == 202
        states = stack.wait_over(answer.json["match_ids"], 20)
        assert {s[0] for s in states.values()} == {"finished"}
        health = anon.get("/healthz").json
        assert health["mode"] == "celery" and health["queue"]["running"] == 0
        log = anon.get(f"/api/v1/matches/{answer.json['match_ids'][0]}/log")
        assert log.status_code == 200
    finally:
        app.extensions["referee"].dispatcher.close()


def test_the_workers_metrics_count_what_its_pool_processes_played(stack):
    """The pool processes count into the worker's multiprocess directory; its metrics port
    (served by the Celery process ``referee worker`` supervises) reports their sum."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    def finished() -> float:
        url = f"http://127.0.0.1:{stack.metrics_port}/metrics"
        give_up = time.monotonic() + 30
        while True:  # the port opens once the worker has started
            try:
                with urllib.request.urlopen(url, timeout=10) as answer:
                    text = answer.read().decode()
                break
            except OSError:
                assert time.monotonic() < give_up, "the worker's metrics port never opened"
                time.sleep(0.2)
        return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
                   if s.name == "referee_matches_total" and s.labels["state"] == "finished"
                   and s.labels["game"] == "toy-race")

    before = finished()
    bots = sleepy_bots(stack.engine, "metered", 2)
    ids = schedule(stack.engine, "toy-race", rotations(bots, 4, "metered"), rated=False)
    enqueue(stack, ids)
    assert {s[0] for s in stack.wait_over(ids, 30).values()} == {"finished"}
    assert finished() - before == 4


class ClientLink:
    """A pull bot's connection through a Flask test client (:class:`arena.bridge.Link`)."""

    def __init__(self, app: Any, token: str, bot_id: int) -> None:
        self.http, self.bot_id = app.test_client(), bot_id
        self.headers = {"Authorization": f"Bearer {token}"}

    def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
        got = self.http.get(f"/api/v1/bots/{self.bot_id}/requests?wait={wait_s}"
                            f"&resume={str(resume).lower()}", headers=self.headers)
        assert got.status_code == 200, got.json
        return list(got.json["requests"])

    def answer(self, request_id: str, body: bytes) -> int:
        return int(self.http.post(f"/api/v1/bots/{self.bot_id}/requests/{request_id}",
                                  data=body, headers=self.headers).status_code)


def test_a_pull_bot_plays_on_the_workers_through_redis(stack):
    """Production's layout: the match on a Celery worker, the bot's connection in this
    (web) process, requests and answers through Redis; its check too (refused while the
    bot is away)."""
    import api.relays
    from api import create_app
    from api.config import ServiceConfig
    from arena.bridge import Bridge, LocalBot

    app = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS, queue=stack.queue,
                                   ratelimit=False))
    api.relays.use(None)  # the relay follows the app's broker: Redis, as the worker's does
    stop = threading.Event()
    bridge: Bridge | None = None
    try:
        anon = Client(app)
        bob = anon.owner("bob-pull")
        made = bob.post("/api/v1/bots", json={"name": "bob-laptop", "mode": "pull",
                                              "games": ["toy-race"], "ladder": False})
        assert made.status_code == 201, made.json
        away = bob.post(f"/api/v1/bots/{made.json['id']}/check")
        assert away.status_code == 409 and "connect it first" in away.json["message"]
        lines: list[str] = []
        bridge = Bridge(ClientLink(app, bob.token, made.json["id"]),
                        LocalBot("random", None, 1), lines.append)
        runner = threading.Thread(target=bridge.run, args=(stop, 1), daemon=True)
        runner.start()
        answer = bob.post("/api/v1/challenges", json={"game": "toy-race", "games": 2,
                                                      "bots": [made.json["id"], 1]})
        assert answer.status_code == 202, answer.json
        states = stack.wait_over(answer.json["match_ids"], 30)
        assert {s[0] for s in states.values()} == {"finished"}
        for match_id in answer.json["match_ids"]:
            log = anon.get(f"/api/v1/matches/{match_id}/log").json
            seat = next(p["seat"] for p in log["players"] if p["name"] == "bob-laptop")
            assert {d["status"] for d in log["decisions"] if d["seat"] == seat} == {"ok"}
        assert sum(line.startswith("match ") and " over: " in line for line in lines) == 2
        asked = bob.post(f"/api/v1/bots/{made.json['id']}/check")  # connected: it polls
        assert asked.status_code == 202, asked.json
        give_up = time.monotonic() + 60
        while (check := bob.get(asked.headers["Location"]).json)["state"] in ("queued",
                                                                             "running"):
            assert time.monotonic() < give_up, check
            time.sleep(0.05)
        assert check["state"] == "done" and check["report"]["ok"], check
        assert check["report"]["calls"][0]["call"] == "/start"  # no GET / for a pull bot
    finally:
        stop.set()
        if bridge is not None:
            bridge.close(wait=True)
        app.extensions["referee"].dispatcher.close()
        api.relays.use(None)


def test_checks_are_run_by_the_workers_and_a_killed_one_frees_the_bot(stack):
    """A check is a task of the same workers.  Its pool process SIGKILLed mid-check: the
    lease lapses, the sweeper fails it with the reason, the redelivered task claims nothing,
    and the next check of the bot is a new one that runs to the end."""
    from api import create_app
    from api.config import ServiceConfig

    from support.http_bots import HostileServer

    app = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS, queue=stack.queue,
                                   ratelimit=False, allow_networks="127.0.0.0/8"))
    try:
        with HostileServer("sleep", delay=0.3) as slow:
            alice = Client(app).owner(f"checker{secrets.token_hex(3)}")
            bot_id = alice.post("/api/v1/bots", json={
                "name": f"slow{secrets.token_hex(3)}", "url": slow.url, "games": ["toy-race"],
                "ladder": False}).json["id"]

            def state(path: str, wanted: tuple[str, ...], timeout: float = 30) -> Any:
                give_up = time.monotonic() + timeout
                while (doc := alice.get(path).json)["state"] not in wanted:
                    assert time.monotonic() < give_up, doc
                    time.sleep(0.05)
                return doc

            killed = alice.post(f"/api/v1/bots/{bot_id}/check").headers["Location"]
            state(killed, ("running",))
            for pid in stack.children():
                os.kill(pid, signal.SIGKILL)
            failed = state(killed, ("done", "failed"))
            assert failed["state"] == "failed" and "worker stopped" in failed["error"]
            asked = alice.post(f"/api/v1/bots/{bot_id}/check")
            assert asked.status_code == 202
            done = state(asked.headers["Location"], ("done", "failed"))
            assert done["state"] == "done" and done["report"]["ok"], done
            assert state(killed, ("failed",))["error"] == failed["error"]  # redelivered: no-op
    finally:
        app.extensions["referee"].dispatcher.close()


def test_workers_killed_mid_match_lose_nothing_and_count_nothing_twice(stack):
    """20 trials: a pool process is SIGKILLed while it plays a match (at a random moment).
    The lease expires, beat's sweeper re-enqueues the match, another attempt plays it; a
    match killed three times is voided."""
    rng = random.Random(20)
    bot_ids = sleepy_bots(stack.engine, "k", 3)
    pairs = [(bot_ids[0], bot_ids[1]), (bot_ids[1], bot_ids[2]), (bot_ids[0], bot_ids[2])]
    seatings = [s for n, (a, b) in enumerate(pairs * 3) for s in rotations([a, b], 2, f"k{n}")]
    ids = schedule(stack.engine, "toy-race", seatings, rated=True)
    enqueue(stack, ids)
    kills: list[tuple[int, int]] = []
    tried: set[tuple[int, int]] = set()
    give_up = time.monotonic() + 90
    while len(kills) < 20 and time.monotonic() < give_up:
        running = [(pk, s) for pk, s in stack.states(ids).items()
                   if s[0] == "running" and s[2] and (pk, s[1]) not in tried]
        if not running:
            time.sleep(0.02)
            continue
        pk, (_, attempt, owner) = rng.choice(running)
        pid = int(owner.split(":")[1])
        if pid not in stack.children():
            time.sleep(0.02)
            continue
        tried.add((pk, attempt))
        time.sleep(rng.uniform(0.0, 0.08))  # somewhere in the match
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
        if stack.states([pk])[pk][:2] != ("finished", attempt):  # it died mid-match
            kills.append((pk, attempt))
    assert len(kills) == 20, f"only {len(kills)} kills landed mid-match"
    states = stack.wait_over(ids, 45)
    finished = [pk for pk, s in states.items() if s[0] == "finished"]
    voided = [pk for pk, s in states.items() if s[0] == "voided"]
    assert len(finished) + len(voided) == len(ids) and finished
    assert all(s[1] <= 3 for s in states.values())
    assert any(s[0] == "finished" and s[1] >= 2 for s in states.values())  # recovered ones
    assert all(states[pk][1] > attempt for pk, attempt in kills if states[pk][0] == "finished")
    with stack.engine.connect() as conn:
        logs = conn.execute(select(MatchLog.match_pk, func.count()).where(
            MatchLog.match_pk.in_(ids)).group_by(MatchLog.match_pk)).all()
        steps = conn.execute(select(RatingHistory.match_pk, func.count()).where(
            RatingHistory.match_pk.in_(ids)).group_by(RatingHistory.match_pk)).all()
    assert sorted(pk for pk, n in logs if n == 1) == sorted(finished)
    assert dict(steps) == {pk: 2 for pk in finished}  # one rating step each, voided none
    before = [(r["bot"], round(r["rating"], 9), r["games"])
              for r in leaderboard(stack.engine, "toy-race")]
    recompute(stack.engine, "toy-race")
    after = [(r["bot"], round(r["rating"], 9), r["games"])
             for r in leaderboard(stack.engine, "toy-race")]
    assert before == after
    assert sum(r[2] for r in before if r[0].startswith("k")) == 2 * len(finished)


def test_eight_concurrent_clients_challenging_the_same_bots(stack):
    """Eight owners challenge the same two bots (a shared HTTP bot and the house random bot)
    at the same moment, twice each: every match is recorded once and played once."""
    from api import create_app
    from api.config import ServiceConfig
    from bots.server import BotApp, BotServer

    app = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS, queue=stack.queue,
                                   ratelimit=False, allow_networks="127.0.0.0/8"))
    servers = [BotServer(BotApp("random", None, i), threads=2).start() for i in range(9)]
    try:
        anon = Client(app)
        host = anon.owner("host")
        shared = host.post("/api/v1/bots", json={"name": "shared", "url": servers[8].url,
                                                 "games": ["toy-race"]})
        assert shared.status_code == 201, shared.json
        clients, own = [], []
        for i, server in enumerate(servers[:8]):
            client = anon.owner(f"client{i}")
            bot = client.post("/api/v1/bots", json={"name": f"own{i}", "url": server.url,
                                                    "games": ["toy-race"]})
            assert bot.status_code == 201, bot.json
            clients.append(client)
            own.append(bot.json["id"])
        barrier = threading.Barrier(8)
        answers: list[list[Any]] = [[] for _ in range(8)]

        def challenge(i: int) -> None:
            mine = Client(app, clients[i].token)
            barrier.wait()
            for _ in range(2):
                answers[i].append(mine.post("/api/v1/challenges", json={
                    "game": "toy-race", "bots": [own[i], shared.json["id"], 1], "games": 3}))

        threads = [threading.Thread(target=challenge, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(a.status_code == 202 for row in answers for a in row)
        ids = [m for row in answers for a in row for m in a.json["match_ids"]]
        assert len(ids) == len(set(ids)) == 48
        states = stack.wait_over(ids, 40)
        assert {s[0] for s in states.values()} == {"finished"}
        assert {s[1] for s in states.values()} == {1}  # one attempt each: played once
        with stack.engine.connect() as conn:
            logged = conn.execute(select(func.count()).select_from(MatchLog)
                                  .where(MatchLog.match_pk.in_(ids))).scalar_one()
        assert logged == 48
        for row in answers:
            for a in row:
                done = anon.get(f"/api/v1/challenges/{a.json['id']}").json
                assert done["status"] == "finished"
                assert sum(t["games"] for t in done["results"]) == 9  # 3 matches x 3 seats
    finally:
        for server in servers:
            server.stop()
        app.extensions["referee"].dispatcher.close()


def test_celery_is_configured_for_exactly_once_delivery():
    from api.config import ServiceConfig
    from api.tasks import make_celery

    app = make_celery(REDIS, "q", ServiceConfig(max_match_s=1800, sweep_s=20))
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1 and conf.task_default_queue == "q"
    assert conf.broker_transport_options["visibility_timeout"] > 1800
    assert conf.beat_schedule["referee-sweep"]["schedule"] == 20
    app.close()


def test_each_celery_app_runs_its_own_tasks():
    """Celery shares a decorated task with every app made after it unless told not to: a
    second app in one process would then run the first one's (its settings, its queue)."""
    import warnings

    from api.config import ServiceConfig
    from api.tasks import make_celery

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Celery's DuplicateTaskNameWarning included
        first = make_celery(REDIS, "q1", ServiceConfig(max_match_s=600))
        second = make_celery(REDIS, "q2", ServiceConfig(max_match_s=1200))
        limits = [app.tasks["referee.play_description"].time_limit for app in (first, second)]
    assert limits == [600, 1200]
    first.close()
    second.close()


def test_rate_limits_are_counted_in_redis_in_production(stack):
    from api import create_app
    from api.config import ServiceConfig

    app = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS, queue=stack.queue))
    try:
        anon = Client(app)
        codes = [anon.http.post("/api/v1/owners", json={"name": f"rl{i}"}).status_code
                 for i in range(6)]
        assert codes == [201] * 5 + [429]
        assert app.extensions["referee_limiter"]._storage.__class__.__name__ == "RedisStorage"
        again = create_app(ServiceConfig(db_url=stack.db_url, broker_url=REDIS,
                                         queue=stack.queue))  # another server process
        try:
            assert Client(again).http.post("/api/v1/owners",
                                           json={"name": "rl9"}).status_code == 429
        finally:
            again.extensions["referee"].dispatcher.close()
    finally:
        app.extensions["referee"].dispatcher.close()


def assert_pages_keep_a_login(base: str, db_url: str) -> None:
    """The pages answer, and a page login holds over fresh connections: with gunicorn each
    may reach another process, which must read the session (one signing key for all).
    The owner is made in the database: the API's owner creation is rate-limited per address,
    and the tests before this one used that up."""
    import re

    import requests

    from ladder.accounts import create_owner

    engine = open_db(db_url)
    try:
        _, token = create_owner(engine, f"pager{secrets.token_hex(3)}")
    finally:
        engine.dispose()
    form = requests.get(f"{base}/login", timeout=5)
    assert form.status_code == 200
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
    cookies = form.cookies
    done = requests.post(f"{base}/login", data={"token": token, "csrf": csrf},
                         cookies=cookies, allow_redirects=False, timeout=5)
    assert done.status_code == 303, done.text[:500]
    for _ in range(8):
        home = requests.get(f"{base}/", cookies=done.cookies, timeout=5)
        assert home.status_code == 200 and 'title="your bots and tokens">pager' in home.text


@pytest.mark.parametrize("production", [False, True])
def test_referee_serve_answers(stack, tmp_path, production):
    """``referee serve``: waitress with the embedded pool on SQLite, or gunicorn with a
    broker on PostgreSQL; either way one command that serves the API."""
    import requests

    from support.http_bots import free_port

    port = free_port()
    env = dict(stack.env)
    args = ["serve", "--port", str(port)]
    if production:
        args += ["--workers", "2"]
    else:
        env.pop("REFEREE_BROKER")
        env["REFEREE_DB"] = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "support.service_worker", *args], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        give_up = time.monotonic() + 30
        while True:
            try:
                health = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()
                break
            except requests.RequestException:
                if time.monotonic() > give_up or proc.poll() is not None:
                    raise AssertionError((tmp_path / "serve.log").read_text()) from None
                time.sleep(0.2)
        assert health["mode"] == ("celery" if production else "embedded")
        docs = requests.get(f"http://127.0.0.1:{port}/api/docs", timeout=5)
        assert docs.status_code == 200 and "Referee API" in docs.text
        assert_pages_keep_a_login(f"http://127.0.0.1:{port}", env["REFEREE_DB"])
        if production:
            assert_server_refusals_are_json(f"http://127.0.0.1:{port}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    if production:
        assert "gunicorn" in (tmp_path / "serve.log").read_text().lower()


def assert_server_refusals_are_json(base: str) -> None:
    """gunicorn takes a request line of 8 KiB (the app answers a 6 KB path itself) and
    refuses a longer one, or a header over 8 KiB, in the API's JSON error shape."""
    import requests

    long_path = requests.get(f"{base}/api/v1/{'a' * 6000}", timeout=5)
    assert long_path.status_code == 404 and long_path.json()["code"] == 404
    for answer, code in ((requests.get(f"{base}/api/v1/{'a' * 9000}", timeout=5), 414),
                         (requests.get(f"{base}/api/v1/games", headers={"X-Big": "b" * 9000},
                                       timeout=5), 431)):
        assert answer.status_code == code
        assert answer.headers["Content-Type"] == "application/json"
        assert answer.json()["code"] == code and answer.json()["message"]
