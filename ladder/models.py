"""The ladder's tables as SQLAlchemy 2 typed models.

``matches`` and ``match_seats`` are the facts (who placed where); ``ratings`` and
``rating_history`` are derived from them by folding the rating models over the *rated, finished*
matches of a game in ``matches.rating_seq`` order (the order the steps were applied in), so they
can always be rebuilt (``referee ladder recompute``).  ``ladders`` holds each game's Elo
settings so that every fold uses the same ones.

A match is also the service's unit of work (revision 0002): a row is created ``scheduled``,
claimed by a worker (``running``, with an attempt counter and a lease) and ends ``finished`` or
``voided``; a ladder match may be created ``held`` (revision 0008: a ``scheduled`` row no
worker gets until the matchmaker releases it).  The CLI records its matches directly as
``finished``.  ``bots`` is the one bot identity of the CLI ladder and the service alike: a
name, what it stands for (a built-in spec or a URL) and a version that changes only when
asked to.

Constraint names follow a naming convention because Alembic's batch mode on SQLite can only
alter constraints that have names.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, LargeBinary, MetaData,
    String, Text, UniqueConstraint,
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
REASON_LEN = 200
"""A reason or a one-line error, in words (a void's, a pause's, a failed check's)."""
CODE_LEN = 32
"""A short word a program wrote: a rules version, a match's end reason, an alert's kind."""
PROBE_STATUS_LEN = 64
DETAIL_LEN = 2000
"""Characters of a probe's or an alert's detail kept (its column is ``Text``): enough for a
bot's error page to be recognised, not a place to store it."""
MAX_ID = 2**31 - 1
"""The largest id an ``INTEGER`` key holds (32 bits on PostgreSQL): a larger one asked for is
no row, never a query the database refuses."""
MATCH_ID_LEN = 200
SPEC_LEN = 2000
STATE_LEN = 16
TOKEN_HASH_LEN = 64

# match states (the work's state machine)
SCHEDULED, RUNNING, FINISHED, VOIDED = "scheduled", "running", "finished", "voided"
# bot statuses
ACTIVE, UNVERIFIED, PAUSED, RETIRED = "active", "unverified", "paused", "retired"
# how a bot is reached (revision 0009)
PUSH, PULL = "push", "pull"
# bot check states (a check is a job, revision 0007)
QUEUED, DONE, FAILED = "queued", "done", "failed"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Owner(Base):
    """A person who registers bots on the service (CLI ladders have none)."""

    __tablename__ = "owners"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LEN), unique=True)
    email: Mapped[str | None] = mapped_column(String(NAME_LEN), nullable=True)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    suspended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """A bearer token: only the SHA-256 of its secret is stored; revoked tokens are kept."""

    __tablename__ = "api_tokens"
    __table_args__ = (Index("ix_api_tokens_owner_id", "owner_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"))
    sha256: Mapped[str] = mapped_column(String(TOKEN_HASH_LEN))
    name: Mapped[str] = mapped_column(String(NAME_LEN))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Bot(Base):
    """A rated entrant, by the name it plays under, and what that name stands for.

    ``spec`` is the built-in bot spec (``greedy``, ``mcts:playouts=200``) or the base URL it
    played as (credentials removed); ``version`` changes only when its owner (or the CLI's
    ``--new-version``) says a different bot now plays under the name.  Rows written before
    revision 0002 have no spec: the first match recorded under the name sets it.
    """

    __tablename__ = "bots"
    __table_args__ = (Index("ix_bots_owner_id", "owner_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LEN), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    spec: Mapped[str | None] = mapped_column(String(SPEC_LEN), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    owner_id: Mapped[int | None] = mapped_column(
        ForeignKey("owners.id", ondelete="SET NULL"), nullable=True)
    url: Mapped[str | None] = mapped_column(String(SPEC_LEN), nullable=True)
    """An HTTP bot's base URL (None for a built-in bot)."""
    url_normalized: Mapped[str | None] = mapped_column(String(SPEC_LEN), nullable=True)
    """Lower-case scheme and host, default port dropped: one active bot per address."""
    description: Mapped[str] = mapped_column(Text, default="", server_default="")
    games: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    status: Mapped[str] = mapped_column(String(STATE_LEN), default=ACTIVE, server_default=ACTIVE)
    house: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """A built-in bot the service offers as an opponent to everyone."""
    verify_nonce: Mapped[str | None] = mapped_column(String(64), nullable=True)
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    max_concurrency: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    mode: Mapped[str] = mapped_column(String(STATE_LEN), default=PUSH, server_default=PUSH)
    """``push`` (the service calls ``url``) or ``pull`` (no URL: the bot connects out and is
    asked over its connection; its spec is ``pull:<id>``; revision 0009)."""


class LadderEntry(Base):
    """A bot's membership of one game's ladder (the living ladder's matchmaking reads these)."""

    __tablename__ = "ladder_entries"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"),
                                        primary_key=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN), primary_key=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    paused_reason: Mapped[str | None] = mapped_column(String(REASON_LEN), nullable=True)
    paused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the entry stopped playing (a new reason for a paused entry keeps it; revision 0010)."""
    placement_remaining: Mapped[int] = mapped_column(Integer, default=0)
    """Rated games left before the bot is ranked (placement; the matchmaker counts down)."""
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The bot version the placement belongs to: a new version re-enters placement."""
    last_rest: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The round number of its last bye, or of its (re)joining: byes rotate by this."""
    byes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    seat_counts: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    """Games planned in each seat (tables of 3-4 are seated to even these out)."""


class Round(Base):
    """A round of a living ladder: every eligible bot plays one fixture (issue 12 fills it)."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("game", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    number: Mapped[int] = mapped_column(Integer)
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    eligible: Mapped[list[int]] = mapped_column(JSON)


