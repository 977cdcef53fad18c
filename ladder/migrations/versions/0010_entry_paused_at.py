"""A ladder entry records when it was paused (``ladder_entries.paused_at``).

A bot's page says since when it has not played.  An entry already paused gets the moment of
its bot's latest ``paused`` alert naming its game, when the health or presence rules paused it
(they write an alert with every pause); a pause no alert records (its owner's, an admin's, a retirement) stays unknown.

Revision ID: 0010_entry_paused_at
Revises: 0009_pull_mode
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_entry_paused_at"
down_revision = "0009_pull_mode"
branch_labels = None
depends_on = None

entries = sa.table("ladder_entries", sa.column("bot_id", sa.Integer()),
                   sa.column("game", sa.String()), sa.column("paused_reason", sa.String()),
                   sa.column("paused_at", sa.DateTime(timezone=True)))
alerts = sa.table("alerts", sa.column("id", sa.Integer()), sa.column("bot_id", sa.Integer()),
                  sa.column("kind", sa.String()), sa.column("at", sa.DateTime(timezone=True)),
                  sa.column("games", sa.JSON()))


def upgrade() -> None:
    with op.batch_alter_table("ladder_entries") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    conn = op.get_bind()
    paused = conn.execute(sa.select(entries.c.bot_id, entries.c.game).where(
        sa.or_(*(entries.c.paused_reason.like(f"{prefix}:%")
                 for prefix in ("health", "forfeits", "away"))))).all()
    for bot_id, game in paused:
        for at, games in conn.execute(
                sa.select(alerts.c.at, alerts.c.games).where(
                    alerts.c.bot_id == bot_id, alerts.c.kind == "paused")
                .order_by(alerts.c.id.desc())):
            if game in (games or []):
                conn.execute(entries.update().where(entries.c.bot_id == bot_id,
                                                    entries.c.game == game)
                             .values(paused_at=at))
                break


def downgrade() -> None:
    with op.batch_alter_table("ladder_entries") as batch:
        batch.drop_column("paused_at")
