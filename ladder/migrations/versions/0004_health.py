"""Bot health and ladder administration: owners' alerts, and paused ladders.

* ``alerts``: an owner's record of what happened to their bots on their own (an automatic
  pause after failed health probes or forfeits in a row, and the resume after good probes);
* ``ladder_pauses``: a game's ladder paused by an admin (a row while it is paused).

Revision ID: 0004_health
Revises: 0003_matchmaking
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_health"
down_revision = "0003_matchmaking"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"], ondelete="CASCADE",
                                name=op.f("fk_alerts_owner_id_owners")),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_alerts_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alerts")),
    )
    op.create_index("ix_alerts_owner_id_id", "alerts", ["owner_id", "id"])
    op.create_index("ix_alerts_bot_id_id", "alerts", ["bot_id", "id"])
    op.create_table(
        "ladder_pauses",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("paused_at", TS, nullable=False),
        sa.Column("by_owner_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["by_owner_id"], ["owners.id"], ondelete="SET NULL",
                                name=op.f("fk_ladder_pauses_by_owner_id_owners")),
        sa.PrimaryKeyConstraint("game", name=op.f("pk_ladder_pauses")),
    )


def downgrade() -> None:
    op.drop_table("ladder_pauses")
    op.drop_index("ix_alerts_bot_id_id", table_name="alerts")
    op.drop_index("ix_alerts_owner_id_id", table_name="alerts")
    op.drop_table("alerts")