class Fixture(Base):
    """One slot of a round: a fixture (bots in seat order, ``games`` matches sharing
    ``seed``, ``made`` of them created so far) or a bye; or a make-up filling the slot of a
    voided or cancelled one (``makeup_of``), filed under the same round."""

    __tablename__ = "fixtures"
    __table_args__ = (Index("ix_fixtures_round_id", "round_id"),
                      Index("ix_fixtures_game_state", "game", "state"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    kind: Mapped[str] = mapped_column(String(STATE_LEN))
    """``fixture``, ``makeup``, ``bye``, or ``orphan`` (a bot whose fixture was cancelled
    under it, waiting for a make-up partner)."""
    reason: Mapped[str | None] = mapped_column(String(REASON_LEN), nullable=True)
    bots: Mapped[list[int]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(STATE_LEN))
    """``planned``, ``dispatched`` (all its matches created), ``done`` or ``cancelled``."""
    games: Mapped[int] = mapped_column(Integer)
    made: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    makeup_of: Mapped[int | None] = mapped_column(
        ForeignKey("fixtures.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    dispatched_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Challenge(Base):
    """Unrated matches an owner asked for between chosen bots."""

    __tablename__ = "challenges"
    __table_args__ = (Index("ix_challenges_owner_id", "owner_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    games: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HealthCheck(Base):
    """One probe of a bot's ``GET /`` (registration, ``/check``, later the health sweeper)."""

    __tablename__ = "health_checks"
    __table_args__ = (Index("ix_health_checks_bot_id_at", "bot_id", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ok: Mapped[bool] = mapped_column(Boolean)
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    status: Mapped[str] = mapped_column(String(PROBE_STATUS_LEN))
    detail: Mapped[str] = mapped_column(Text, default="")


class BotCheck(Base):
    """A conformance check of a bot, run by the workers (revision 0007): ``queued``, then
    ``running`` under a lease its worker renews, then ``done`` (with its report) or ``failed``
    (it could not run, or its worker stopped: ``error`` says which).  At most one check per
    bot is queued or running."""

    __tablename__ = "bot_checks"
    __table_args__ = (Index("ix_bot_checks_bot_id_id", "bot_id", "id"),
                      Index("ix_bot_checks_state_id", "state", "id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    state: Mapped[str] = mapped_column(String(STATE_LEN))
    prove: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """The bot's ``GET /`` must echo its ownership nonce (the proof was on when it was asked)."""
    bot_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The version checked (its URL), set when the check starts."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    enqueued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(NAME_LEN), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(REASON_LEN), nullable=True)


class Ladder(Base):
    """One ladder per game, with the Elo settings its folds use."""

    __tablename__ = "ladders"

    game: Mapped[str] = mapped_column(String(GAME_LEN), primary_key=True)
    elo_k: Mapped[float] = mapped_column(Float)
    elo_k_provisional: Mapped[float] = mapped_column(Float)
    elo_provisional_games: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Match(Base):
    """A match: its unique id (the exactly-once key), its state as work, and its outcome.

    CLI matches are inserted ``finished`` with their log in ``log``; service matches are
    inserted ``scheduled`` and keep their log gzipped in ``match_logs``.
    """

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_game_id", "game", "id"),
        Index("ix_matches_state_id", "state", "id"),
        Index("ix_matches_challenge_id", "challenge_id"),
        Index("ix_matches_pair_key", "pair_key"),
        Index("ix_matches_fold", "game", "rating_seq", "state", "rated"),  # the fold reads no row
        Index("ix_matches_round_id", "round_id"),
        Index("ix_matches_fixture_id", "fixture_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[str] = mapped_column(String(MATCH_ID_LEN), unique=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    rules_version: Mapped[str] = mapped_column(String(CODE_LEN))
    num_seats: Mapped[int] = mapped_column(Integer)
    end_reason: Mapped[str | None] = mapped_column(String(CODE_LEN), nullable=True)
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """When the row was written (scheduled, for service matches)."""
    log: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    state: Mapped[str] = mapped_column(String(STATE_LEN), default=FINISHED,
                                       server_default=FINISHED)
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    rating_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Position in its game's rating fold (rated finished matches only): the fold's order."""
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """How to play it: time control, strikes, options (service matches)."""
    attempt: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    lease_owner: Mapped[str | None] = mapped_column(String(NAME_LEN), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    enqueued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    challenge_id: Mapped[int | None] = mapped_column(
        ForeignKey("challenges.id", ondelete="SET NULL"), nullable=True)
    round_id: Mapped[int | None] = mapped_column(
        ForeignKey("rounds.id", ondelete="SET NULL"), nullable=True)
    pair_key: Mapped[str | None] = mapped_column(String(MATCH_ID_LEN), nullable=True)
    """Matches sharing a seed: no log is public until all of them are over."""
    fixture_id: Mapped[int | None] = mapped_column(
        ForeignKey("fixtures.id", ondelete="SET NULL"), nullable=True)
    """The living ladder's fixture the match plays (revision 0008); none for a challenge."""
    held: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """Created but not released to the workers: a game of a fixture waiting for its bots to
    have room (revision 0008).  The sweeper never enqueues a held match; the matchmaker
    releases it (``held`` false, ``enqueued_at`` now)."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    void_reason: Mapped[str | None] = mapped_column(String(REASON_LEN), nullable=True)


class MatchLog(Base):
    """A service match's log, gzipped: the public document (bots' own ``log`` lines removed)
    and, apart, each seat's ``log`` lines for its owner."""

    __tablename__ = "match_logs"

    match_pk: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    gz: Mapped[bytes] = mapped_column(LargeBinary)
    sha256: Mapped[str] = mapped_column(String(64))
    """Of the uncompressed JSON: the strong ETag."""
    size: Mapped[int] = mapped_column(Integer)
    seat_logs: Mapped[dict[str, Any]] = mapped_column(JSON)


class MatchSeat(Base):
    """One seat of a match: the bot in it and (once finished) where it placed."""

    __tablename__ = "match_seats"
    __table_args__ = (Index("ix_match_seats_bot_id", "bot_id"),
                      UniqueConstraint("match_pk", "bot_id"))

    match_pk: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    bot_version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    standing: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The rank, or seats + 1 for a forfeit: what the rating models compare."""
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    forfeited: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    strikes: Mapped[int | None] = mapped_column(Integer, nullable=True)
    strike_reasons: Mapped[dict[str, int] | None] = mapped_column(JSON, nullable=True)
    mean_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    p95_ms: Mapped[float | None] = mapped_column(Float, nullable=True)


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


class Alert(Base):
    """Something an owner should hear about one of their bots: an automatic pause or resume
    of its ladder entries (revision 0004; read through ``GET /me/alerts``)."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_owner_id_id", "owner_id", "id"),
                      Index("ix_alerts_bot_id_id", "bot_id", "id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(CODE_LEN))
    """``paused`` or ``resumed``."""
    reason: Mapped[str] = mapped_column(String(REASON_LEN))
    detail: Mapped[str] = mapped_column(Text, default="")
    games: Mapped[list[str]] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LadderPause(Base):
    """A game's ladder paused by an admin: while the row exists, nothing new is scheduled on
    it (``ladder.admin.ladder_paused``); matches already scheduled still play."""

    __tablename__ = "ladder_pauses"

    game: Mapped[str] = mapped_column(String(GAME_LEN), primary_key=True)
    reason: Mapped[str] = mapped_column(String(REASON_LEN))
    paused_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    by_owner_id: Mapped[int | None] = mapped_column(
        ForeignKey("owners.id", ondelete="SET NULL"), nullable=True)


class Incident(Base):
    """A failure of the referee's own, never a bot's: an attempt of a match that raised (an
    engine or runner bug, storage lost mid-finish). The match gets another attempt while it has
    attempts left, and is voided after its last (revision 0006; admins read them through
    ``GET /admin/incidents``, ``/healthz`` counts the last hour's)."""

    __tablename__ = "incidents"
    __table_args__ = (Index("ix_incidents_at", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    match_pk: Mapped[int | None] = mapped_column(
        ForeignKey("matches.id", ondelete="SET NULL"), nullable=True)
    attempt: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(STATE_LEN))
    """``retried`` (another attempt follows) or ``voided`` (it was the last)."""
    error: Mapped[str] = mapped_column(String(REASON_LEN))
    """The exception in one line: its type and message."""
    detail: Mapped[str] = mapped_column(Text, default="")
    """The traceback, for the operator (never shown to bot owners)."""
    worker: Mapped[str] = mapped_column(String(NAME_LEN), default="")
    bot_id: Mapped[int | None] = mapped_column(
        ForeignKey("bots.id", ondelete="SET NULL"), nullable=True)
    """For ``relay_down`` (revision 0013): the pull bot a web process could not relay for (its
    poll or its answer failed on the relay's store). The match it played meanwhile is given
    another attempt instead of striking the bot (:func:`ladder.work.relay_failed_for`)."""


class SoloEntry(Base):
    """A bot's membership of one solo ladder: a game played alone against the engine's own
    opponent at one level (Tokaido Duo's Automa; revision 0011, :mod:`ladder.solo_ladder`)."""

    __tablename__ = "solo_entries"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"),
                                        primary_key=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN), primary_key=True)
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    paused_reason: Mapped[str | None] = mapped_column(String(REASON_LEN), nullable=True)
    """Why the service holds the entry back (revision 0012): the automatic pauses of the
    bot's ladder entries (``health:``, ``forfeits:``, ``away:``) hold its solo entries too."""
    paused_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SoloRound(Base):
    """A round of a solo ladder: fresh seeds that every bot entered at its opening plays
    once each, so the luck of the seeds is the same for all of them (revision 0011)."""

    __tablename__ = "solo_rounds"
    __table_args__ = (UniqueConstraint("game", "level", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(GAME_LEN))
    level: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    seeds: Mapped[list[int]] = mapped_column(JSON)
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SoloGame(Base):
    """A match of a solo round: which bot played which of the round's seeds (revision 0011)."""

    __tablename__ = "solo_games"
    __table_args__ = (Index("ix_solo_games_round_id", "round_id"),
                      Index("ix_solo_games_bot_id", "bot_id"))

    match_pk: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("solo_rounds.id", ondelete="CASCADE"))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    seed_index: Mapped[int] = mapped_column(Integer)
