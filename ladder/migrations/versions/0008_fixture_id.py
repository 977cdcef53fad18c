"""A match names its fixture and whether it is held, in columns of their own.

* ``matches.fixture_id``: the living ladder's fixture a match plays.  It was a string in
  ``pair_key`` (``"fx12"``), parsed back by the matchmaker; ``pair_key`` keeps its own job
  (the matches sharing a seed, whose logs are public together).  Filled in from ``pair_key``
  for every match whose fixture still exists.
* ``matches.held``: created but not released to the workers (a game of a fixture waiting for
  its bots to have room).  It was an ``enqueued_at`` in the year 9000, which the sweeper
  skipped only because such a date is never stale; a held match now has no ``enqueued_at``.

The downgrade writes the year-9000 mark back and drops both columns (``pair_key`` still names
the fixture).

Revision ID: 0008_fixture_id
Revises: 0007_checks
Create Date: 2026-12-04
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision = "0008_fixture_id"
down_revision = "0007_checks"
branch_labels = None
depends_on = None

HELD_MARK = datetime(9000, 1, 1, tzinfo=timezone.utc)
"""What revision 0007's matchmaker wrote in ``enqueued_at`` for a held match."""
FIXTURE_PREFIX = "fx"

matches = sa.table("matches", sa.column("id", sa.Integer()), sa.column("pair_key", sa.String()),
                   sa.column("fixture_id", sa.Integer()), sa.column("held", sa.Boolean()),
                   sa.column("state", sa.String()),
                   sa.column("enqueued_at", sa.DateTime(timezone=True)))
fixtures = sa.table("fixtures", sa.column("id", sa.Integer()))


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("fixture_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("held", sa.Boolean(), nullable=False, server_default="0"))
        batch.create_foreign_key(op.f("fk_matches_fixture_id_fixtures"), "fixtures",
                                 ["fixture_id"], ["id"], ondelete="SET NULL")
    op.create_index("ix_matches_fixture_id", "matches", ["fixture_id"])
    conn = op.get_bind()
    _link_fixtures(conn)
    conn.execute(matches.update().where(matches.c.state == "scheduled",
                                        matches.c.enqueued_at >= HELD_MARK)
                 .values(held=True, enqueued_at=None))


def _link_fixtures(conn: sa.Connection) -> None:
    """``fixture_id`` from ``pair_key`` (``fx`` and the fixture's id), where that fixture is
    still there (a round's fixtures go with the round)."""
    existing = set(conn.execute(sa.select(fixtures.c.id)).scalars())
    rows = conn.execute(sa.select(matches.c.id, matches.c.pair_key).where(
        matches.c.pair_key.like(f"{FIXTURE_PREFIX}%"))).all()
    links = []
    for match_pk, key in rows:
        number = key[len(FIXTURE_PREFIX):]
        if number.isdigit() and int(number) in existing:
            links.append({"m_id": match_pk, "f_id": int(number)})
    if links:
        conn.execute(matches.update().where(matches.c.id == sa.bindparam("m_id"))
                     .values(fixture_id=sa.bindparam("f_id")), links)


def downgrade() -> None:
    op.get_bind().execute(matches.update().where(matches.c.held.is_(True))
                          .values(enqueued_at=HELD_MARK))
    op.drop_index("ix_matches_fixture_id", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint(op.f("fk_matches_fixture_id_fixtures"), type_="foreignkey")
        batch.drop_column("held")
        batch.drop_column("fixture_id")
