"""Engines and migrations: SQLite configured for several writers, PostgreSQL by URL.

SQLite traps handled here: Python's sqlite3 opens *deferred* transactions, and upgrading a read
lock to a write lock fails at once with "database is locked" whatever the busy timeout, so the
driver's own transaction handling is switched off (``isolation_level = None``) and every write
transaction starts with ``BEGIN IMMEDIATE`` (SQLAlchemy's documented pysqlite recipe).  That
also serialises rating updates on SQLite.  Reads that must not queue behind writers use
:func:`reader` (a plain deferred ``BEGIN``; WAL lets them run beside a writer).

PostgreSQL serialises the writers of one ladder with a transaction-scoped advisory lock
(:func:`lock_ladder`).  Its schema is migrated explicitly (``referee db upgrade``); the
embedded SQLite file is migrated automatically the first time it is opened.

A database that cannot serve (unreachable, locked, full, not a database) is a one-line
:class:`~ladder.LadderError` (:func:`translate_errors`); a statement the database refuses for
what it says (a misspelt column, a broken constraint) is the referee's bug and stays one.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import platformdirs
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError, DBAPIError, InterfaceError, NoSuchModuleError, OperationalError, StatementError,
)

from ladder import LadderError
from referee.display import redact

ENV_VAR = "REFEREE_DB"
DEFAULT_FILE = "ladder.sqlite3"
BUSY_TIMEOUT_MS = 60_000
# seconds a PostgreSQL connect may take (the URL's own connect_timeout wins)
CONNECT_TIMEOUT_S = 10
READ_ONLY = "referee_read_only"
"""Execution option: on SQLite, begin with a deferred ``BEGIN`` instead of ``BEGIN IMMEDIATE``."""
DEFAULT_DRIVERS = {"sqlite": "pysqlite", "postgresql": "psycopg"}
"""SQLAlchemy 2.1's drivers for bare ``sqlite://`` and ``postgresql://`` URLs."""
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
OUTAGES = (OperationalError, InterfaceError)
"""What a driver raises when the database cannot serve, whatever the statement: psycopg's
connection, resources, operator intervention, I/O and transaction rollback (serialization,
deadlock) classes.  SQLite is told apart by its result code (:data:`SQLITE_OUTAGES`)."""
SQLITE_OUTAGES = frozenset({
    sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
    sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_NOLFS,
    sqlite3.SQLITE_NOTADB,
})
"""SQLite's primary result codes for a file that cannot serve: sqlite3 raises
``OperationalError`` for these and for mistakes in the SQL alike (``no such column`` is
``SQLITE_ERROR``), and ``DatabaseError`` for a file that is not a database."""
POSTGRES_OUTAGES = frozenset({"25006", "XX001", "XX002"})
"""The SQLSTATEs of a PostgreSQL server that cannot serve that psycopg files as
``InternalError``: a read-only server (a standby after a failover), corrupted data or index."""

log = logging.getLogger("referee.ladder")


# -- URLs and engines -------------------------------------------------------------------------

def default_url() -> str:
    """``REFEREE_DB`` if set, else an SQLite file in the user's data directory."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return env
    folder = Path(platformdirs.user_data_dir("referee", appauthor=False))
    return str(URL.create("sqlite", database=str(folder / DEFAULT_FILE)))


def describe(url: str | URL) -> str:
    """A URL fit for messages: the password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "<unparseable URL>"


def parse_url(url: str) -> URL:
    """Check that ``url`` names a database this ladder supports; a one-line error otherwise."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise LadderError(
            f"bad database URL {redact(url)!r}: expected sqlite:///FILE or postgresql+psycopg://…"
        ) from None
    # read the names without loading a dialect: an unknown one would raise its own error
    backend, _, driver = parsed.drivername.partition("+")
    driver = driver or DEFAULT_DRIVERS.get(backend, "")
    if backend == "sqlite":
        if driver != "pysqlite":
            raise LadderError(f"unsupported SQLite driver {driver!r}: use sqlite:///FILE")
        if parsed.database in (None, "", ":memory:") or str(parsed.database).startswith("file:"):
            raise LadderError("the SQLite ladder needs a file path (sqlite:///FILE), not memory")
    elif backend == "postgresql":
        if driver != "psycopg":
            raise LadderError(f"unsupported PostgreSQL driver {driver!r}: use postgresql+psycopg://")
    else:
        raise LadderError(f"unsupported database {backend!r}: use SQLite or PostgreSQL")
    return parsed


def make_engine(url: str | None = None) -> Engine:
    """An engine for ``url`` (default: :func:`default_url`), without touching the schema."""
    parsed = parse_url(url or default_url())
    try:
        if parsed.get_backend_name() == "sqlite":
            if url is None and not os.environ.get(ENV_VAR, "").strip():
                # the default file's folder may not exist yet on a fresh machine
                Path(str(parsed.database)).parent.mkdir(parents=True, exist_ok=True)
            return _sqlite_engine(parsed)
        return _postgresql_engine(parsed)
    except (ArgumentError, NoSuchModuleError) as exc:
        raise LadderError(f"cannot use database {describe(parsed)}: {exc}") from exc


def _postgresql_engine(url: URL) -> Engine:
    """Bounded connects: libpq waits forever for a server that drops packets, and a request
    or a worker stuck there holds its thread with no error to show for it."""
    connect_args = {} if "connect_timeout" in url.query else {"connect_timeout": CONNECT_TIMEOUT_S}
    return create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _sqlite_engine(url: URL) -> Engine:
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    """Leave transactions to us; WAL so readers run beside the writer; wait, don't fail."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _switch_to_wal(cursor: Any) -> None:
    """WAL is stored in the file, so only the first connection ever switches. The switch needs
    the file to itself and SQLite answers "locked" at once instead of calling the busy handler
    (several processes opening a fresh file together): retry within the busy timeout."""
    if cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        return
    give_up = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > give_up:
                raise
            time.sleep(0.02)


