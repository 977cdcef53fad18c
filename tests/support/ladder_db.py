"""Ladder test databases: SQLite files and PostgreSQL databases, empty or at the head revision.

PostgreSQL is the service at ``REFEREE_TEST_PG``.  In CI (``CI`` set) an unreachable server
fails the test; elsewhere the PostgreSQL half of the suite skips.  Names start with this
session's prefix (its pid and a random part), so parallel runs never see each other's rows;
whatever a test creates is dropped after it.  An empty database is a new schema, on the search
path of its URL.  A database at head is a copy of one template: Alembic migrates the template
(an SQLite file, a PostgreSQL database) once per run, and each test gets a file copy or a
``CREATE DATABASE ... TEMPLATE`` (a copy of the files too): migrating costs a third of a
second a database, copying a twentieth, and hundreds of tests start on a fresh database.

Also here: match logs synthesised from placings, and worker functions for the
multiprocessing (spawn) tests, which must live in an importable module.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, Engine, make_url
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
    """The URL of the test server's database with ``schema`` first on the search path."""
    return pg_test_url(pg_base_url(), f"-csearch_path={schema}")


def pg_database_url(database: str) -> str:
    """The URL of ``database`` on the test server."""
    return pg_test_url(make_url(pg_base_url()).set(database=database))


def pg_test_url(url: str | URL, *options: str) -> str:
    """``url`` with ``options`` for the server, and commits that do not wait for the disk.

    The tests commit thousands of times and each commit would otherwise wait for an fsync of
    the write-ahead log, milliseconds on most disks.  Commits stay atomic and visible at once
    to every other connection; only a crash of the server could lose the last ones.
    """
    options = (*options, "-csynchronous_commit=off")
    with_options = make_url(url).update_query_dict({"options": " ".join(options)})
    return with_options.render_as_string(hide_password=False)


@pytest.fixture
def pg_url(pg_admin: Engine, pg_session_prefix: str) -> Iterator[str]:
    """A URL whose search path is a new, empty schema (dropped after the test)."""
    schema = f"{pg_session_prefix}_{next(_counter)}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    yield pg_schema_url(schema)
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(scope="session")
def pg_head_template(pg_admin: Engine, pg_session_prefix: str) -> Iterator[str]:
    """The name of a PostgreSQL database migrated to head, the template of :func:`pg_head_url`.

    Nothing stays connected to it (``CREATE DATABASE ... TEMPLATE`` refuses a template in use).
    """
    from ladder.db import make_engine, migrate

    name = f"{pg_session_prefix}_head"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        bootstrap = make_engine(pg_database_url(name))
        try:
            migrate(bootstrap)
        finally:
            bootstrap.dispose()
        yield name
    finally:
        drop_database(pg_admin, name)


@pytest.fixture
def pg_head_url(pg_admin: Engine, pg_head_template: str, pg_session_prefix: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database at head (dropped after the test)."""
    with pg_head_database(pg_admin, pg_head_template, pg_session_prefix) as url:
        yield url


@contextmanager
def pg_head_database(pg_admin: Engine, template: str, prefix: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database, a copy of ``template``; dropped on leaving, with
    any connection to it left open."""
    name = f"{prefix}_{next(_counter)}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    try:
        yield pg_database_url(name)
    finally:
        drop_database(pg_admin, name)


def drop_database(pg_admin: Engine, name: str) -> None:
    with pg_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_head_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file at the head revision, copied by :func:`sqlite_head_url`."""
    from ladder.store import open_db

    path = tmp_path_factory.mktemp("template") / "head.sqlite3"
    open_db(f"sqlite:///{path}").dispose()
    # the last connection to close folds the write-ahead log into the file: it alone is copied
    assert not path.with_name(path.name + "-wal").exists()
    return path


def sqlite_head_url(template: Path, path: Path) -> str:
    """The URL of a new SQLite file at ``path``, a copy of the head template."""
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


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


KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of each kind at the head revision: an SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return sqlite_head_url(request.getfixturevalue("sqlite_head_template"),
                               tmp_path / "ladder.sqlite3")
    url: str = request.getfixturevalue("pg_head_url")
    return url


@pytest.fixture(params=KINDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each kind (for the migrations): an SQLite file (never :memory:),
    a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def ladder_engine(db_url: str) -> Iterator[Engine]:
    """An engine on :func:`db_url`."""
    from ladder.store import open_db

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
