"""The service's bounds: rate limits per owner (not per token) and per trusted address, a cap
on active tokens, bounded request bodies and error lists, token ids within the column's range,
no database named in any answer, and a limiter and a `/healthz` that survive Redis going away.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

from api.config import ServiceConfig
from api.errors import MAX_LISTED_ERRORS, cap_errors
from api.guards import MAX_BODY_BYTES, MAX_JSON_DEPTH
from bots.server import BotApp, BotServer
from ladder import ConflictError, accounts
from ladder.models import ApiToken

from service.conftest import Client
from support.http_bots import free_port
from support.ladder_db import pg_base_url

DOCS = Path(__file__).resolve().parents[2] / "docs"
JSON = {"Content-Type": "application/json"}


def new_bot(owner: Client, url: str, name: str = "mine") -> int:
    answer = owner.post("/api/v1/bots", json={"name": name, "url": url, "games": ["toy-race"],
                                              "ladder": False})
    assert answer.status_code == 201, answer.json
    return int(answer.json["id"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- item 4: limits per owner, a cap on tokens ---------------------------------------------

def test_fresh_tokens_do_not_widen_an_owners_daily_challenges(make_service, bot_url):
    """30 tokens minted one after another (the oldest revoked at the cap), each used for a
    challenge: the owner's 20 a day hold whichever token asks."""
    anon = Client(make_service(ratelimit=True))
    alice = anon.owner("alice")
    mine = new_bot(alice, bot_url)
    own = int(alice.token.split("_")[1])
    tokens = alice.get("/api/v1/me/tokens").json["items"]
    answers = []
    for i in range(30):
        active = [t["id"] for t in tokens if t["revoked_at"] is None and t["id"] != own]
        if len(active) == accounts.MAX_TOKENS - 1:
            assert alice.delete(f"/api/v1/me/tokens/{active[0]}").status_code == 204
        minted = alice.post("/api/v1/me/tokens", json={"name": f"t{i}"})
        assert minted.status_code == 201, minted.json
        fresh = Client(alice.app, minted.json["token"])
        answers.append(fresh.post("/api/v1/challenges",
                                  json={"game": "toy-race", "bots": [mine, 1]}))
        tokens = alice.get("/api/v1/me/tokens").json["items"]
    assert [a.status_code for a in answers] == [202] * 20 + [429] * 10
    assert answers[-1].headers["X-RateLimit-Limit"] == "20"
    bob = anon.owner("bob")  # another owner has an allowance of its own
    server = BotServer(BotApp("random", None, 9)).start()
    try:
        bobs = new_bot(bob, server.url, "bobs")
    finally:
        server.stop()
    assert bob.post("/api/v1/challenges",
                    json={"game": "toy-race", "bots": [bobs, 1]}).status_code == 202


def test_an_owner_holds_at_most_ten_active_tokens(make_service, db_url):
    alice = Client(make_service(db_url)).owner("alice")
    for i in range(accounts.MAX_TOKENS - 1):
        assert alice.post("/api/v1/me/tokens", json={"name": f"t{i}"}).status_code == 201
    refused = alice.post("/api/v1/me/tokens", json={"name": "one too many"})
    assert refused.status_code == 409
    assert "10 active tokens" in refused.json["message"]
    assert "DELETE /api/v1/me/tokens/{id}" in refused.json["message"]
    oldest = alice.get("/api/v1/me/tokens").json["items"][-1]["id"]
    assert alice.delete(f"/api/v1/me/tokens/{oldest}").status_code == 204
    assert alice.post("/api/v1/me/tokens", json={"name": "in its place"}).status_code == 201


