"""Revision 0012_solo_paused, up and down: the solo entries of a bot the health or presence
rules hold paused take that pause (reason and moment); a pause of another kind (its owner's)
is not copied, and a bot with no pause keeps its solo entries running."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import MetaData, Table, insert, select

from ladder.db import make_engine, migrate

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
AWAY = "away: not connected (a pull bot plays while its connection polls)"


def _table(conn, name: str) -> Table:
    return Table(name, MetaData(), autoload_with=conn)


def test_0012_copies_an_automatic_pause_onto_the_solo_entries(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0011_solo_ladders")
        with engine.begin() as conn:
            owners, bots = _table(conn, "owners"), _table(conn, "bots")
            entries, solo = _table(conn, "ladder_entries"), _table(conn, "solo_entries")
            owner = conn.execute(insert(owners).values(name="ann", is_admin=False, created_at=T0)
                                 .returning(owners.c.id)).scalar_one()
            ids = {n: conn.execute(insert(bots).values(name=n, owner_id=owner, created_at=T0)
                                   .returning(bots.c.id)).scalar_one()
                   for n in ("away", "held", "fine")}
            reasons = {"away": AWAY, "held": "owner: paused by its owner", "fine": None}
            conn.execute(insert(entries), [
                {"bot_id": ids[n], "game": "tokaido-duo", "active": True,
                 "paused_reason": reasons[n], "paused_at": None if n == "fine" else T0,
                 "placement_remaining": 0, "joined_at": T0} for n in ids])
            conn.execute(insert(solo), [
                {"bot_id": ids[n], "game": "tokaido-duo", "level": level, "active": True,
                 "joined_at": T0 + timedelta(hours=1)} for n in ids for level in (1, 4)])
        migrate(engine, "0012_solo_paused")
        with engine.connect() as conn:
            solo = _table(conn, "solo_entries")
            found = {(r.bot_id, r.level): (r.paused_reason, r.paused_at) for r in conn.execute(
                select(solo.c.bot_id, solo.c.level, solo.c.paused_reason, solo.c.paused_at))}
        for level in (1, 4):
            reason, at = found[(ids["away"], level)]
            assert reason == AWAY and at.replace(tzinfo=timezone.utc) == T0
            assert found[(ids["held"], level)] == (None, None)
            assert found[(ids["fine"], level)] == (None, None)
        migrate(engine, "0011_solo_ladders", down=True)
        with engine.connect() as conn:
            columns = _table(conn, "solo_entries").c
            assert "paused_reason" not in columns and "paused_at" not in columns
    finally:
        engine.dispose()