def _sqlite_on_begin(connection: Connection) -> None:
    mode = "DEFERRED" if connection.get_execution_options().get(READ_ONLY) else "IMMEDIATE"
    connection.exec_driver_sql(f"BEGIN {mode}")


_SHARED: ContextVar[tuple[Engine, Connection] | None] = ContextVar("referee_shared_reader",
                                                                   default=None)


@contextmanager
def reader(engine: Engine) -> Iterator[Connection]:
    """A connection for reads only: on SQLite it does not take the write lock.  Inside
    :func:`shared_reader` of the same engine, that one's connection."""
    shared = _SHARED.get()
    if shared is not None and shared[0] is engine:
        yield shared[1]
        return
    with engine.connect() as conn:
        conn = conn.execution_options(**{READ_ONLY: True})
        with conn.begin():
            yield conn


@contextmanager
def shared_reader(engine: Engine) -> Iterator[None]:
    """Every :func:`reader` of ``engine`` inside (this thread or task) runs on one connection
    and transaction: for a page that gathers a dozen reads, each of which would otherwise
    check a connection out, ping it, begin, commit and reset it (four round trips and about
    0.2 ms of CPU a read on PostgreSQL).  For reads only: a write inside goes through a
    connection of its own, and the reads after it may not see it."""
    if _SHARED.get() is not None:
        yield
        return
    with reader(engine) as conn:
        token = _SHARED.set((engine, conn))
        try:
            yield
        finally:
            _SHARED.reset(token)


