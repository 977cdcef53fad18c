"""Page fixtures: the ladder of ``pages_support`` on each database kind, built once per run."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text

from pages_support import Site, make_site
from support.apps import served_app
from support.ladder_db import pg_admin, pg_schema_url, pg_session_prefix  # noqa: F401

_schemas = itertools.count()


@pytest.fixture(scope="session")
def sqlite_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The ladder of :mod:`pages_support` on an SQLite file, built once per test run (the
    tests only read it, or add what no other test counts: tokens, sessions)."""
    folder = tmp_path_factory.mktemp("pages")
    built = make_site(f"sqlite:///{folder / 'pages.sqlite3'}")
    yield built
    built.engine.dispose()


@pytest.fixture(scope="session")
def postgresql_site(pg_admin: Any, pg_session_prefix: str) -> Iterator[Site]:
    """The same ladder in a PostgreSQL schema of its own."""
    schema = f"{pg_session_prefix}_pages{next(_schemas)}"
    with pg_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        built = make_site(pg_schema_url(schema))
        yield built
        built.engine.dispose()
    finally:
        with pg_admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def site(request: pytest.FixtureRequest) -> Site:
    """The ladder on each kind of database."""
    found: Site = request.getfixturevalue(f"{request.param}_site")
    return found


@pytest.fixture(scope="session")
def served(sqlite_site: Site) -> Iterator[tuple[str, Site]]:
    """The site's app on a loopback HTTP server: ``(base URL, site)``."""
    with served_app(sqlite_site.app) as base:
        yield base, sqlite_site


@pytest.fixture(scope="session")
def rounds_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The living ladder of :mod:`rounds_support` (rounds, a challenge, long probes), on an
    SQLite file, built once per run."""
    from rounds_support import build

    built = build(f"sqlite:///{tmp_path_factory.mktemp('rounds') / 'rounds.sqlite3'}")
    yield built
    built.engine.dispose()


@pytest.fixture(scope="session")
def rounds_served(rounds_site: Any) -> Iterator[tuple[str, Any]]:
    """The rounds ladder's app on a loopback HTTP server: ``(base URL, ladder)``."""
    with served_app(rounds_site.app) as base:
        yield base, rounds_site
