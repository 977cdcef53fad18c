"""What a server does besides building its app: the database made ready, the workers started.

:func:`api.create_app` only builds; these are the steps ``referee serve`` takes around it
(:func:`serving_app` embedded, and with a broker where gunicorn cannot run; under gunicorn the
server process prepares the database once and each worker builds and starts its own app).
A test takes the same steps where it needs them, so what it runs is what a server runs.
"""

from __future__ import annotations

from flask import Flask
from sqlalchemy import Engine

from api.app import create_app
from api.config import ServiceConfig
from api.context import service_of


def prepare_database(config: ServiceConfig) -> Engine:
    """An engine on ``config``'s database, made ready to serve: at the current schema (an
    SQLite file is migrated; PostgreSQL must be, ``referee db upgrade``, else LadderError says
    so), the house bots written, and entered in every living ladder an owner's bot is on
    (``config.house_ladders``, which may have changed since the last start).  Every step is
    idempotent: several server processes may start at once."""
    from ladder.registry import ensure_house_bots, join_house_bots
    from ladder.store import open_db

    engine = open_db(config.db_url)
    try:
        ensure_house_bots(engine)
        join_house_bots(engine, config.house_ladders)
    except BaseException:
        engine.dispose()
        raise
    return engine


def start(app: Flask) -> Flask:
    """``app`` with its dispatcher started (the embedded pool's threads pick up every match
    and check left unfinished, then what comes); the same app."""
    service_of(app).dispatcher.start()
    return app


def serving_app(config: ServiceConfig) -> Flask:
    """The app a server serves: its database prepared, its dispatcher started."""
    return start(create_app(config, engine=prepare_database(config)))