def test_mints_at_once_never_pass_the_cap(make_service, db_url):
    """Twelve threads mint for one owner together: exactly the free places are taken (the
    owner's row is locked while counting on PostgreSQL; SQLite's write lock serialises)."""
    app = make_service(db_url)
    alice = Client(app).owner("alice")
    owner_id = alice.get("/api/v1/me").json["id"]
    engine = app.extensions["referee"].engine
    start = threading.Barrier(12)
    outcomes: list[str] = []

    def mint(i: int) -> None:
        start.wait()
        try:
            accounts.mint_token(engine, owner_id, f"t{i}")
            outcomes.append("minted")
        except ConflictError:
            outcomes.append("refused")

    threads = [threading.Thread(target=mint, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["minted"] * 9 + ["refused"] * 3
    with engine.connect() as conn:
        active = conn.execute(select(func.count()).select_from(ApiToken).where(
            ApiToken.revoked_at.is_(None))).scalar_one()
    assert active == accounts.MAX_TOKENS


# -- item 5: forwarded addresses only from trusted proxies ----------------------------------

def create_owners(app: Any, count: int, forwarded: list[str] | None = None,
                  tokens: list[str] | None = None) -> list[int]:
    http = app.test_client()
    codes = []
    for i in range(count):
        headers = {}
        if forwarded:
            headers["X-Forwarded-For"] = forwarded[i % len(forwarded)]
        if tokens:
            headers.update(bearer(tokens[i % len(tokens)]))
        codes.append(http.post("/api/v1/owners", json={"name": f"o{i}-{time.monotonic_ns()}"},
                               headers=headers).status_code)
    return codes


def test_without_a_trusted_proxy_forwarded_for_is_ignored(make_service):
    app = make_service(ratelimit=True)
    spoofed = [f"203.0.113.{i}" for i in range(8)]
    assert create_owners(app, 8, forwarded=spoofed) == [201] * 5 + [429] * 3


def test_a_token_does_not_widen_the_owners_an_address_creates(make_service):
    """``POST /owners`` counts per address even for a request with a valid token (else each
    new owner's token would bring 5 more)."""
    app = make_service(ratelimit=True)
    first = Client(app).owner("first")  # one of the address's 5
    mint = [first.post("/api/v1/me/tokens", json={}).json["token"] for _ in range(2)]
    assert create_owners(app, 6, tokens=[first.token, *mint]) == [201] * 4 + [429] * 2


def test_behind_trusted_proxies_the_client_address_is_theirs_to_say(make_service):
    """One trusted proxy: its entry (the last) is the client's address; anything the client
    wrote before it is not believed."""
    app = make_service(ratelimit=True, trusted_proxies=1)
    assert create_owners(app, 6, forwarded=["198.51.100.7"]) == [201] * 5 + [429]
    assert create_owners(app, 1, forwarded=["198.51.100.8"]) == [201]  # another client
    lying = [f"203.0.113.{i}, 198.51.100.7" for i in range(3)]
    assert create_owners(app, 3, forwarded=lying) == [429] * 3
    two = make_service(ratelimit=True, trusted_proxies=2)
    assert create_owners(two, 6, forwarded=["198.51.100.9, 10.0.0.2"]) == [201] * 5 + [429]


def test_trusted_proxies_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("REFEREE_TRUSTED_PROXIES", "2")
    assert ServiceConfig.from_env().trusted_proxies == 2
    monkeypatch.delenv("REFEREE_TRUSTED_PROXIES")
    assert ServiceConfig.from_env().trusted_proxies == 0
    for bad in ("-1", "one", "1.5"):
        monkeypatch.setenv("REFEREE_TRUSTED_PROXIES", bad)
        with pytest.raises(ValueError, match="REFEREE_TRUSTED_PROXIES must be a whole number"):
            ServiceConfig.from_env()


def test_the_compose_example_trusts_exactly_the_proxy_in_front():
    """The example's API trusts one proxy and only the proxy is reachable from outside;
    every long-running process restarts by itself."""
    services = yaml.safe_load((DOCS.parent / "compose.yaml").read_text())["services"]
    published = [name for name, svc in services.items() if svc.get("ports")]
    assert published == ["proxy"] and "api:8000" in services["proxy"]["command"]
    assert services["api"]["environment"]["REFEREE_TRUSTED_PROXIES"] == "1"
    assert {name for name, svc in services.items() if svc.get("restart") is None} == {"migrate"}


# -- item 6: bounded bodies, bounded error lists, JSON the parser can take -------------------

def test_a_body_over_the_limit_is_a_413_unread(anon):
    """2 MB of broken JSON: a 413, so it was not parsed (a parse would say 400)."""
    alice = anon.owner("alice")
    huge = b"{" + b"x" * 2_000_000
    answer = alice.post("/api/v1/bots", data=huge, headers=JSON)
    assert answer.status_code == 413 and answer.json["code"] == 413
    assert "64 KiB" in answer.json["message"]
    assert anon.post("/api/v1/owners", data=huge, headers=JSON).status_code == 413


class CountingStream(io.RawIOBase):
    """A request body of ``size`` bytes that counts what was read of it."""

    def __init__(self, size: int) -> None:
        self.left, self.read_bytes = size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.left, 8192)
        buffer[:n] = b"[" * n
        self.left -= n
        self.read_bytes += n
        return n


def chunked(client: Client, path: str, body: Any) -> Any:
    """A body without a declared length, as a WSGI server hands over a chunked one."""
    return client.http.post(path, headers={**client.headers(JSON),
                                           "Transfer-Encoding": "chunked"},
                            environ_overrides={"wsgi.input": body,
                                               "wsgi.input_terminated": True})


def test_a_chunked_body_is_cut_off_at_the_limit(anon):
    """No length declared: the service reads one byte past the limit, no more, and answers
    413; a chunked body under the limit is read whole."""
    alice = anon.owner("alice")
    body = CountingStream(2_000_000)
    answer = chunked(alice, "/api/v1/bots", io.BufferedReader(body))
    assert answer.status_code == 413, answer.json
    assert MAX_BODY_BYTES < body.read_bytes <= MAX_BODY_BYTES + 16 * 1024
    at_limit = CountingStream(MAX_BODY_BYTES)
    assert chunked(alice, "/api/v1/bots", io.BufferedReader(at_limit)).status_code == 400
    assert at_limit.left == 0  # read whole: JSON too deep, not too large
    small = chunked(alice, "/api/v1/me/tokens", io.BytesIO(b'{"name": "c"}'))
    assert small.status_code == 201 and small.json["name"] == "c"


def test_the_largest_legitimate_bodies_pass(anon, bot_url):
    """A bot's name, 2,000-character URL and description, every character an escaped astral
    one (12 bytes): under the limit, read and validated as usual."""
    alice = anon.owner("alice")
    mine = new_bot(alice, bot_url)
    face = "\U0001F600"
    update = {"name": "n" * 64, "description": face * 2000, "games": ["toy-race"]}
    answer = alice.patch(f"/api/v1/bots/{mine}", data=json.dumps(update), headers=JSON)
    assert answer.status_code == 200, answer.json
    assert alice.get(f"/api/v1/bots/{mine}").json["description"] == face * 2000
    create = {"name": "m" * 64, "url": bot_url + "/" + face * (1999 - len(bot_url)),
              "games": ["toy-race"], "description": face * 2000, "ladder": False}
    body = json.dumps(create)
    assert 45_000 < len(body) < MAX_BODY_BYTES
    answer = alice.post("/api/v1/bots", data=body, headers=JSON)
    assert answer.status_code == 422 and list(answer.json["errors"]["json"]) == ["url"]


DEEP = {
    "arrays nested 30,000 deep": b"[" * 30_000 + b"]" * 30_000,
    "objects nested 5,000 deep": b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
    "arrays just past the bound": b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1),
    "an integer of 4,301 digits": b'{"name": ' + b"7" * 4_301 + b"}",
    "an integer of 310 digits": b'{"name": 1' + b"0" * 309 + b"}",
    "NaN": b'{"name": NaN}',
    "a lone surrogate": b'{"name": "\\ud800"}',
    "a byte-order mark": b'\xef\xbb\xbf{"name": "bom"}',  # webargs' parser refuses it
    "invalid UTF-8": b'{"name": "\xff"}',
}