def lock_ladder(conn: Connection, game: str) -> None:
    """Serialise the writers of one game's ladder until the transaction ends.

    PostgreSQL: a transaction-scoped advisory lock keyed by the game.  SQLite: nothing to do,
    ``BEGIN IMMEDIATE`` already holds the database's single write lock.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(game)})


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_xact_lock`` (Python's hash() is salted)."""
    digest = hashlib.blake2b(f"referee.ladder:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@contextmanager
def translate_errors(engine: Engine,
                     keep: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Turn the errors of a database that cannot serve (unreachable server, unopenable or
    locked file: :func:`is_outage`) into a one-line LadderError.

    Any other error of a statement is a bug (a misspelt column, an integrity or data error
    no caller expected): it is logged here with its traceback and raised as it is, never
    reported as an outage.  Errors of the ``keep`` types (e.g. IntegrityError, a clash the
    caller explains) pass untouched and unlogged.
    """
    try:
        yield
    except keep:
        raise
    except StatementError as exc:  # DBAPIError, and failures to bind a value
        if isinstance(exc, DBAPIError) and is_outage(exc):
            raise LadderError(f"database {describe(engine.url)}: {_first_line(exc)}") from exc
        log.error("a statement on %s failed: a bug of the referee, not an outage",
                  describe(engine.url), exc_info=True)
        raise


def is_outage(exc: DBAPIError) -> bool:
    """Whether ``exc`` says the database cannot serve, rather than that the statement is wrong."""
    if exc.connection_invalidated:
        return True
    code = getattr(exc.orig, "sqlite_errorcode", None)
    if isinstance(exc.orig, sqlite3.Error) and isinstance(code, int):
        return code & 0xFF in SQLITE_OUTAGES  # an extended code's low byte is its primary code
    return isinstance(exc, OUTAGES) or getattr(exc.orig, "sqlstate", None) in POSTGRES_OUTAGES


def _first_line(exc: StatementError) -> str:
    text_ = str(exc.orig if exc.orig is not None else exc).strip()
    return text_.splitlines()[0] if text_ else type(exc.orig).__name__


def insert_ignoring(conn: Connection, model: Any) -> Any:
    """The dialect's INSERT, which offers ``on_conflict_do_nothing``."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(model)


class DriverStatement:
    """A statement compiled once for the connection's driver, run with plain tuples.

    SQLAlchemy converts every row's parameters and results in Python: about 3 us a row written
    and 1 us a row read, more than the database's own work in a recompute.  The statements
    run here take and give only ints, floats, strings and None, which both drivers (sqlite3,
    psycopg) handle as they are; SQLite hands booleans back as 0 and 1.
    """

    def __init__(self, conn: Connection, stmt: Any, fields: Sequence[str]) -> None:
        compiled = stmt.compile(dialect=conn.dialect)
        self.conn, self.sql, self.fields = conn, str(compiled), tuple(fields)
        self.defaults = dict(compiled.params)  # values SQLAlchemy bound itself (a LIMIT)
        self.positions: list[str] | None = (
            list(compiled.positiontup or ()) if compiled.positional else None)
        self.as_is = self.positions == list(self.fields)

    def params(self, row: tuple[Any, ...]) -> Any:
        """``row`` (in ``fields`` order) as the driver wants it: a tuple or a dict."""
        if self.as_is:
            return row
        named = {**self.defaults, **dict(zip(self.fields, row))}
        return named if self.positions is None else tuple(named[n] for n in self.positions)

    def fetchall(self, row: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        cursor = self.conn.connection.cursor()
        try:
            cursor.execute(self.sql, self.params(row))
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def executemany(self, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.conn.exec_driver_sql(self.sql, [self.params(row) for row in rows])


# -- migrations -------------------------------------------------------------------------------

def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration pointing at the packaged migrations (no ini file needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@functools.cache
def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - a packaging error
        raise LadderError("no migrations packaged")
    return head


def current_revision(engine: Engine) -> str | None:
    """The schema revision the database is at (None for an empty database)."""
    with translate_errors(engine), reader(engine) as conn:
        return MigrationContext.configure(conn).get_current_revision()


def migrate(engine: Engine, revision: str = "head", *, down: bool = False) -> None:
    """Upgrade (or downgrade) the schema in one transaction, one migrator at a time.

    On SQLite, foreign keys are off while migrating: batch mode recreates a table by copying
    it and dropping the old one, and with foreign keys on, that drop would run the ``ON DELETE
    CASCADE`` of every table that refers to it (the pragma only changes outside a transaction).
    The keys are checked before the transaction commits.
    """
    with translate_errors(engine), engine.connect() as conn:
        sqlite_db = conn.dialect.name == "sqlite"
        raw: Any = conn.connection.dbapi_connection  # autocommit: outside any transaction
        if sqlite_db:
            raw.execute("PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                lock_ladder(conn, "<migrations>")
                _run_alembic(conn, revision, down)
                if sqlite_db and conn.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise LadderError(f"migration to {revision!r} broke a foreign key")
        finally:
            if sqlite_db:
                raw.execute("PRAGMA foreign_keys = ON")


def _run_alembic(conn: Connection, revision: str, down: bool) -> None:
    if not revision.strip():  # Alembic asserts it is not empty
        raise LadderError("no revision to migrate to: name one (head, base or a revision id)")
    config = alembic_config(conn)
    try:
        if down:
            command.downgrade(config, revision)
        else:
            command.upgrade(config, revision)
    except CommandError as exc:  # how Alembic reports a revision it cannot go to
        raise LadderError(f"migration to {revision!r} failed: {exc}") from exc


def ensure_schema(engine: Engine) -> None:
    """Make sure the schema is current: migrate SQLite, ask for ``referee db upgrade`` otherwise."""
    current = current_revision(engine)
    if current == head_revision():
        return
    if engine.dialect.name == "sqlite" and _known(current):
        migrate(engine)
        return
    if current is not None and not _known(current):
        raise LadderError(
            f"database {describe(engine.url)} is at schema revision {current}, which this "
            "version of referee does not know (newer?)"
        )
    raise LadderError(
        f"database {describe(engine.url)} is at schema revision {current or 'none'}, "
        f"not {head_revision()}: run `referee db upgrade --db URL`"
    )


def _known(revision: str | None) -> bool:
    """Whether ``revision`` (the database's, exactly as stored) is one this version packages;
    an empty database is at none."""
    return revision is None or revision in known_revisions()


@functools.cache
def known_revisions() -> frozenset[str]:
    """The ids of the packaged migrations (an exact id: Alembic's lookup would also take a
    prefix or a symbolic name, and reports what it cannot find by raising)."""
    return frozenset(script.revision
                     for script in ScriptDirectory.from_config(alembic_config()).walk_revisions())
