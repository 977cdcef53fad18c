"""Solo ladders: a game played alone against the engine's own opponent, one ladder per level.

``solo_entries`` (a bot entered at a game and level), ``solo_rounds`` (fresh seeds every
entered bot plays once each) and ``solo_games`` (which match played which bot on which seed).
New tables only: nothing existing changes.

Revision ID: 0011_solo_ladders
Revises: 0010_entry_paused_at
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_solo_ladders"
down_revision = "0010_entry_paused_at"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "solo_entries",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_solo_entries_bot_id_bots")),
        sa.PrimaryKeyConstraint("bot_id", "game", "level", name=op.f("pk_solo_entries")))
    op.create_table(
        "solo_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seeds", sa.JSON(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solo_rounds")),
        sa.UniqueConstraint("game", "level", "number",
                            name=op.f("uq_solo_rounds_game_level_number")))
    op.create_table(
        "solo_games",
        sa.Column("match_pk", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("seed_index", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["match_pk"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_solo_games_match_pk_matches")),
        sa.ForeignKeyConstraint(["round_id"], ["solo_rounds.id"], ondelete="CASCADE",
                                name=op.f("fk_solo_games_round_id_solo_rounds")),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_solo_games_bot_id_bots")),
        sa.PrimaryKeyConstraint("match_pk", name=op.f("pk_solo_games")))
    op.create_index("ix_solo_games_round_id", "solo_games", ["round_id"])
    op.create_index("ix_solo_games_bot_id", "solo_games", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_solo_games_bot_id", table_name="solo_games")
    op.drop_index("ix_solo_games_round_id", table_name="solo_games")
    op.drop_table("solo_games")
    op.drop_table("solo_rounds")
    op.drop_table("solo_entries")
