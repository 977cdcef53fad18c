"""Continuous matchmaking: fixtures of rounds, and each ladder entry's matchmaking state.

* ``fixtures``: what a round gives each eligible bot (a fixture: the bots in seat order, its
  seed and how many of its matches are created; or a bye), and the make-ups of voided or
  cancelled ones (filed under the round whose slot they fill);
* ``ladder_entries`` gains the bot version its placement belongs to, the round of its last
  rest (a bye, or joining), its bye count and its seat counts;
* ``matches.round_id`` gets an index (the matchmaker reads a round's matches).

Revision ID: 0003_matchmaking
Revises: 0002_service
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_matchmaking"
down_revision = "0002_service"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "fixtures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=True),
        sa.Column("bots", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("made", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("makeup_of", sa.Integer(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("dispatched_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], ondelete="CASCADE",
                                name=op.f("fk_fixtures_round_id_rounds")),
        sa.ForeignKeyConstraint(["makeup_of"], ["fixtures.id"], ondelete="SET NULL",
                                name=op.f("fk_fixtures_makeup_of_fixtures")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fixtures")),
    )
    op.create_index("ix_fixtures_round_id", "fixtures", ["round_id"])
    op.create_index("ix_fixtures_game_state", "fixtures", ["game", "state"])
    with op.batch_alter_table("ladder_entries") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("last_rest", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("byes", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("seat_counts", sa.JSON(), nullable=True))
    op.create_index("ix_matches_round_id", "matches", ["round_id"])


def downgrade() -> None:
    op.drop_index("ix_matches_round_id", table_name="matches")
    with op.batch_alter_table("ladder_entries") as batch:
        for name in ("seat_counts", "byes", "last_rest", "version"):
            batch.drop_column(name)
    op.drop_index("ix_fixtures_game_state", table_name="fixtures")
    op.drop_index("ix_fixtures_round_id", table_name="fixtures")
    op.drop_table("fixtures")
