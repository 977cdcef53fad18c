"""Ladder test databases: a temp SQLite file, and a fresh PostgreSQL schema per test.

PostgreSQL is the service at ``REFEREE_TEST_PG``.  In CI (``CI`` set) an unreachable server
fails the test; elsewhere the PostgreSQL half of the suite skips.  Every test gets its own
schema, named after this session, on the search path of its URL, so parallel runs and
concurrent tests never see each other's rows; the schemas are dropped afterwards.

Also here: match logs synthesised from placings, and worker functions for the
multiprocessing (spawn) tests, which must live in an importable module.
"""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

PG_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
_counter = itertools.count()


def pg_base_url() -> str:
    return os.environ.get("REFEREE_TEST_PG", PG_DEFAULT)


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    """An engine on the test PostgreSQL server, or a skip (a failure in CI)."""
    engine = create_engine(pg_base_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        engine.dispose()
        reason = f"PostgreSQL at {pg_base_url()} unreachable: {str(exc.orig).splitlines()[0]}"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI must run the PostgreSQL tests)")
        pytest.skip(reason)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def pg_session_prefix() -> str:
    return f"referee_t{os.getpid()}_{secrets.token_hex(3)}"


def pg_schema_url(schema: str) -> str:
    url = make_url(pg_base_url()).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


@pytest.fixture
def pg_url(pg_admin: Engine, pg_session_prefix: str) -> Iterator[str]:
    """A URL whose search path is a new, empty schema (dropped after the test)."""
    schema = f"{pg_session_prefix}_{next(_counter)}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    yield pg_schema_url(schema)
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@contextmanager
def service_schema(pg_admin: Engine, name: str) -> Iterator[str]:
    """A PostgreSQL schema migrated to head with the house bots, as a started service has it;
    yields its URL and drops the schema afterwards."""
    from ladder.db import make_engine, migrate
    from ladder.registry import ensure_house_bots

    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        url = pg_schema_url(name)
        bootstrap = make_engine(url)
        migrate(bootstrap)
        ensure_house_bots(bootstrap)
        bootstrap.dispose()
        yield url
    finally:
        with pg_admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{name}" CASCADE'))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """An empty database of each kind: an SQLite file (never :memory:), a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def ladder_engine(db_url: str) -> Iterator[Engine]:
    """A migrated database of each kind (SQLite migrates itself; PostgreSQL explicitly)."""
    from ladder.db import make_engine, migrate
    from ladder.store import open_db

    if db_url.startswith("postgresql"):
        bootstrap = make_engine(db_url)
        migrate(bootstrap)
        bootstrap.dispose()
    engine = open_db(db_url)
    yield engine
    engine.dispose()


def make_log(match_id: str, names: Sequence[str], ranks: Sequence[int],
             forfeited: Sequence[int] = (), game: str = "toy-race") -> dict[str, Any]:
    """A match log as the Runner writes it, reduced to what the ladder reads."""
    winners = [i for i, r in enumerate(ranks) if r == min(ranks) and i not in forfeited]
    return {
        "format": "referee-match-log", "version": 1, "match_id": match_id, "game": game,
        "rules_version": "1", "seed": 1, "options": {}, "board": None,
        "players": [{"seat": i, "name": n, "strikes": 3 if i in forfeited else 0,
                     "forfeited": i in forfeited} for i, n in enumerate(names)],
        "decisions": [], "faults": [], "forfeited": list(forfeited),
        "result": {"seats": [{"seat": i, "score": 10 - r, "breakdown": {}, "rank": r}
                             for i, r in enumerate(ranks)],
                   "winners": winners, "end": "forfeit" if forfeited else "normal",
                   "rounds": 5, "reason": "", "extra": {}},
    }


def random_logs(seed: int, count: int, bots: Sequence[str], prefix: str,
                game: str = "toy-race") -> list[dict[str, Any]]:
    """``count`` synthetic 2-4 seat logs with random placings, ties and forfeits."""
    import random

    rng = random.Random(seed)
    logs = []
    for n in range(count):
        seats = rng.randint(2, min(4, len(bots)))
        names = rng.sample(list(bots), seats)
        keys = [rng.randint(0, 3) for _ in range(seats)]
        ranks = [1 + sum(1 for k in keys if k > mine) for mine in keys]
        forfeited = [i for i in range(seats) if rng.random() < 0.05]
        logs.append(make_log(f"{prefix}-{n}", names, ranks, forfeited, game))
    return logs


def record_all(url: str, logs: Sequence[dict[str, Any]]) -> list[bool]:
    """Worker for the multiprocessing tests: open the database and record every log."""
    from ladder.store import open_db, record_match

    engine = open_db(url)
    try:
        return [record_match(engine, log) for log in logs]
    finally:
        engine.dispose()
