"""Revision 0009_pull_mode, up and down: every bot written before it is a push bot; the
downgrade retires pull bots (without this revision a bot with no URL cannot be played)."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import MetaData, Table, insert, select, update

from ladder.db import current_revision, make_engine, migrate

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)


def _bots(conn) -> Table:
    return Table("bots", MetaData(), autoload_with=conn)


def test_0009_makes_every_bot_a_push_bot_and_its_downgrade_retires_pull_bots(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0008_fixture_id")
        with engine.begin() as conn:
            bots = _bots(conn)
            for name in ("web", "laptop"):
                conn.execute(insert(bots).values(name=name, created_at=T0, status="active"))
        migrate(engine, "0009_pull_mode")
        assert current_revision(engine) == "0009_pull_mode"
        with engine.begin() as conn:
            bots = _bots(conn)
            assert dict(conn.execute(select(bots.c.name, bots.c.mode)).all()) == {
                "web": "push", "laptop": "push"}
            conn.execute(update(bots).where(bots.c.name == "laptop").values(mode="pull"))
        migrate(engine, "0008_fixture_id", down=True)
        with engine.connect() as conn:
            bots = _bots(conn)
            assert "mode" not in bots.c
            assert dict(conn.execute(select(bots.c.name, bots.c.status)).all()) == {
                "web": "active", "laptop": "retired"}
    finally:
        engine.dispose()
