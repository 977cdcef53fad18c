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
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, Row, and_, bindparam, func, select

from ladder.accounts import utc
from ladder.db import DriverStatement, reader, translate_errors
from ladder.fit import BotFit, Fit, FitConfig, fit_indexed, rank_key, tables_from_seats
from ladder.fold import folded, ladder_config
from ladder.models import Bot, Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import EloConfig, SkillRating, outcomes

PUBLIC = FitConfig()
"""The public rating's settings (the same for every ladder, so every fit of one is comparable)."""

_RATED_SEATS = (
    select(MatchSeat.match_pk, MatchSeat.bot_id, MatchSeat.standing, MatchSeat.forfeited,
           MatchSeat.bot_version)
    .join(Match, Match.id == MatchSeat.match_pk).where(*folded(bindparam("game")))
    .order_by(MatchSeat.match_pk, MatchSeat.seat))
"""Every seat of a ladder's rated results, a match's seats together (read as plain tuples:
a million results are two million rows)."""

VERSION_SPAN = 1 << 20
"""A bot version's key in a fit by version: ``bot id * VERSION_SPAN + version``."""

_FITS: dict[tuple[str, str, bool], tuple[tuple[Any, ...], Fit[int]]] = {}
_FITS_LOCK = threading.Lock()


def games(engine: Engine) -> list[str]:
    """The games that have a ladder in this database."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Ladder.game).order_by(Ladder.game)).scalars())


def ladder_settings(engine: Engine, game: str) -> EloConfig | None:
    """The Elo settings of ``game``'s ladder (None if nothing was recorded for it)."""
    with translate_errors(engine), reader(engine) as conn:
        return ladder_config(conn, game)


def leaderboard(engine: Engine, game: str, by_version: bool = False) -> list[dict[str, Any]]:
    """The ladder of ``game``, best public rating first (empty if nothing was recorded for it).

    Each row: rank, bot, rating (the public rating), interval (its 95% half-width), low/high,
    provisional (the interval is still wider than the fit's ``provisional_margin``), elo and
    elo_provisional (the live Elo, and whether it is in its first, fast-moving games),
    openskill (mu - 3 sigma), mu, sigma, games, wins, draws, losses, last_played (ISO 8601,
    UTC).  A bot that has only forfeited is listed after every bot that played
    (:meth:`ladder.fit.Fit.ranked`).

    ``by_version``: a bot that played under more than one version (``--new-version``) has a
    row per version, with ``version`` added to every row: each version's own games and
    results, its public rating fitted as a bot of its own, and its Elo and openskill as they
    were after its last match (those carry on from one version to the next, so the newest
    version's are the bot's current ones).
    """
    with translate_errors(engine), reader(engine) as conn:
        config = ladder_config(conn, game) or EloConfig()
        rated = {r.bot_id: r for r in conn.execute(
            select(Bot.name, Bot.version, Rating.__table__).join(Rating, Rating.bot_id == Bot.id)
            .where(Rating.game == game))}
        public = public_fit(conn, game, by_version)
        played = _played_versions(conn, game) if by_version else {}
        multi = {bot for bot, (low, high) in played.items() if low != high}
        versions = _versions(conn, game, multi) if multi else {}
    rows: list[tuple[BotFit | None, dict[str, Any]]] = []
    for b, r in rated.items():
        if not by_version:
            rows.append((public.bots.get(b), _leaderboard_row(r, public.bots.get(b), config)))
            continue
        for version, tally in sorted(versions.get(b, {}).items()):
            fitted = public.bots.get(b * VERSION_SPAN + version)
            rows.append((fitted, {**_leaderboard_row(r, fitted, config), **tally.row(config),
                                  "version": version}))
        if b not in versions:
            version = played.get(b, (r.version, r.version))[1]
            fitted = public.bots.get(b * VERSION_SPAN + version)
            rows.append((fitted, {**_leaderboard_row(r, fitted, config), "version": version}))
    unfitted = BotFit(PUBLIC.center, 0.0, True, 0, 0)  # a rating row without a rated seat
    rows.sort(key=lambda e: (*rank_key(e[0] or unfitted), e[1]["bot"], e[1].get("version", 0)))
    return [{"rank": i, **row} for i, (_, row) in enumerate(rows, start=1)]


def _played_versions(conn: Connection, game: str) -> dict[int, tuple[int, int]]:
    """The lowest and highest version each bot played ``game``'s folded matches under."""
    query = (select(MatchSeat.bot_id, func.min(MatchSeat.bot_version),
                    func.max(MatchSeat.bot_version))
             .join(Match, Match.id == MatchSeat.match_pk).where(*folded(game))
             .group_by(MatchSeat.bot_id))
    return {bot: (low, high) for bot, low, high in conn.execute(query)}


