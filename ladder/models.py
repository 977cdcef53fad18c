"""The ladder's tables as SQLAlchemy 2 typed models.

``matches`` and ``match_seats`` are the facts (a match log and who placed where); ``ratings``
and ``rating_history`` are derived from them by folding the rating models over the matches of a
game in ``matches.id`` order, so they can always be rebuilt (``referee ladder recompute``).
``ladders`` holds each game's Elo settings so that every fold uses the same ones.

Constraint names follow a naming convention because Alembic's batch mode on SQLite can only
alter constraints that have names.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

GAME_LEN = 64
NAME_LEN = 200
MATCH_ID_LEN = 200


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Bot(Base):
    """A rated entrant, by the name it plays under (``greedy``, ``v2=greedy``, a URL)."""

    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LEN), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Ladder(Base):
    """One ladder per game, with the Elo settings its folds use."""

    __tablename__ = "ladders"

    game: Mapped[str] = mapped_column(String(GAME_LEN), primary_key=True)
    elo_k: Mapped[float] = mapped_column(Float)
    elo_k_provisional: Mapped[float] = mapped_column(Float)
    elo_provisional_games: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Match(Base):
    """A finished match: its unique id (the exactly-once key) and its whole log."""

    __tablename__ = "matches"
    __table_args__ = (Index("ix_matches_game_id", "game", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    """Insertion order, which is the order ratings are folded in."""
    match_id: Mapped[str] = mapped_column(String(MATCH_ID_LEN), unique=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    rules_version: Mapped[str] = mapped_column(String(32))
    num_seats: Mapped[int] = mapped_column(Integer)
    end_reason: Mapped[str] = mapped_column(String(32))
    rounds: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    log: Mapped[dict[str, Any]] = mapped_column(JSON)


class MatchSeat(Base):
    """One seat of a match: the bot in it and where it placed."""

    __tablename__ = "match_seats"
    __table_args__ = (Index("ix_match_seats_bot_id", "bot_id"),)

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    rank: Mapped[int] = mapped_column(Integer)
    standing: Mapped[int] = mapped_column(Integer)
    """The rank, or seats + 1 for a forfeit: what the rating models compare."""
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    forfeited: Mapped[bool] = mapped_column(Boolean)
    strikes: Mapped[int] = mapped_column(Integer)


class Rating(Base):
    """A bot's current ratings and counts in one game's ladder (the fold's running value)."""

    __tablename__ = "ratings"

    game: Mapped[str] = mapped_column(
        ForeignKey("ladders.game", ondelete="CASCADE"), primary_key=True
    )
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    elo: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    last_match_pk: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    last_played: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingHistory(Base):
    """Each bot's ratings after each match it played: a chart's data, and an audit trail."""

    __tablename__ = "rating_history"
    __table_args__ = (
        UniqueConstraint("match_pk", "bot_id"),
        Index("ix_rating_history_game_bot_id", "game", "bot_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_pk: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    elo_before: Mapped[float] = mapped_column(Float)
    elo_after: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
