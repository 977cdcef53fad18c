"""The service: owners and tokens, bots with identity, matches as work, logs, challenges.

Extends the ladder's own tables rather than adding a second bot or match table, so that the CLI
ladder and the service share one bot identity and one rating fold:

* ``bots`` gains what a name stands for (``spec``, ``version``) and the service's fields;
* ``matches`` gains the work state machine (``state``, ``attempt``, lease), its seating and
  settings, and ``rating_seq``, the fold's order (existing matches keep their id order);
* ``match_seats`` results become nullable (a scheduled match has seats but no places yet).

Revision ID: 0002_service
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import gzip
import json

import sqlalchemy as sa
from alembic import op

revision = "0002_service"
down_revision = "0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "owners",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=True),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("suspended_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_owners")),
        sa.UniqueConstraint("name", name=op.f("uq_owners_name")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("last_used_at", TS, nullable=True),
        sa.Column("revoked_at", TS, nullable=True),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"], ondelete="CASCADE",
                                name=op.f("fk_api_tokens_owner_id_owners")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
    )
    op.create_index("ix_api_tokens_owner_id", "api_tokens", ["owner_id"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("opened_at", TS, nullable=False),
        sa.Column("closed_at", TS, nullable=True),
        sa.Column("eligible", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("game", "number", name=op.f("uq_rounds_game_number")),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("bot_ids", sa.JSON(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"], ondelete="CASCADE",
                                name=op.f("fk_challenges_owner_id_owners")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
    )
    op.create_index("ix_challenges_owner_id", "challenges", ["owner_id"])

    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("spec", sa.String(length=2000), nullable=True))
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("url", sa.String(length=2000), nullable=True))
        batch.add_column(sa.Column("url_normalized", sa.String(length=2000), nullable=True))
        batch.add_column(sa.Column("description", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("games", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("status", sa.String(length=16), nullable=False,
                                   server_default="active"))
        batch.add_column(sa.Column("house", sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("verify_nonce", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("verified_at", TS, nullable=True))
        batch.add_column(sa.Column("max_concurrency", sa.Integer(), nullable=False,
                                   server_default="1"))
        batch.add_column(sa.Column("updated_at", TS, nullable=True))
        batch.create_foreign_key(op.f("fk_bots_owner_id_owners"), "owners", ["owner_id"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index("ix_bots_owner_id", ["owner_id"])

    op.create_table(
        "ladder_entries",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("paused_reason", sa.String(length=200), nullable=True),
        sa.Column("placement_remaining", sa.Integer(), nullable=False),
        sa.Column("joined_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_ladder_entries_bot_id_bots")),
        sa.PrimaryKeyConstraint("bot_id", "game", name=op.f("pk_ladder_entries")),
    )
    op.create_table(
        "health_checks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], ondelete="CASCADE",
                                name=op.f("fk_health_checks_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_health_checks")),
    )
    op.create_index("ix_health_checks_bot_id_at", "health_checks", ["bot_id", "at"])

    with op.batch_alter_table("matches") as batch:
        batch.alter_column("end_reason", existing_type=sa.String(length=32), nullable=True)
        batch.alter_column("rounds", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("log", existing_type=sa.JSON(), nullable=True)
        batch.add_column(sa.Column("state", sa.String(length=16), nullable=False,
                                   server_default="finished"))
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("rating_seq", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("seed", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("settings", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("attempt", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("lease_owner", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("lease_until", TS, nullable=True))
        batch.add_column(sa.Column("enqueued_at", TS, nullable=True))
        batch.add_column(sa.Column("started_at", TS, nullable=True))
        batch.add_column(sa.Column("finished_at", TS, nullable=True))
        batch.add_column(sa.Column("challenge_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("round_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("pair_key", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("result", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("void_reason", sa.String(length=200), nullable=True))
        batch.create_foreign_key(op.f("fk_matches_challenge_id_challenges"), "challenges",
                                 ["challenge_id"], ["id"], ondelete="SET NULL")
        batch.create_foreign_key(op.f("fk_matches_round_id_rounds"), "rounds",
                                 ["round_id"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_matches_state_id", ["state", "id"])
        batch.create_index("ix_matches_challenge_id", ["challenge_id"])
        batch.create_index("ix_matches_pair_key", ["pair_key"])
        batch.create_index("ix_matches_game_rating_seq", ["game", "rating_seq"])
    # The matches recorded so far were folded in id order: keep that order.
    op.execute("UPDATE matches SET rating_seq = id, finished_at = recorded_at")

    with op.batch_alter_table("match_seats") as batch:
        for name, kind in (("rank", sa.Integer()), ("standing", sa.Integer()),
                           ("forfeited", sa.Boolean()), ("strikes", sa.Integer())):
            batch.alter_column(name, existing_type=kind, nullable=True)
        batch.add_column(sa.Column("bot_version", sa.Integer(), nullable=False,
                                   server_default="1"))
        batch.add_column(sa.Column("strike_reasons", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("mean_ms", sa.Float(), nullable=True))
        batch.add_column(sa.Column("p95_ms", sa.Float(), nullable=True))
        batch.create_unique_constraint(op.f("uq_match_seats_match_pk_bot_id"), ["match_pk", "bot_id"])

    op.create_table(
        "match_logs",
        sa.Column("match_pk", sa.Integer(), nullable=False),
        sa.Column("gz", sa.LargeBinary(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("seat_logs", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["match_pk"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_match_logs_match_pk_matches")),
        sa.PrimaryKeyConstraint("match_pk", name=op.f("pk_match_logs")),
    )


def downgrade() -> None:
    """Back to 0001: rated finished matches are kept (service logs moved back inline);
    scheduled, running, voided and unrated matches have no place in 0001 and are deleted."""
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT l.match_pk, l.gz FROM match_logs l JOIN matches m ON m.id = l.match_pk "
        "WHERE m.state = 'finished' AND m.rated")).all()
    for match_pk, gz in rows:
        log = json.loads(gzip.decompress(gz))
        value = "CAST(:log AS JSON)" if bind.dialect.name == "postgresql" else ":log"
        bind.execute(sa.text(f"UPDATE matches SET log = {value} WHERE id = :id"),
                     {"log": json.dumps(log), "id": match_pk})
    op.drop_table("match_logs")
    doomed = "SELECT id FROM matches WHERE NOT (state = 'finished' AND rated) OR log IS NULL"
    for table in ("match_seats", "rating_history"):
        op.execute(f"DELETE FROM {table} WHERE match_pk IN ({doomed})")
    op.execute(f"DELETE FROM ratings WHERE last_match_pk IN ({doomed})")
    op.execute(f"DELETE FROM matches WHERE id IN ({doomed})")

    with op.batch_alter_table("match_seats") as batch:
        batch.drop_constraint(op.f("uq_match_seats_match_pk_bot_id"), type_="unique")
        for name in ("p95_ms", "mean_ms", "strike_reasons", "bot_version"):
            batch.drop_column(name)
        for name, kind in (("rank", sa.Integer()), ("standing", sa.Integer()),
                           ("forfeited", sa.Boolean()), ("strikes", sa.Integer())):
            batch.alter_column(name, existing_type=kind, nullable=False)

    with op.batch_alter_table("matches") as batch:
        for index in ("ix_matches_game_rating_seq", "ix_matches_pair_key",
                      "ix_matches_challenge_id", "ix_matches_state_id"):
            batch.drop_index(index)
        batch.drop_constraint(op.f("fk_matches_round_id_rounds"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_matches_challenge_id_challenges"), type_="foreignkey")
        for name in ("void_reason", "result", "pair_key", "round_id", "challenge_id",
                     "finished_at", "started_at", "enqueued_at", "lease_until", "lease_owner",
                     "attempt", "settings", "seed", "rating_seq", "rated", "state"):
            batch.drop_column(name)
        batch.alter_column("log", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("rounds", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("end_reason", existing_type=sa.String(length=32), nullable=False)

    op.drop_index("ix_health_checks_bot_id_at", table_name="health_checks")
    op.drop_table("health_checks")
    op.drop_table("ladder_entries")
    with op.batch_alter_table("bots") as batch:
        batch.drop_index("ix_bots_owner_id")
        batch.drop_constraint(op.f("fk_bots_owner_id_owners"), type_="foreignkey")
        for name in ("updated_at", "max_concurrency", "verified_at", "verify_nonce", "house",
                     "status", "games", "description", "url_normalized", "url", "owner_id",
                     "version", "spec"):
            batch.drop_column(name)
    op.drop_index("ix_challenges_owner_id", table_name="challenges")
    op.drop_table("challenges")
    op.drop_table("rounds")
    op.drop_index("ix_api_tokens_owner_id", table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_table("owners")
