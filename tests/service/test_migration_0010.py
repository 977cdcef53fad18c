"""Revision 0010_entry_paused_at, up and down: an entry the health rules paused learns since
when from its bot's latest pause alert for its game; a pause no alert records stays unknown."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import MetaData, Table, insert, select

from ladder.db import make_engine, migrate

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)


def _table(conn, name: str) -> Table:
    return Table(name, MetaData(), autoload_with=conn)


def test_0010_backfills_a_health_pause_from_its_alert(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0009_pull_mode")
        with engine.begin() as conn:
            owners, bots = _table(conn, "owners"), _table(conn, "bots")
            entries, alerts = _table(conn, "ladder_entries"), _table(conn, "alerts")
            owner = conn.execute(insert(owners).values(name="ann", is_admin=False, created_at=T0)
                                 .returning(owners.c.id)).scalar_one()
            ids = {n: conn.execute(insert(bots).values(name=n, owner_id=owner, created_at=T0)
                                   .returning(bots.c.id)).scalar_one()
                   for n in ("sick", "held", "fine")}
            reasons = {"sick": "health: 3 failed probes in a row",
                       "held": "owner: paused by its owner", "fine": None}
            conn.execute(insert(entries), [
                {"bot_id": ids[n], "game": "tokaido-duo", "active": True,
                 "paused_reason": reasons[n], "placement_remaining": 0, "joined_at": T0}
                for n in ids])
            conn.execute(insert(alerts), [  # the older pause was lifted; the newer one holds
                {"owner_id": owner, "bot_id": ids["sick"], "kind": "paused", "reason": "x",
                 "detail": "", "games": ["tokaido-duo"], "at": T0 + timedelta(hours=h)}
                for h in (1, 5)] + [
                {"owner_id": owner, "bot_id": ids["held"], "kind": "paused", "reason": "x",
                 "detail": "", "games": ["tokaido-duo"], "at": T0}])
        migrate(engine, "0010_entry_paused_at")
        with engine.connect() as conn:
            entries = _table(conn, "ladder_entries")
            since = {r.bot_id: r.paused_at for r in conn.execute(
                select(entries.c.bot_id, entries.c.paused_at))}
        sick = since[ids["sick"]]
        assert sick is not None and sick.replace(tzinfo=timezone.utc) == T0 + timedelta(hours=5)
        assert since[ids["held"]] is None and since[ids["fine"]] is None
        migrate(engine, "0009_pull_mode", down=True)
        with engine.connect() as conn:
            assert "paused_at" not in _table(conn, "ladder_entries").c
    finally:
        engine.dispose()
