"""A solo entry can be paused by the service (``solo_entries.paused_reason``, ``paused_at``).

The health and presence rules pause a bot's solo entries with its ladder entries: a bot that
is down or away no longer has its solo games released, only to lose them by forfeit. An
entry of a bot already paused by those rules gets the same reason and moment here; the next
probe or poll lifts both as it lifts the ladder entries' pause.

Revision ID: 0012_solo_paused
Revises: 0011_solo_ladders
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_solo_paused"
down_revision = "0011_solo_ladders"
branch_labels = None
depends_on = None

AUTOMATIC = ("health:", "forfeits:", "away:")

entries = sa.table("ladder_entries", sa.column("bot_id", sa.Integer()),
                   sa.column("game", sa.String()), sa.column("paused_reason", sa.String()),
                   sa.column("paused_at", sa.DateTime(timezone=True)))
solo = sa.table("solo_entries", sa.column("bot_id", sa.Integer()),
                sa.column("paused_reason", sa.String()),
                sa.column("paused_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    with op.batch_alter_table("solo_entries") as batch:
        batch.add_column(sa.Column("paused_reason", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    conn = op.get_bind()
    paused = conn.execute(
        sa.select(entries.c.bot_id, entries.c.paused_reason, entries.c.paused_at)
        .where(sa.or_(*(entries.c.paused_reason.like(f"{prefix}%") for prefix in AUTOMATIC)))
        .order_by(entries.c.bot_id, entries.c.game)).all()
    done: set[int] = set()
    for bot_id, reason, at in paused:
        if bot_id not in done:  # one reason per bot: its entries were paused together
            done.add(bot_id)
            conn.execute(solo.update().where(solo.c.bot_id == bot_id)
                         .values(paused_reason=reason, paused_at=at))


def downgrade() -> None:
    with op.batch_alter_table("solo_entries") as batch:
        batch.drop_column("paused_at")
        batch.drop_column("paused_reason")
