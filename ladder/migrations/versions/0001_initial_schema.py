"""Initial schema: bots, ladders, matches with their logs, seats, ratings, rating history.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
    )
    op.create_table(
        "ladders",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("elo_k", sa.Float(), nullable=False),
        sa.Column("elo_k_provisional", sa.Float(), nullable=False),
        sa.Column("elo_provisional_games", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game", name=op.f("pk_ladders")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("rules_version", sa.String(length=32), nullable=False),
        sa.Column("num_seats", sa.Integer(), nullable=False),
        sa.Column("end_reason", sa.String(length=32), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("log", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("match_id", name=op.f("uq_matches_match_id")),
    )
    op.create_index("ix_matches_game_id", "matches", ["game", "id"])
    op.create_table(
        "match_seats",
        sa.Column("match_pk", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("standing", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("strikes", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_match_seats_bot_id_bots")),
        sa.ForeignKeyConstraint(["match_pk"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_match_seats_match_pk_matches")),
        sa.PrimaryKeyConstraint("match_pk", "seat", name=op.f("pk_match_seats")),
    )
    op.create_index("ix_match_seats_bot_id", "match_seats", ["bot_id"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_pk", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("elo_before", sa.Float(), nullable=False),
        sa.Column("elo_after", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"],
                                name=op.f("fk_rating_history_bot_id_bots")),
        sa.ForeignKeyConstraint(["match_pk"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_rating_history_match_pk_matches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
        sa.UniqueConstraint("match_pk", "bot_id",
                            name=op.f("uq_rating_history_match_pk_bot_id")),
    )
    op.create_index("ix_rating_history_game_bot_id", "rating_history", ["game", "bot_id"])
    op.create_table(
        "ratings",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("last_match_pk", sa.Integer(), nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_ratings_bot_id_bots")),
        sa.ForeignKeyConstraint(["game"], ["ladders.game"], ondelete="CASCADE",
                                name=op.f("fk_ratings_game_ladders")),
        sa.ForeignKeyConstraint(["last_match_pk"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_ratings_last_match_pk_matches")),
        sa.PrimaryKeyConstraint("game", "bot_id", name=op.f("pk_ratings")),
    )


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_index("ix_rating_history_game_bot_id", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_match_seats_bot_id", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index("ix_matches_game_id", table_name="matches")
    op.drop_table("matches")
    op.drop_table("ladders")
    op.drop_table("bots")
