"""The rating fold's index covers the matches it folds.

The fold walks a game's matches in ``rating_seq`` order and keeps the rated, finished ones.
``state`` and ``rated`` were added (revision 0002) after ``log``, which holds a CLI match's whole
log: in SQLite, reading a column stored after a log that spills over onto overflow pages walks
the log's pages, so a recompute read every log of the ladder. Indexing ``(game, rating_seq,
state, rated)`` in place of ``(game, rating_seq)`` answers the fold's walk from the index alone.

Revision ID: 0005_fold_index
Revises: 0004_health
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0005_fold_index"
down_revision = "0004_health"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_matches_fold", "matches", ["game", "rating_seq", "state", "rated"])
    op.drop_index("ix_matches_game_rating_seq", table_name="matches")


def downgrade() -> None:
    op.create_index("ix_matches_game_rating_seq", "matches", ["game", "rating_seq"])
    op.drop_index("ix_matches_fold", table_name="matches")
