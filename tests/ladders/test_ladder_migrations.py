"""The schema: migrations up and down on both databases, models == migrations, auto-migration."""

from __future__ import annotations

import multiprocessing

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from ladder import LadderError
from ladder.db import current_revision, head_revision, make_engine, migrate
from ladder.models import Base
from ladder.store import open_db

from support.ladder_db import make_log, record_all

TABLES = {"bots", "ladders", "matches", "match_seats", "ratings", "rating_history", "owners",
          "api_tokens", "rounds", "challenges", "ladder_entries", "health_checks", "match_logs",
          "fixtures", "alerts", "ladder_pauses", "incidents", "bot_checks",
          "solo_entries", "solo_rounds", "solo_games"}


def tables(engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_migrations_up_down_up(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        assert current_revision(engine) is None and tables(engine) == set()
        migrate(engine)
        assert current_revision(engine) == head_revision() and tables(engine) == TABLES
        migrate(engine, "base", down=True)
        assert current_revision(engine) is None and tables(engine) == set()
        migrate(engine)
        assert tables(engine) == TABLES
    finally:
        engine.dispose()


def test_models_and_migrations_agree(ladder_engine):
    with ladder_engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_bad_revision_is_a_one_line_error(ladder_engine):
    with pytest.raises(LadderError, match="migration to 'nonsense' failed"):
        migrate(ladder_engine, "nonsense")


def test_postgresql_asks_for_db_upgrade(pg_url):
    with pytest.raises(LadderError, match="run `referee db upgrade"):
        open_db(pg_url)


def test_sqlite_file_migrates_itself_even_when_several_processes_open_it_at_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    jobs = [(url, [make_log(f"p{p}-{n}", ["a", "b"], [1, 2]) for n in range(3)]) for p in range(3)]
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        results = pool.starmap(record_all, jobs)
    assert results == [[True] * 3] * 3
    engine = make_engine(url)
    try:
        assert current_revision(engine) == head_revision()
        journal = engine.connect().exec_driver_sql("PRAGMA journal_mode").scalar()
        assert journal == "wal"
    finally:
        engine.dispose()


@pytest.mark.parametrize("url, message", [
    ("nonsense", "bad database URL"),
    ("mysql://localhost/x", "unsupported database 'mysql'"),
    ("sqlite://", "needs a file path"),
    ("sqlite:///:memory:", "needs a file path"),
    ("postgresql+psycopg2://localhost/x", "unsupported PostgreSQL driver"),
])
def test_unusable_urls_are_refused(url, message):
    with pytest.raises(LadderError, match=message):
        open_db(url)


def test_unreachable_server_is_one_line():
    with pytest.raises(LadderError, match="127.0.0.1") as info:
        open_db("postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2")
    assert "\n" not in str(info.value)
