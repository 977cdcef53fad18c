"""The referee's own failures, for the operator: ``incidents``.

A match attempt that fails for the referee's reasons (a bug, storage lost while finishing) is
no bot's fault: the match gets another attempt, and after its last it is voided. Each such
failure is a row here, with its traceback, so the operator hears of it.

Revision ID: 0006_incidents
Revises: 0005_fold_index
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_incidents"
down_revision = "0005_fold_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "incidents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_pk", sa.Integer(), nullable=True),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("error", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(["match_pk"], ["matches.id"], ondelete="SET NULL",
                                name=op.f("fk_incidents_match_pk_matches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incidents")),
    )
    op.create_index("ix_incidents_at", "incidents", ["at"])


def downgrade() -> None:
    op.drop_index("ix_incidents_at", table_name="incidents")
    op.drop_table("incidents")