@dataclass
class _VersionTally:
    """One version of a bot, as the folded matches tell it."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    seen: int = 0
    """The bot's games up to this version's last one, every version counted (Elo's K)."""
    elo: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    last_played: Any = None

    def row(self, config: EloConfig) -> dict[str, Any]:
        skill = SkillRating(self.mu, self.sigma)
        return {"elo": self.elo, "elo_provisional": self.seen < config.provisional_games,
                "openskill": skill.conservative, "mu": self.mu, "sigma": self.sigma,
                "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses,
                "last_played": utc(self.last_played).isoformat(timespec="seconds")}

def _versions(conn: Connection, game: str,
              multi: set[int]) -> dict[int, dict[int, _VersionTally]]:
    """A tally per version of each bot in ``multi`` (bots that played ``game`` under more than
    one version), from the folded matches in their order, results counted as the fold counts
    them (:func:`~ladder.ratings.outcomes`, over every seat of the match)."""
    involved = select(MatchSeat.match_pk).where(MatchSeat.bot_id.in_(multi))
    seats = conn.execute(
        select(Match.id, Match.finished_at, MatchSeat.bot_id, MatchSeat.bot_version,
               MatchSeat.standing, MatchSeat.forfeited, RatingHistory.elo_after,
               RatingHistory.mu, RatingHistory.sigma)
        .join(MatchSeat, MatchSeat.match_pk == Match.id)
        .join(RatingHistory, and_(RatingHistory.match_pk == Match.id,
                                  RatingHistory.bot_id == MatchSeat.bot_id))
        .where(*folded(game), Match.id.in_(involved))
        .order_by(Match.rating_seq, MatchSeat.seat)).all()
    tallies: dict[int, dict[int, _VersionTally]] = {}
    seen: dict[int, int] = {}
    for _, group in groupby(seats, key=lambda row: row[0]):
        match = list(group)
        results = outcomes([r.standing for r in match], [bool(r.forfeited) for r in match])
        for r, result in zip(match, results):
            if r.bot_id not in multi:
                continue
            tally = tallies.setdefault(r.bot_id, {}).setdefault(r.bot_version, _VersionTally())
            seen[r.bot_id] = seen.get(r.bot_id, 0) + 1
            tally.games += 1
            tally.wins += result == "win"
            tally.draws += result == "draw"
            tally.losses += result == "loss"
            tally.seen, tally.last_played = seen[r.bot_id], r.finished_at
            tally.elo, tally.mu, tally.sigma = r.elo_after, r.mu, r.sigma
    return tallies


def public_fit(conn: Connection, game: str, by_version: bool = False) -> Fit[int]:
    """The public rating of ``game``'s ladder, keyed by bot id (``by_version``: by ``bot id *
    VERSION_SPAN + version``, each version a bot of its own): fitted to every rated result,
    or this process's last fit while the ladder's latest ``rating_seq`` and its count (and id
    sum) of rated results are unchanged.

    Always fitted from the prior's mean, not warm-started: a warm start lands within 1e-11
    Elo but not on the same bits, and the shown rating must be a function of the stored
    results alone, so that a recompute (or another process) shows exactly the same.
    """
    key = (f"{id(conn.engine)} {conn.engine.url}", game, by_version)
    version = tuple(conn.execute(select(func.max(Match.rating_seq), func.count(),
                                        func.sum(Match.id)).where(*folded(game))).one())
    with _FITS_LOCK:
        cached = _FITS.get(key)
    if cached is not None and cached[0] == version:
        return cached[1]
    rows = DriverStatement(conn, _RATED_SEATS, ("game",)).fetchall((game,))
    columns = list(zip(*rows)) or [(), (), (), (), ()]
    bots = np.array(columns[1], dtype=np.int64)
    if by_version:
        bots = bots * VERSION_SPAN + np.array(columns[4], dtype=np.int64)
    tables, keys = tables_from_seats(
        np.array(columns[0], dtype=np.int64), bots,
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


def _leaderboard_row(r: Row[Any], public: BotFit | None, config: EloConfig) -> dict[str, Any]:
    skill = SkillRating(r.mu, r.sigma)
    return {
        "bot": r.name,
        "rating": public.rating if public else PUBLIC.center,
        "interval": public.margin if public else None,
        "low": public.low if public else None, "high": public.high if public else None,
        "provisional": public.provisional if public else True,
        "elo": r.elo, "elo_provisional": r.games < config.provisional_games,
        "openskill": skill.conservative, "mu": r.mu, "sigma": r.sigma,
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "last_played": utc(r.last_played).isoformat(timespec="seconds"),
    }
