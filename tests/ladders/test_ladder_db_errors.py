"""Storage errors: a database that cannot serve is a one-line LadderError; a statement the
database refuses for what it says is the referee's bug, logged with its traceback and raised
as it is (never reported as an outage)."""

from __future__ import annotations

import logging
import socket
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, insert, text
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

from ladder import LadderError, db, leaderboard as board
from ladder.db import head_revision, make_engine, migrate, translate_errors
from ladder.models import GAME_LEN, Ladder, Owner
from ladder.store import open_db

from support.ladder_db import sqlite_head_url

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def bugs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """The log, where the ladder writes what it calls a bug (with its traceback)."""
    caplog.set_level(logging.ERROR, logger="referee.ladder")
    return caplog


def ours(log: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in log.records if r.name == "referee.ladder"]


def traced(log: pytest.LogCaptureFixture) -> list[BaseException]:
    """The exceptions whose tracebacks the ladder logged."""
    return [r.exc_info[1] for r in ours(log) if r.exc_info and r.exc_info[1] is not None]


@pytest.fixture
def sqlite_file(sqlite_head_template: Path, tmp_path: Path) -> tuple[Path, str]:
    """A new SQLite file at the head revision: its path and URL."""
    path = tmp_path / "ladder.sqlite3"
    return path, sqlite_head_url(sqlite_head_template, path)


# -- bugs: raised as they are, with their traceback in the log ----------------------------------

def test_a_misspelt_column_is_a_bug_not_an_outage(ladder_engine, monkeypatch, bugs):
    """SQLite raises ``OperationalError`` for it, as for a locked or missing file (its result
    code tells them apart); PostgreSQL raises ``ProgrammingError``."""
    def misspelt(conn, game):
        return conn.execute(text("SELECT no_such_column FROM ladders")).scalar()

    monkeypatch.setattr(board, "ladder_config", misspelt)
    with pytest.raises(DBAPIError, match="no_such_column") as info:
        board.leaderboard(ladder_engine, "toy-race")
    assert traced(bugs) == [info.value]
    assert "not an outage" in ours(bugs)[0].getMessage()


def test_an_integrity_error_is_a_bug_unless_the_caller_keeps_it(ladder_engine, bugs):
    def add_alice(keep: tuple[type[BaseException], ...] = ()) -> None:
        with translate_errors(ladder_engine, keep), ladder_engine.begin() as conn:
            conn.execute(insert(Owner).values(name="alice", created_at=NOW))

    add_alice()
    with pytest.raises(IntegrityError):
        add_alice(keep=(IntegrityError,))  # a clash the caller explains: not logged
    assert traced(bugs) == []
    with pytest.raises(IntegrityError) as info:
        add_alice()
    assert traced(bugs) == [info.value]


def test_a_value_wider_than_its_column_is_a_bug(pg_head_url, bugs):
    """PostgreSQL refuses it (``DataError``); the ladder cuts every text to its model's width
    before writing, so meeting one is a bug."""
    engine = make_engine(pg_head_url)
    try:
        with pytest.raises(DataError) as info:
            with translate_errors(engine), engine.begin() as conn:
                conn.execute(insert(Ladder).values(
                    game="g" * (GAME_LEN + 1), elo_k=24.0, elo_k_provisional=40.0,
                    elo_provisional_games=10, created_at=NOW))
    finally:
        engine.dispose()
    assert traced(bugs) == [info.value]


# -- outages: one line, no traceback -----------------------------------------------------------

def test_a_locked_sqlite_file_is_an_outage(sqlite_file, bugs):
    path, url = sqlite_file
    impatient = create_engine(url, connect_args={"timeout": 0})  # no busy wait
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the file's write lock
    try:
        with pytest.raises(LadderError, match="database is locked") as info:
            with translate_errors(impatient), impatient.begin() as conn:
                conn.execute(text("DELETE FROM ladders"))
    finally:
        holder.rollback()
        holder.close()
        impatient.dispose()
    assert "\n" not in str(info.value)
    assert traced(bugs) == []


