"""Reading a ladder: its games and settings, the leaderboard, a bot's rating history.

Every read runs in :func:`ladder.db.reader`, so on SQLite it never queues behind a writer.  The
leaderboard's number, rank and 95% interval are the public rating (:mod:`ladder.fit`): one
Plackett-Luce / Bradley-Terry fit to every rated result of the ladder, a pure function of the
stored results, refitted when they change and kept per process by the ladder's latest
``rating_seq``.  Elo (the fold's running value, moved by each match as it finishes) stays as
the "live" column, with openskill's.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, Row, bindparam, func, select

from ladder.accounts import utc
from ladder.db import DriverStatement, reader, translate_errors
from ladder.fit import BotFit, Fit, FitConfig, fit_indexed, rank_key, tables_from_seats
from ladder.fold import folded, ladder_config
from ladder.models import Bot, Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import EloConfig, SkillRating

PUBLIC = FitConfig()
"""The public rating's settings (the same for every ladder, so every fit of one is comparable)."""

_RATED_SEATS = (
    select(MatchSeat.match_pk, MatchSeat.bot_id, MatchSeat.standing, MatchSeat.forfeited)
    .join(Match, Match.id == MatchSeat.match_pk).where(*folded(bindparam("game")))
    .order_by(MatchSeat.match_pk, MatchSeat.seat))
"""Every seat of a ladder's rated results, a match's seats together (read as plain tuples:
a million results are two million rows)."""

_FITS: dict[tuple[str, str], tuple[tuple[Any, ...], Fit[int]]] = {}
_FITS_LOCK = threading.Lock()


def games(engine: Engine) -> list[str]:
    """The games that have a ladder in this database."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Ladder.game).order_by(Ladder.game)).scalars())


def ladder_settings(engine: Engine, game: str) -> EloConfig | None:
    """The Elo settings of ``game``'s ladder (None if nothing was recorded for it)."""
    with translate_errors(engine), reader(engine) as conn:
        return ladder_config(conn, game)


def leaderboard(engine: Engine, game: str) -> list[dict[str, Any]]:
    """The ladder of ``game``, best public rating first (empty if nothing was recorded for it).

    Each row: rank, bot, rating (the public rating), interval (its 95% half-width), low/high,
    provisional (the interval is still wider than the fit's ``provisional_margin``), elo and
    elo_provisional (the live Elo, and whether it is in its first, fast-moving games),
    openskill (mu - 3 sigma), mu, sigma, games, wins, draws, losses, last_played (ISO 8601,
    UTC).  A bot that has only forfeited is listed after every bot that played
    (:meth:`ladder.fit.Fit.ranked`).
    """
    with translate_errors(engine), reader(engine) as conn:
        config = ladder_config(conn, game) or EloConfig()
        rated = {r.bot_id: r for r in conn.execute(
            select(Bot.name, Rating.__table__).join(Rating, Rating.bot_id == Bot.id)
            .where(Rating.game == game))}
        public = public_fit(conn, game)
    unfitted = BotFit(PUBLIC.center, 0.0, True, 0, 0)  # a rating row without a rated seat
    order = sorted(rated, key=lambda b: (*rank_key(public.bots.get(b, unfitted)), rated[b].name))
    return [_leaderboard_row(i, rated[b], public.bots.get(b), config)
            for i, b in enumerate(order, start=1)]


def public_fit(conn: Connection, game: str) -> Fit[int]:
    """The public rating of ``game``'s ladder, keyed by bot id: fitted to every rated result,
    or this process's last fit while the ladder's latest ``rating_seq`` and its count (and id
    sum) of rated results are unchanged.

    Always fitted from the prior's mean, not warm-started: a warm start lands within 1e-11
    Elo but not on the same bits, and the shown rating must be a function of the stored
    results alone, so that a recompute (or another process) shows exactly the same.
    """
    key = (f"{id(conn.engine)} {conn.engine.url}", game)
    version = tuple(conn.execute(select(func.max(Match.rating_seq), func.count(),
                                        func.sum(Match.id)).where(*folded(game))).one())
    with _FITS_LOCK:
        cached = _FITS.get(key)
    if cached is not None and cached[0] == version:
        return cached[1]
    rows = DriverStatement(conn, _RATED_SEATS, ("game",)).fetchall((game,))
    columns = list(zip(*rows)) or [(), (), (), ()]
    tables, keys = tables_from_seats(
        np.array(columns[0], dtype=np.int64), np.array(columns[1], dtype=np.int64),
        np.array(columns[2], dtype=np.int64), np.array([bool(f) for f in columns[3]], dtype=bool))
    fitted = fit_indexed(tables, [int(k) for k in keys], PUBLIC)
    with _FITS_LOCK:
        _FITS[key] = (version, fitted)
    return fitted


def history(engine: Engine, game: str, bot: str) -> list[dict[str, Any]]:
    """``bot``'s ratings after each of its matches in ``game``, oldest first (chart data)."""
    query = (
        select(Match.match_id, Match.finished_at, RatingHistory.elo_before,
               RatingHistory.elo_after, RatingHistory.mu, RatingHistory.sigma)
        .join(RatingHistory, RatingHistory.match_pk == Match.id)
        .join(Bot, Bot.id == RatingHistory.bot_id)
        .where(RatingHistory.game == game, Bot.name == bot)
        .order_by(Match.rating_seq)
    )
    with translate_errors(engine), reader(engine) as conn:
        return [
            {"match_id": r.match_id, "played": utc(r.finished_at).isoformat(timespec="seconds"),
             "elo_before": r.elo_before, "elo": r.elo_after, "mu": r.mu, "sigma": r.sigma,
             "openskill": SkillRating(r.mu, r.sigma).conservative}
            for r in conn.execute(query)
        ]


def _leaderboard_row(rank: int, r: Row[Any], public: BotFit | None,
                     config: EloConfig) -> dict[str, Any]:
    skill = SkillRating(r.mu, r.sigma)
    return {
        "rank": rank, "bot": r.name,
        "rating": public.rating if public else PUBLIC.center,
        "interval": public.margin if public else None,
        "low": public.low if public else None, "high": public.high if public else None,
        "provisional": public.provisional if public else True,
        "elo": r.elo, "elo_provisional": r.games < config.provisional_games,
        "openskill": skill.conservative, "mu": r.mu, "sigma": r.sigma,
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "last_played": utc(r.last_played).isoformat(timespec="seconds"),
    }
