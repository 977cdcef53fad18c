"""Bot checks are jobs: ``bot_checks`` holds each one, its state and its report.

``POST /bots/{id}/check`` used to play its match inside the request.  A check is now queued,
run by a worker under a lease it renews (``running``), and ends ``done`` with its report or
``failed`` with the reason (its worker stopped, its URL was refused); the owner polls it.

Revision ID: 0007_checks
Revises: 0006_incidents
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_checks"
down_revision = "0006_incidents"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "bot_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("prove", sa.Boolean(), nullable=False, server_default="0"),
        sa.Column("bot_version", sa.Integer(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("enqueued_at", TS, nullable=True),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_until", TS, nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_bot_checks_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_checks")),
    )
    op.create_index("ix_bot_checks_bot_id_id", "bot_checks", ["bot_id", "id"])
    op.create_index("ix_bot_checks_state_id", "bot_checks", ["state", "id"])


def downgrade() -> None:
    op.drop_index("ix_bot_checks_state_id", table_name="bot_checks")
    op.drop_index("ix_bot_checks_bot_id_id", table_name="bot_checks")
    op.drop_table("bot_checks")
