"""A bot says how it is reached: ``bots.mode``.

* ``push``: the service calls the bot at its URL (every bot before this revision).
* ``pull``: the bot has no address; it connects out to the service, which hands it its
  requests over that connection (``referee.relay``). Such a bot has no URL; its ``spec`` is
  ``pull:<id>``, what a match's seat names.

The downgrade retires every pull bot first (a bot without a URL cannot be played without
this revision) and drops the column.

Revision ID: 0009_pull_mode
Revises: 0008_fixture_id
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_pull_mode"
down_revision = "0008_fixture_id"
branch_labels = None
depends_on = None

bots = sa.table("bots", sa.column("mode", sa.String()), sa.column("status", sa.String()))


def upgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("mode", sa.String(16), nullable=False,
                                   server_default="push"))


def downgrade() -> None:
    op.get_bind().execute(bots.update().where(bots.c.mode == "pull").values(status="retired"))
    with op.batch_alter_table("bots") as batch:
        batch.drop_column("mode")
