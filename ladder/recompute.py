"""Recomputing a ladder: the whole rating fold from scratch, streamed through the database.

Ratings and their history are derived data (:mod:`ladder.fold`): :func:`recompute` rebuilds
them from the matches alone, and equals what the incremental steps left, to the last bit.  It
is the only way to change a ladder's Elo settings (so ratings always match their settings),
and what an admin's void or a repaired database calls for.  A ladder may hold millions of
results, so the fold streams: memory stays flat, and a recompute that changes nothing writes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from itertools import groupby
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Engine, and_, bindparam, delete, func, insert, select, update

from ladder.db import DriverStatement, lock_ladder, translate_errors
from ladder.fold import BotRating, RatingFold, ensure_ladder, folded, ladder_config, rating_row
from ladder.leaderboard import games
from ladder.models import Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import EloConfig

CHUNK = 5_000
"""Matches read (and history rows written) per batch when rewriting a ladder."""


def recompute(engine: Engine, game: str | None = None, *,
              elo: EloConfig | None = None) -> int:
    """Rebuild ratings and history as the fold over matches in order; return matches folded.

    ``game`` None rebuilds every game's ladder.  ``elo`` first replaces the ladder's Elo
    settings (the only way to change them, so ratings always match their settings).
    """
    with translate_errors(engine):
        names = [game] if game is not None else games(engine)
        return sum(_recompute_game(engine, g, elo) for g in names)


def _recompute_game(engine: Engine, game: str, elo: EloConfig | None) -> int:
    with engine.begin() as conn:
        lock_ladder(conn, game)
        return refold(conn, game, elo)


def refold(conn: Connection, game: str, elo: EloConfig | None = None) -> int:
    """:func:`recompute` of one game inside the caller's transaction, which must hold the
    ladder lock (so a change and the recompute it calls for commit together)."""
    if elo is not None:
        ensure_ladder(conn, game, datetime.now(timezone.utc))
        conn.execute(update(Ladder).where(Ladder.game == game).values(
            elo_k=elo.k, elo_k_provisional=elo.k_provisional,
            elo_provisional_games=elo.provisional_games))
    config = ladder_config(conn, game)
    if config is None:
        return 0
    fold = RatingFold(game, config)
    matches, seats = _refold_history(conn, fold)
    _drop_stale_history(conn, game, seats)
    _fill_last_played(conn, fold.states)
    conn.execute(delete(Rating).where(Rating.game == game))
    _insert_chunked(conn, Rating, [rating_row(game, b, s) for b, s in fold.states.items()])
    return matches


def _refold_history(conn: Connection, fold: RatingFold) -> tuple[int, int]:
    """Run ``fold`` over its game's matches in order, streaming the history it produces into
    the database; return the numbers of matches and seats folded.

    ``CHUNK`` matches at a time: a chunk's seats are read whole, with their stored history
    rows, then only the rows that differ are written (rewritten in place, or inserted where a
    seat has none), so memory stays flat however many results the ladder holds, no write
    lands in a table while it is being read, and a recompute that changes nothing writes
    nothing.  Rows travel as plain tuples (:class:`~ladder.db.DriverStatement`).
    """
    read = DriverStatement(conn, _seats_with_history(), ("game", "after"))
    rewrite = DriverStatement(conn, _UPDATE_HISTORY, _UPDATE_HISTORY_FIELDS)
    add = DriverStatement(conn, _INSERT_HISTORY, _INSERT_HISTORY_FIELDS)
    matches = seats = 0
    after = 0
    while chunk := read.fetchall((fold.game, after)):
        changed: list[tuple[Any, ...]] = []
        missing: list[tuple[Any, ...]] = []
        for match_pk, rows in groupby(chunk, key=itemgetter(3)):
            seat_rows = list(rows)
            for row, new in zip(seat_rows, fold.step(match_pk, None, seat_rows)):
                if row[4] is None:
                    missing.append((match_pk, fold.game, row[0], *new))
                elif new != row[5:9]:
                    changed.append((*new, row[4]))
            matches += 1
            seats += len(seat_rows)
        rewrite.executemany(changed)
        add.executemany(missing)
        after = chunk[-1][9]
    return matches, seats


def _seats_with_history() -> Any:
    """The seats of the next ``CHUNK`` folded matches of a game after ``rating_seq`` ``after``,
    in fold order: ``(bot_id, standing, forfeited, match_pk, history id, elo_before,
    elo_after, mu, sigma, rating_seq)`` (a :meth:`RatingFold.step` seat first), the history
    columns None where the seat has no history row.

    The chunk's matches come from the fold's index alone (``ix_matches_fold``), never from
    their rows: a CLI match's row holds its whole log, and SQLite reaches a column stored
    after it by walking the log's overflow pages.
    """
    h = RatingHistory
    chunk = (select(Match.id, Match.rating_seq)
             .where(*folded(bindparam("game")), Match.rating_seq > bindparam("after"))
             .order_by(Match.rating_seq).limit(CHUNK).subquery("chunk"))
    return (
        select(MatchSeat.bot_id, MatchSeat.standing, MatchSeat.forfeited, MatchSeat.match_pk,
               h.id, h.elo_before, h.elo_after, h.mu, h.sigma, chunk.c.rating_seq)
        .select_from(chunk)
        .join(MatchSeat, MatchSeat.match_pk == chunk.c.id)
        .outerjoin(h, and_(h.match_pk == MatchSeat.match_pk, h.bot_id == MatchSeat.bot_id))
        .order_by(chunk.c.rating_seq, MatchSeat.seat)
    )


_HISTORY_VALUES = ("elo_before", "elo_after", "mu", "sigma")
_UPDATE_HISTORY_FIELDS = (*(f"new_{name}" for name in _HISTORY_VALUES), "history_id")
_UPDATE_HISTORY = update(RatingHistory).where(RatingHistory.id == bindparam("history_id")).values(
    {name: bindparam(f"new_{name}") for name in _HISTORY_VALUES})
_INSERT_HISTORY_FIELDS = ("match_pk", "game", "bot_id", *_HISTORY_VALUES)
_INSERT_HISTORY = insert(RatingHistory).values(
    {name: bindparam(name) for name in _INSERT_HISTORY_FIELDS})


def _drop_stale_history(conn: Connection, game: str, seats: int) -> None:
    """Delete history rows of ``game`` that belong to no seat (if the fold did not write them
    all, there are more than ``seats``)."""
    h = RatingHistory
    stored = conn.execute(select(func.count()).select_from(h).where(h.game == game)).scalar_one()
    if stored > seats:
        seat = select(MatchSeat.match_pk).where(MatchSeat.match_pk == h.match_pk,
                                                MatchSeat.bot_id == h.bot_id)
        conn.execute(delete(h).where(h.game == game, ~seat.exists()))


def _fill_last_played(conn: Connection, states: Mapping[int, BotRating]) -> None:
    """Set each bot's ``last_played`` from its last match (the fold ran without the times:
    reading one per seat was a fifth of a recompute)."""
    last = sorted({s.last_match_pk for s in states.values()})
    played: dict[int, datetime] = {}
    for start in range(0, len(last), CHUNK):
        rows = conn.execute(select(Match.id, Match.finished_at)
                            .where(Match.id.in_(last[start:start + CHUNK])))
        played.update((pk, at) for pk, at in rows if at is not None)
    for state in states.values():
        state.last_played = played[state.last_match_pk]


def _insert_chunked(conn: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        conn.execute(insert(model), rows[start:start + CHUNK])
