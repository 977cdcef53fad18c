"""Ladder entries: joining, leaving, pausing and resuming (each under the matchmaker's lock,
so a tick never sees half of one), and the placement games an entry has left."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, func, insert, select, update

from ladder import ConflictError, InvalidError, NotFoundError
from ladder.accounts import now_utc
from ladder.db import lock_ladder, reader, translate_errors
from ladder.matchmaking.state import LOCK, MatchmakerConfig
from ladder.models import ACTIVE, REASON_LEN, UNVERIFIED, Bot, LadderEntry, Rating, Round

JOINABLE = (ACTIVE, UNVERIFIED)
"""Bot states that may join a ladder (an unverified bot's entry waits: only active bots are
eligible)."""


def join(engine: Engine, bot_id: int, game: str, config: MatchmakerConfig = MatchmakerConfig(),
         now: datetime | None = None) -> None:
    """Enter (or re-enter) ``bot_id`` in ``game``'s ladder; a bot without rated games there
    starts placement.  Joining counts as a rest, so a newcomer does not take the next bye."""
    now = now or now_utc()
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, LOCK)
        bot = conn.execute(select(Bot.id, Bot.version, Bot.status, Bot.games)
                           .where(Bot.id == bot_id)).one_or_none()
        if bot is None:
            raise NotFoundError(f"no bot {bot_id}")
        if bot.status not in JOINABLE:
            raise ConflictError(f"bot {bot_id} is {bot.status}, not active")
        if bot.games is not None and game not in bot.games:
            raise InvalidError(f"bot {bot_id} does not play {game}")
        latest = latest_round(conn, game)
        entry = conn.execute(select(LadderEntry.active).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game)).one_or_none()
        if entry is None:
            rated = conn.execute(select(Rating.games).where(
                Rating.bot_id == bot_id, Rating.game == game)).scalar_one_or_none() or 0
            conn.execute(insert(LadderEntry).values(
                bot_id=bot_id, game=game, active=True, paused_reason=None,
                placement_remaining=0 if rated else config.placement_games, joined_at=now,
                version=bot.version, last_rest=latest, byes=0, seat_counts=None))
        elif not entry.active:
            conn.execute(update(LadderEntry).where(
                LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(
                active=True, last_rest=latest))


def leave(engine: Engine, bot_id: int, game: str) -> None:
    """Take ``bot_id`` off ``game``'s ladder (its unstarted fixtures are cancelled at the
    next tick; its history stays)."""
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, LOCK)
        _must(conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(active=False)
        ).rowcount, bot_id, game)


def pause(engine: Engine, bot_id: int, game: str, reason: str) -> None:
    with translate_errors(engine), engine.begin() as conn:
        _must(pause_entries(conn, bot_id, [game], reason), bot_id, game)


def resume(engine: Engine, bot_id: int, game: str) -> None:
    with translate_errors(engine), engine.begin() as conn:
        _must(resume_entries(conn, bot_id, [game]), bot_id, game)


def pause_entries(conn: Connection, bot_id: int, games: Sequence[str], reason: str, *,
                  only_running: bool = False) -> int:
    """Pause the bot's entries of ``games`` (``only_running``: those not paused already, so
    an earlier reason stays), inside the caller's transaction and under the matchmaker's
    lock (the tick never sees half of it); how many were paused.  Every pause goes through
    here (the owner's, the health rules')."""
    lock_ladder(conn, LOCK)
    cond = [LadderEntry.bot_id == bot_id, LadderEntry.game.in_(list(games))]
    if only_running:
        cond.append(LadderEntry.paused_reason.is_(None))
    return int(conn.execute(update(LadderEntry).where(*cond).values(
        paused_reason=reason[:REASON_LEN],
        paused_at=func.coalesce(LadderEntry.paused_at, now_utc()))).rowcount)


def resume_entries(conn: Connection, bot_id: int, games: Sequence[str]) -> int:
    """Lift the pause of the bot's entries of ``games`` in the caller's transaction; how many.
    Resuming counts as a rest (``last_rest`` becomes the game's latest round), so a bot back
    from a pause does not take the next bye.  Every resume goes through here (the owner's,
    the health rules')."""
    lock_ladder(conn, LOCK)
    done = 0
    for game in games:
        done += conn.execute(update(LadderEntry).where(
            LadderEntry.bot_id == bot_id, LadderEntry.game == game).values(
            paused_reason=None, paused_at=None, last_rest=latest_round(conn, game))).rowcount
    return done


def _must(rowcount: int, bot_id: int, game: str) -> None:
    if not rowcount:
        raise NotFoundError(f"bot {bot_id} is not on the {game} ladder")


def latest_round(conn: Connection, game: str) -> int:
    """The number of ``game``'s latest round (0 before the first)."""
    number = conn.execute(select(func.max(Round.number)).where(Round.game == game)
                          ).scalar_one_or_none()
    return int(number or 0)


def placement_left(engine: Engine, game: str,
                   config: MatchmakerConfig = MatchmakerConfig()) -> dict[int, int]:
    """Rated games each bot on ``game``'s living ladder still has to play before it is ranked
    (0 once placed; a bot with no entry is absent): a leaderboard shows the bots with games
    left as provisional.  A new version not yet seen by a tick counts as re-entering
    placement already."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(LadderEntry.bot_id, LadderEntry.placement_remaining,
                                   LadderEntry.version.label("placed"), Bot.version)
                            .join(Bot, Bot.id == LadderEntry.bot_id)
                            .where(LadderEntry.game == game)).all()
    return {r.bot_id: placement_due(r.placement_remaining, r.placed, r.version, config)
            for r in rows}


def placement_due(remaining: int, placed: int | None, version: int,
                  config: MatchmakerConfig = MatchmakerConfig()) -> int:
    """An entry's placement games left: a new version of a placed bot (``placed``, the
    version the entry was placed with, differs) plays ``new_version_games`` again."""
    if placed is not None and placed != version:
        return max(remaining or 0, config.new_version_games)
    return remaining or 0