@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_json_the_parser_cannot_take_is_a_400(anon, body):
    alice = anon.owner("alice")
    for path in ("/api/v1/owners", "/api/v1/me/tokens", "/api/v1/challenges"):
        answer = alice.post(path, data=body, headers=JSON)
        assert answer.status_code == 400, (path, answer.json)
        assert answer.json["code"] == 400 and answer.json["message"]


def test_json_within_the_bounds_reaches_the_schemas(anon):
    inner = MAX_JSON_DEPTH - 1  # inside the body's object
    nested = b'{"name": ' + b"[" * inner + b"]" * inner + b"}"
    answer = anon.post("/api/v1/owners", data=nested, headers=JSON)
    assert answer.status_code == 422 and answer.json["errors"]["json"]["name"]
    long_number = anon.post("/api/v1/owners", data=b'{"name": ' + b"9" * 300 + b"}",
                            headers=JSON)
    assert long_number.status_code == 422



json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**400, max_value=10**400)
    | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=20)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(document=json_values, wrap=st.integers(0, 40))
def test_any_json_body_is_answered_with_a_4xx_or_a_success(anon, document, wrap):
    """Any value (NaN, huge numbers, any nesting) posted anywhere: never a 5xx."""
    body = "[" * wrap + json.dumps(document) + "]" * wrap
    for path in ("/api/v1/owners", "/api/v1/challenges"):
        answer = anon.post(path, data=body, headers=JSON)
        assert answer.status_code < 500, (path, body[:200], answer.json)
        assert answer.json["code"] == answer.status_code