def test_a_read_only_postgresql_server_is_an_outage(pg_head_url, bugs):
    """A standby after a failover refuses writes: psycopg files that as ``InternalError``."""
    engine = make_engine(pg_head_url)
    try:
        with pytest.raises(LadderError, match="read-only transaction") as info:
            with translate_errors(engine), engine.begin() as conn:
                conn.execute(text("SET TRANSACTION READ ONLY"))
                conn.execute(text("DELETE FROM ladders"))
    finally:
        engine.dispose()
    assert "\n" not in str(info.value)
    assert traced(bugs) == []


def test_a_postgresql_server_that_never_answers_is_an_outage_not_a_hang(monkeypatch, bugs):
    """A server that takes the connection and says nothing (a dead host behind a proxy) ends
    the connect after the bound: without one, libpq waits for as long as TCP keeps it open."""
    monkeypatch.setattr(db, "CONNECT_TIMEOUT_S", 1)
    silent = socket.create_server(("127.0.0.1", 0))
    port = silent.getsockname()[1]
    engine = make_engine(f"postgresql+psycopg://nobody@127.0.0.1:{port}/test")
    try:
        with pytest.raises(LadderError, match="timeout") as info:
            with translate_errors(engine), engine.connect():
                pass
    finally:
        engine.dispose()
        silent.close()
    assert "\n" not in str(info.value)
    assert traced(bugs) == []


def test_a_file_that_is_not_a_database_is_one_line(tmp_path, bugs):
    """sqlite3 raises ``DatabaseError`` (neither operational nor an interface's): an outage
    all the same, by its result code."""
    path = tmp_path / "notes.txt"
    path.write_text("these are my notes, not a ladder\n" * 200)
    with pytest.raises(LadderError, match="file is not a database") as info:
        open_db(f"sqlite:///{path}")
    assert "\n" not in str(info.value)
    assert traced(bugs) == []


def test_a_sqlite_folder_where_the_file_was_is_one_line(sqlite_file, bugs):
    path, url = sqlite_file
    path.unlink()
    path.mkdir()
    engine = make_engine(url)
    try:
        with pytest.raises(LadderError, match="unable to open database file"):
            board.games(engine)
    finally:
        engine.dispose()
    assert traced(bugs) == []


# -- the schema's revision ---------------------------------------------------------------------

@pytest.fixture
def fresh_revisions() -> Iterator[None]:
    head_revision()  # cached: a patched migrations folder below reaches only the known ones
    db.known_revisions.cache_clear()
    yield
    db.known_revisions.cache_clear()


def stamp(url: str, revision: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})
    finally:
        engine.dispose()


@pytest.mark.parametrize("revision", ["0005", "head", "nonsense"])
def test_only_a_packaged_revision_id_is_known(sqlite_file, fresh_revisions, revision):
    """Exactly an id: Alembic's lookup would take ``0005`` (a prefix) or ``head``."""
    _, url = sqlite_file
    stamp(url, revision)
    with pytest.raises(LadderError, match=f"revision {revision}, which this version of "
                                          "referee does not know"):
        open_db(url)


def test_an_unreadable_migrations_folder_is_not_an_unknown_revision(
        sqlite_file, monkeypatch, fresh_revisions):
    _, url = sqlite_file
    stamp(url, "0006_incidents")  # one behind: the file would migrate itself

    def broken(config):
        raise OSError("migrations folder unreadable")

    monkeypatch.setattr(ScriptDirectory, "from_config", broken)
    with pytest.raises(OSError, match="migrations folder unreadable"):
        open_db(url)


def test_a_bad_revision_to_migrate_to_is_one_line_and_a_broken_migration_is_not(
        ladder_engine, monkeypatch):
    with pytest.raises(LadderError, match="no revision to migrate to"):
        migrate(ladder_engine, "")  # Alembic would assert
    with pytest.raises(LadderError, match="migration to 'head-99' failed"):
        migrate(ladder_engine, "head-99", down=True)

    def broken(config, revision):
        raise KeyError("a migration's own bug")

    monkeypatch.setattr(db.command, "upgrade", broken)
    with pytest.raises(KeyError, match="a migration's own bug"):
        migrate(ladder_engine)

