"""An incident can name a pull bot (``incidents.bot_id``): a web process that cannot reach the
relay for a bot's poll or answer says so, and a match that struck that bot meanwhile is played
again rather than charged to it (a relay failure is the referee's, never a strike).

Revision ID: 0013_incident_bot
Revises: 0012_solo_paused
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_incident_bot"
down_revision = "0012_solo_paused"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("incidents") as batch:
        batch.add_column(sa.Column("bot_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_incidents_bot_id_bots"), "bots", ["bot_id"], ["id"],
                                 ondelete="SET NULL")


def downgrade() -> None:
    with op.batch_alter_table("incidents") as batch:
        batch.drop_constraint(op.f("fk_incidents_bot_id_bots"), type_="foreignkey")
        batch.drop_column("bot_id")