def test_an_error_body_lists_a_bounded_number_of_errors(anon):
    body = {"name": "alice", **{f"k{i}": 1 for i in range(5000)}}
    answer = anon.post("/api/v1/owners", json=body)
    assert answer.status_code == 422
    listed = answer.json["errors"]["json"]
    assert len(listed) == MAX_LISTED_ERRORS and all(k.startswith("k") for k in listed)
    assert f"5000 errors, the first {MAX_LISTED_ERRORS} listed" in answer.json["message"]
    assert len(answer.data) < 4096
    few = anon.post("/api/v1/owners", json={"name": "bob", "x": 1, "y": 2})
    assert set(few.json["errors"]["json"]) == {"x", "y"} and "listed" not in few.json["message"]


error_trees = st.recursive(st.lists(st.text(max_size=5), min_size=1, max_size=2),
                           lambda inner: st.dictionaries(st.text(max_size=3), inner,
                                                         min_size=1, max_size=4),
                           max_leaves=30)


@given(errors=st.dictionaries(st.text(max_size=3), error_trees, min_size=1, max_size=4),
       limit=st.integers(1, 40))
def test_capped_errors_are_the_first_ones_of_the_tree(errors, limit):
    def leaves(tree, path=()):
        for key, value in tree.items():
            if isinstance(value, dict):
                yield from leaves(value, (*path, key))
            else:
                yield (*path, key), value

    kept, total = cap_errors(errors, limit)
    everything = list(leaves(errors))
    assert total == len(everything)
    assert list(leaves(kept)) == everything[:limit]


@given(depth=st.integers(1, 300), bound=st.integers(1, 100))
def test_the_depth_bound_is_exact_and_read_without_recursing(depth, bound):
    from referee.protocol import decode_json

    body = b"[" * depth + b"]" * depth
    if depth <= bound:
        assert decode_json(body, max_depth=bound) is not None
    else:
        with pytest.raises(ValueError, match=f"deeper than {bound}"):
            decode_json(body, max_depth=bound)


# -- item 7 and 13: token ids within range, no database named in an answer ------------------

def test_token_ids_past_the_columns_range_are_401(make_service, db_url, caplog):
    app = make_service(db_url, ratelimit=True)
    anon = Client(app)
    anon.owner("alice")
    caplog.set_level(logging.WARNING)
    secret = "A" * 43
    remaining = []
    for token_id in (2**31, 2**31 - 1, 9_999_999_999, 10**18):
        header = bearer(f"rk_{token_id}_{secret}")
        me = anon.http.get("/api/v1/me", headers=header)
        assert me.status_code == 401, (token_id, me.json)
        games = anon.http.get("/api/v1/games", headers=header)
        assert games.status_code == 200  # a read with a bad token is an anonymous read
        remaining.append(int(games.headers["X-RateLimit-Remaining"]))
    assert remaining == sorted(remaining, reverse=True) and len(set(remaining)) == 4
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def take_database_away(app: Any, url: str) -> list[str]:
    """Make the app's database unreachable (PostgreSQL: drop it; SQLite: a folder where the
    file was); what an answer must not name."""
    engine = app.extensions["referee"].engine
    parsed = make_url(url)
    engine.dispose()
    if parsed.get_backend_name() == "postgresql":
        server = create_engine(pg_base_url(), isolation_level="AUTOCOMMIT")
        try:
            with server.connect() as conn:
                conn.execute(text(f'DROP DATABASE "{parsed.database}" WITH (FORCE)'))
        finally:
            server.dispose()
        return [str(parsed.database), str(parsed.username), str(parsed.host),
                str(parsed.port or 5432), "postgres"]
    path = Path(str(parsed.database))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.mkdir()
    return [str(path), path.name, str(path.parent), "sqlite"]


def test_no_answer_names_the_database(make_service, db_url):
    app = make_service(db_url)
    anon = Client(app)
    alice = anon.owner("alice")
    secrets_of_the_house = take_database_away(app, db_url)
    answers = [anon.get("/api/v1/bots"), alice.get("/api/v1/me"),
               alice.post("/api/v1/me/tokens", json={}), anon.get("/healthz"),
               anon.get("/api/v1/healthz"), anon.get("/api/v1/leaderboards/toy-race")]
    for answer in answers:
        assert answer.status_code == 503, answer.json
        text_ = answer.get_data(as_text=True)
        assert not [s for s in secrets_of_the_house if s in text_], text_
    assert answers[0].json["message"] == "the service's database cannot be reached just now; " \
                                         "try again in a moment"
    health = answers[3].json
    assert health["ok"] is False and health["checks"]["database"] == "unreachable"
    assert health["queue"] is None


# -- item 11: the limiter and /healthz without Redis ----------------------------------------

