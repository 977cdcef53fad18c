"""Revision 0013_incident_bot, up and down: an incident may name a bot; the incidents already
booked keep everything they had and name none."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import MetaData, Table, insert, select

from ladder.db import make_engine, migrate

T0 = datetime(2026, 12, 5, tzinfo=timezone.utc)


def _table(conn, name: str) -> Table:
    return Table(name, MetaData(), autoload_with=conn)


def test_0013_adds_the_bot_an_incident_names(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0012_solo_paused")
        with engine.begin() as conn:
            conn.execute(insert(_table(conn, "incidents")).values(
                at=T0, match_pk=None, attempt=1, outcome="retried", error="ValueError: x",
                detail="", worker="w"))
        migrate(engine, "0013_incident_bot")
        with engine.connect() as conn:
            incidents = _table(conn, "incidents")
            assert conn.execute(select(incidents.c.error, incidents.c.bot_id)).all() == [
                ("ValueError: x", None)]
        migrate(engine, "0012_solo_paused", down=True)
        with engine.connect() as conn:
            incidents = _table(conn, "incidents")
            assert "bot_id" not in incidents.c
            assert conn.execute(select(incidents.c.error)).scalars().all() == ["ValueError: x"]
    finally:
        engine.dispose()
