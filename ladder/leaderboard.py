"""Reading a ladder: its games and settings, the leaderboard, a bot's rating history.

Every read runs in :func:`ladder.db.reader`, so on SQLite it never queues behind a writer.  The
leaderboard is sorted by Elo and also carries each bot's Bradley-Terry rating (fitted here over
pair counts aggregated in SQL, never over the matches one by one) and openskill's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, Engine, Row, and_, case, func, select
from sqlalchemy.orm import aliased

from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.fold import folded, ladder_config
from ladder.models import Bot, Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import BTEstimate, EloConfig, SkillRating, bradley_terry, outcomes


def games(engine: Engine) -> list[str]:
    """The games that have a ladder in this database."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Ladder.game).order_by(Ladder.game)).scalars())


def ladder_settings(engine: Engine, game: str) -> EloConfig | None:
    """The Elo settings of ``game``'s ladder (None if nothing was recorded for it)."""
    with translate_errors(engine), reader(engine) as conn:
        return ladder_config(conn, game)


def leaderboard(engine: Engine, game: str, by_version: bool = False) -> list[dict[str, Any]]:
    """The ladder of ``game``, best Elo first (empty if nothing was recorded for it).

    Each row: rank, bot, rating (Elo), provisional, bt (Bradley-Terry rating), interval (its
    95% half-width), bt_low/bt_high, openskill (mu - 3 sigma), mu, sigma, games, wins, draws,
    losses, last_played (ISO 8601, UTC).

    ``by_version``: a bot that played under more than one version (``--new-version``) has a
    row per version, with ``version`` added to every row: each version's own games and
    results, its Bradley-Terry fit as a bot of its own, and its Elo and openskill as they were
    after its last match (the ratings carry on from one version to the next, so the newest
    version's are the bot's current ones).
    """
    with translate_errors(engine), reader(engine) as conn:
        config = ladder_config(conn, game) or EloConfig()
        rated = conn.execute(
            select(Bot.name, Bot.version, Rating.__table__).join(Rating, Rating.bot_id == Bot.id)
            .where(Rating.game == game)
        ).all()
        bt = _bradley_terry(conn, game, by_version)
        played = _played_versions(conn, game) if by_version else {}
        multi = {bot for bot, (low, high) in played.items() if low != high}
        versions = _versions(conn, game, multi) if multi else {}
    rows = []
    for r in rated:
        if not by_version:
            rows.append(_leaderboard_row(r, bt.get(r.bot_id), config))
            continue
        for version, tally in sorted(versions.get(r.bot_id, {}).items()):
            row = _leaderboard_row(r, bt.get((r.bot_id, version)), config)
            rows.append({**row, **tally.row(config), "version": version})
        if r.bot_id not in versions:
            version = played.get(r.bot_id, (r.version, r.version))[1]
            rows.append({**_leaderboard_row(r, bt.get((r.bot_id, version)), config),
                         "version": version})
    rows.sort(key=lambda row: (-row["rating"], row["bot"], row.get("version", 0)))
    return [{"rank": i, **row} for i, row in enumerate(rows, start=1)]


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
        return {"rating": self.elo, "provisional": self.seen < config.provisional_games,
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


def _bradley_terry(conn: Connection, game: str, by_version: bool = False) -> dict[Any, BTEstimate]:
    """Fit over pair counts aggregated in SQL; a 3-4 seat table's pairs weigh 1/(seats-1).
    Keyed by bot id, or by ``(bot id, version)`` with ``by_version`` (each version its own)."""
    a, b = aliased(MatchSeat), aliased(MatchSeat)
    score = func.sum(case((a.standing < b.standing, 1.0), (a.standing == b.standing, 0.5),
                          else_=0.0))
    keys = ((a.bot_id, a.bot_version, b.bot_id, b.bot_version) if by_version
            else (a.bot_id, b.bot_id))
    query = (
        select(*keys, Match.num_seats, score, func.count())
        .select_from(Match)
        .join(a, a.match_pk == Match.id)
        .join(b, and_(b.match_pk == Match.id, a.seat < b.seat))
        .where(*folded(game))
        .group_by(*keys, Match.num_seats)
    )
    records: Iterable[tuple[Any, Any, float, float]] = (
        ((row[0], row[1]), (row[2], row[3]), *_weighed(row[4:])) if by_version
        else (row[0], row[1], *_weighed(row[2:]))
        for row in conn.execute(query)
    )
    return bradley_terry(records)


def _weighed(counts: Sequence[Any]) -> tuple[float, float]:
    """``(score, games)`` of a pair at a table of ``seats``, weighed 1/(seats-1)."""
    seats, score, played = counts
    return float(score) / (seats - 1), float(played) / (seats - 1)


def _leaderboard_row(r: Row[Any], bt: BTEstimate | None, config: EloConfig) -> dict[str, Any]:
    skill = SkillRating(r.mu, r.sigma)
    return {
        "bot": r.name, "rating": r.elo,
        "provisional": r.games < config.provisional_games,
        "bt": bt.rating if bt else None, "interval": bt.margin if bt else None,
        "bt_low": bt.low if bt else None, "bt_high": bt.high if bt else None,
        "openskill": skill.conservative, "mu": r.mu, "sigma": r.sigma,
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "last_played": utc(r.last_played).isoformat(timespec="seconds"),
    }
