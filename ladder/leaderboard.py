"""Reading a ladder: its games and settings, the leaderboard, a bot's rating history.

Every read runs in :func:`ladder.db.reader`, so on SQLite it never queues behind a writer.  The
leaderboard is sorted by Elo and also carries each bot's Bradley-Terry rating (fitted here over
pair counts aggregated in SQL, never over the matches one by one) and openskill's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Engine, Row, and_, case, func, select
from sqlalchemy.orm import aliased

from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.fold import folded, ladder_config
from ladder.models import Bot, Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import BTEstimate, EloConfig, SkillRating, bradley_terry


def games(engine: Engine) -> list[str]:
    """The games that have a ladder in this database."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Ladder.game).order_by(Ladder.game)).scalars())


def ladder_settings(engine: Engine, game: str) -> EloConfig | None:
    """The Elo settings of ``game``'s ladder (None if nothing was recorded for it)."""
    with translate_errors(engine), reader(engine) as conn:
        return ladder_config(conn, game)


def leaderboard(engine: Engine, game: str) -> list[dict[str, Any]]:
    """The ladder of ``game``, best Elo first (empty if nothing was recorded for it).

    Each row: rank, bot, rating (Elo), provisional, bt (Bradley-Terry rating), interval (its
    95% half-width), bt_low/bt_high, openskill (mu - 3 sigma), mu, sigma, games, wins, draws,
    losses, last_played (ISO 8601, UTC).
    """
    with translate_errors(engine), reader(engine) as conn:
        config = ladder_config(conn, game) or EloConfig()
        rated = conn.execute(
            select(Bot.name, Rating.__table__).join(Rating, Rating.bot_id == Bot.id)
            .where(Rating.game == game)
        ).all()
        bt = _bradley_terry(conn, game)
    rows = sorted(rated, key=lambda r: (-r.elo, r.name))
    return [_leaderboard_row(i, r, bt.get(r.bot_id), config) for i, r in enumerate(rows, start=1)]


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


def _bradley_terry(conn: Connection, game: str) -> dict[int, BTEstimate]:
    """Fit over pair counts aggregated in SQL; a 3-4 seat table's pairs weigh 1/(seats-1)."""
    a, b = aliased(MatchSeat), aliased(MatchSeat)
    score = func.sum(case((a.standing < b.standing, 1.0), (a.standing == b.standing, 0.5),
                          else_=0.0))
    query = (
        select(a.bot_id, b.bot_id, Match.num_seats, score, func.count())
        .select_from(Match)
        .join(a, a.match_pk == Match.id)
        .join(b, and_(b.match_pk == Match.id, a.seat < b.seat))
        .where(*folded(game))
        .group_by(a.bot_id, b.bot_id, Match.num_seats)
    )
    records: Iterable[tuple[int, int, float, float]] = (
        (x, y, float(s) / (n - 1), float(g) / (n - 1)) for x, y, n, s, g in conn.execute(query)
    )
    return bradley_terry(records)


def _leaderboard_row(rank: int, r: Row[Any], bt: BTEstimate | None,
                     config: EloConfig) -> dict[str, Any]:
    skill = SkillRating(r.mu, r.sigma)
    return {
        "rank": rank, "bot": r.name, "rating": r.elo,
        "provisional": r.games < config.provisional_games,
        "bt": bt.rating if bt else None, "interval": bt.margin if bt else None,
        "bt_low": bt.low if bt else None, "bt_high": bt.high if bt else None,
        "openskill": skill.conservative, "mu": r.mu, "sigma": r.sigma,
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "last_played": utc(r.last_played).isoformat(timespec="seconds"),
    }