def test_the_limiter_counts_in_memory_while_its_storage_is_down(make_service, caplog):
    dead = f"redis://127.0.0.1:{free_port()}/0"
    app = make_service(ratelimit=True, ratelimit_storage=dead)
    anon = Client(app)
    caplog.set_level(logging.WARNING)
    assert anon.get("/api/v1/games").status_code == 200
    assert "falling back to in-memory storage" in caplog.text
    assert create_owners(app, 6) == [201] * 5 + [429]  # the limits still hold, in memory
    health = anon.get("/healthz")
    assert health.status_code == 200 and health.json["ok"] is True
    assert health.json["checks"] == {"database": "ok", "ratelimit": "unreachable"}


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of this test's own, on a free port (the shared one is never stopped)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    import redis

    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        give_up = time.monotonic() + 30
        while True:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=1).ping()
                break
            except redis.RedisError:
                if time.monotonic() > give_up or proc.poll() is not None:
                    raise
                time.sleep(0.05)
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_redis_stopped_mid_run_leaves_the_api_answering(make_service, redis_server, caplog):
    import redis

    url, proc = redis_server
    app = make_service(ratelimit=True, ratelimit_storage=url)
    anon = Client(app)
    assert create_owners(app, 3) == [201] * 3
    assert redis.Redis.from_url(url).keys("*referee*")  # counted in Redis so far
    assert anon.get("/healthz").json["checks"]["ratelimit"] == "ok"
    proc.terminate()
    proc.wait(timeout=15)
    caplog.set_level(logging.WARNING)
    reads = [anon.get("/api/v1/games").status_code for _ in range(3)]
    assert reads == [200] * 3 and "falling back to in-memory storage" in caplog.text
    assert create_owners(app, 6) == [201] * 5 + [429]  # a fresh count, in memory
    assert anon.get("/healthz").json["checks"]["ratelimit"] == "unreachable"


@pytest.mark.parametrize("broker_up", [True, False])
def test_healthz_reports_the_broker_in_celery_mode(make_service, broker_up):
    """Celery mode: an unreachable broker means matches cannot reach the workers: a 503,
    which names neither its host nor its port.  The limiter shares that Redis and counts in
    memory meanwhile."""
    import redis

    shared = "redis://127.0.0.1:6379/0"
    if broker_up:
        try:
            redis.Redis.from_url(shared, socket_connect_timeout=2).ping()
        except redis.RedisError as exc:
            pytest.skip(f"no Redis at 6379: {exc}")
    port = 6379 if broker_up else free_port()
    app = make_service(ratelimit=True, broker_url=f"redis://127.0.0.1:{port}/0",
                       queue=f"referee-limits-{port}-{time.monotonic_ns()}")
    anon = Client(app)
    health = anon.get("/healthz")
    assert health.json["mode"] == "celery"
    if broker_up:
        assert health.status_code == 200 and health.json["checks"]["broker"] == "ok"
        return
    assert health.status_code == 503 and health.json["ok"] is False
    assert health.json["checks"] == {"database": "ok", "broker": "unreachable",
                                     "ratelimit": "unreachable"}
    assert "127.0.0.1" not in health.get_data(as_text=True)
    assert str(port) not in health.get_data(as_text=True)
    assert anon.get("/api/v1/games").status_code == 200
    assert anon.owner("alice").get("/api/v1/me").status_code == 200


@contextlib.contextmanager
def hung_broker() -> Iterator[str]:
    """A broker that takes connections and never answers (a frozen Redis, a dead NAT entry)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_a_hung_broker_costs_a_request_seconds_not_for_ever(make_service, bot_url):
    """Enqueueing a challenge on a broker that never answers gives up within its socket
    timeouts (the sweeper enqueues the ids later; a check is enqueued the same way); /healthz
    says the broker is down."""
    with hung_broker() as url:
        from api.dispatch import CeleryDispatcher

        queue = f"referee-hung-{time.monotonic_ns()}"
        app = make_service(broker_url=url, queue=queue)
        app.extensions["referee"].dispatcher = CeleryDispatcher(url, queue)  # publishes for real
        alice = Client(app).owner("alice")
        mine = alice.post("/api/v1/bots", json={"name": "mine", "url": bot_url,
                                                "games": ["toy-race"], "ladder": False})
        assert mine.status_code == 201, mine.json
        began = time.monotonic()
        answer = alice.post("/api/v1/challenges", json={"game": "toy-race",
                                                        "bots": [mine.json["id"], 1], "games": 2})
        assert answer.status_code == 202, answer.json
        assert time.monotonic() - began < 30  # its socket timeouts, not for ever
        health = Client(app).get("/healthz")
        assert health.status_code == 503 and health.json["checks"]["broker"] == "unreachable"
