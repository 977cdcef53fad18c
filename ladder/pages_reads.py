"""What the public pages show beyond the API's reads (reads only).

A bot's rating series, head-to-head record, seat record, strike reasons and health; a ladder's
paused bots, rating trends and first places; the live token behind a page session.  Each
function answers plain dicts, so a page can later take the same data from an API endpoint
(rating history, head-to-head, health) without changing its template.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Engine, Integer, String, Text, and_, bindparam, case, cast, func, or_, select
from sqlalchemy.orm import aliased

from ladder import NotFoundError
from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.fold import folded
from ladder.models import (
    FINISHED, PAUSED, RETIRED, ApiToken, Bot, HealthCheck, LadderEntry, Match, MatchSeat, Owner,
    RatingHistory, Round,
)

TREND_GAMES = 30
"""A leaderboard's trend: the rating change over each bot's last this many rated games."""
BOT_ID = bindparam("bot_id", type_=Integer)
GAME = bindparam("game", type_=String)
"""The parameters of a bot's statements: each is built once (:func:`functools.cache`) and run
with ``{"bot_id": ..., "game": ...}``.  Building one (aliases, CASE expressions, joins) cost
SQLAlchemy more CPU than the database took to answer it, on every read of a bot's page."""


# -- a bot ------------------------------------------------------------------------------------

def bot_games(engine: Engine, bot_id: int) -> list[str]:
    """The games ``bot_id`` has a seat in (any state), alphabetically."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(_bot_games(), {"bot_id": bot_id}).scalars())


@cache
def _bot_games() -> Any:
    return (select(Match.game).join(MatchSeat, MatchSeat.match_pk == Match.id)
            .where(MatchSeat.bot_id == BOT_ID).distinct().order_by(Match.game))


def rating_series(engine: Engine, bot_id: int, game: str) -> list[dict[str, Any]]:
    """The bot's Elo before and after each of its rated matches of ``game``, in the order the
    ratings were folded (oldest first), with each match's round: what its chart draws (a
    bot has hundreds; the API's pages of them, :func:`rating_series_page`, say more)."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(_chart_series(), {"bot_id": bot_id, "game": game}).all()
    return [{"match_id": r.id, "round_id": r.round_id, "before": r.elo_before,
             "after": r.elo_after} for r in rows]


@cache
def _chart_series() -> Any:
    return (select(Match.id, Match.round_id, RatingHistory.elo_before, RatingHistory.elo_after)
            .join(RatingHistory, RatingHistory.match_pk == Match.id)
            .where(RatingHistory.bot_id == BOT_ID, RatingHistory.game == GAME)
            .order_by(Match.rating_seq))


def rating_series_page(engine: Engine, bot_id: int, game: str, page: int = 1,
                       per_page: int = 100) -> tuple[list[dict[str, Any]], int]:
    """A page of :func:`rating_series` (oldest first) with the total, as the API answers it:
    NotFoundError for an unknown bot."""
    params = {"bot_id": bot_id, "game": game, "skip": (page - 1) * per_page,
              "take": per_page}
    with translate_errors(engine), reader(engine) as conn:
        require_bot(conn, bot_id)
        total = conn.execute(_series_count(), params).scalar_one()
        rows = conn.execute(_series_page(), params).all()
    return [{"match_id": r.id, "game": game, "finished_at": utc(r.finished_at),
             "round_id": r.round_id, "rating_before": round(r.elo_before, 2),
             "rating_after": round(r.elo_after, 2),
             "delta": round(r.elo_after - r.elo_before, 2),
             "mu": round(r.mu, 4), "sigma": round(r.sigma, 4)} for r in rows], total


@cache
def _series() -> Any:
    return (select(Match.id, Match.rating_seq, Match.finished_at, Match.round_id,
                   RatingHistory.elo_before, RatingHistory.elo_after, RatingHistory.mu,
                   RatingHistory.sigma)
            .join(RatingHistory, RatingHistory.match_pk == Match.id)
            .where(RatingHistory.bot_id == BOT_ID, RatingHistory.game == GAME)
            .order_by(Match.rating_seq))


@cache
def _series_count() -> Any:
    return select(func.count()).select_from(_series().subquery())


@cache
def _series_page() -> Any:
    return (_series().offset(bindparam("skip", type_=Integer))
            .limit(bindparam("take", type_=Integer)))


def require_bot(conn: Any, bot_id: int) -> None:
    """NotFoundError unless ``bot_id`` exists."""
    if conn.execute(_bot_exists(), {"bot_id": bot_id}).first() is None:
        raise NotFoundError(f"no bot {bot_id}")


@cache
def _bot_exists() -> Any:
    return select(Bot.id).where(Bot.id == BOT_ID)


def head_to_head(engine: Engine, bot_id: int, game: str) -> list[dict[str, Any]]:
    """Per opponent, over the finished matches of ``game`` (rated or not) where both sat:
    meetings, finishing ahead / level / behind it (a forfeit is behind everyone who did not
    forfeit), this bot's strikes per meeting, and when they last met.  Most met first."""
    with translate_errors(engine), reader(engine) as conn:
        return _head_to_head_rows(conn, bot_id, game)


def _head_to_head_rows(conn: Any, bot_id: int, game: str) -> list[dict[str, Any]]:
    rows = conn.execute(_head_to_head(), {"bot_id": bot_id, "game": game}).all()
    return [{"bot": {"id": r.bot_id, "name": r.name}, "played": r.played, "ahead": r.ahead,
             "level": r.level, "behind": r.behind,
             "strikes_per_game": round(r.strikes / r.played, 2) if r.played else None,
             "last_met": utc(r.last), "last_match": r.last_id} for r in rows]


@cache
def _head_to_head() -> Any:
    me, them = aliased(MatchSeat), aliased(MatchSeat)
    return (
        select(them.bot_id, Bot.name, func.count().label("played"),
               func.sum(case((me.standing < them.standing, 1), else_=0)).label("ahead"),
               func.sum(case((me.standing == them.standing, 1), else_=0)).label("level"),
               func.sum(case((me.standing > them.standing, 1), else_=0)).label("behind"),
               func.sum(func.coalesce(me.strikes, 0)).label("strikes"),
               func.max(Match.finished_at).label("last"), func.max(Match.id).label("last_id"))
        .select_from(me)
        .join(Match, Match.id == me.match_pk)
        .join(them, and_(them.match_pk == me.match_pk, them.bot_id != me.bot_id))
        .join(Bot, Bot.id == them.bot_id)
        .where(me.bot_id == BOT_ID, Match.game == GAME, Match.state == FINISHED)
        .group_by(them.bot_id, Bot.name)
        .order_by(func.count().desc(), Bot.name)
    )


def head_to_head_page(engine: Engine, bot_id: int, game: str, page: int = 1,
                      per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of :func:`head_to_head` with the total: NotFoundError for an unknown bot."""
    with translate_errors(engine), reader(engine) as conn:
        require_bot(conn, bot_id)
        rows = _head_to_head_rows(conn, bot_id, game)
    return rows[(page - 1) * per_page:page * per_page], len(rows)


def seat_record(engine: Engine, bot_id: int, game: str) -> list[dict[str, Any]]:
    """Per seat, over the finished matches of ``game`` against other bots: games, first
    places, mean place (a solo game against the Automa has no seats to compare)."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(_seat_record(), {"bot_id": bot_id, "game": game}).all()
    return [{"seat": r.seat, "games": r.games, "firsts": r.firsts,
             "mean_place": None if r.mean_rank is None else round(float(r.mean_rank), 2)}
            for r in rows]


@cache
def _seat_record() -> Any:
    return (select(MatchSeat.seat, func.count().label("games"),
                   func.sum(case((and_(MatchSeat.rank == 1,
                                       MatchSeat.forfeited.is_not(True)), 1),
                                 else_=0)).label("firsts"),
                   func.avg(MatchSeat.rank).label("mean_rank"))
            .join(Match, Match.id == MatchSeat.match_pk)
            .where(MatchSeat.bot_id == BOT_ID, Match.game == GAME, Match.state == FINISHED,
                   Match.num_seats >= 2)
            .group_by(MatchSeat.seat).order_by(MatchSeat.seat))


def strike_summary(engine: Engine, bot_id: int) -> dict[str, Any]:
    """The bot's strikes over its finished matches: total, forfeits, and by reason.  Matches
    recorded by the CLI keep a count but no reasons: those strikes are ``unrecorded``.

    Counted per distinct (strikes, forfeited, reasons) of its seats: a bot with hundreds of
    matches has a handful of those, and decoding each seat's reasons cost more than the
    rest of its page's reads."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(_strikes(), {"bot_id": bot_id}).all()
    reasons: Counter[str] = Counter()
    unrecorded = 0
    for r in rows:
        given = {str(k): int(v) for k, v in (json.loads(r.reasons or "null") or {}).items()}
        for reason, count in given.items():
            reasons[reason] += count * r.seats
        unrecorded += max(0, (r.strikes or 0) - sum(given.values())) * r.seats
    return {"matches": sum(r.seats for r in rows),
            "strikes": sum((r.strikes or 0) * r.seats for r in rows),
            "forfeits": sum(r.seats for r in rows if r.forfeited),
            "with_strikes": sum(r.seats for r in rows if r.strikes),
            "reasons": sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])),
            "unrecorded": unrecorded}


@cache
def _strikes() -> Any:
    reasons_text = cast(MatchSeat.strike_reasons, Text)
    return (select(MatchSeat.strikes, MatchSeat.forfeited, reasons_text.label("reasons"),
                   func.count().label("seats"))
            .join(Match, Match.id == MatchSeat.match_pk)
            .where(MatchSeat.bot_id == BOT_ID, Match.state == FINISHED)
            .group_by(MatchSeat.strikes, MatchSeat.forfeited, reasons_text))


def health(engine: Engine, bot_id: int, recent: int = 20, window: int = 100) -> dict[str, Any]:
    """The bot's probes (``GET /`` at registration, checks, the health sweeper): the latest
    ``recent``, and over the last ``window`` the share answered and the latency p50 / p95;
    failures in a row now; and the decision times of its last ``window`` finished matches."""
    params = {"bot_id": bot_id, "window": window}
    with translate_errors(engine), reader(engine) as conn:
        probes = conn.execute(_probes(), params).all()
        timings = conn.execute(_timings(), params).all()
    latencies = sorted(p.latency_ms for p in probes if p.ok and p.latency_ms is not None)
    failing = 0
    for p in probes:
        if p.ok:
            break
        failing += 1
    return {
        "probes": [{"at": utc(p.at), "ok": p.ok, "latency_ms": p.latency_ms,
                    "status": p.status, "detail": p.detail} for p in probes[:recent]],
        "window": len(probes),
        "ok_share": None if not probes else sum(1 for p in probes if p.ok) / len(probes),
        "p50_ms": percentile(latencies, 0.50), "p95_ms": percentile(latencies, 0.95),
        "failing_in_a_row": failing,
        "matches": len(timings),
        "decision_mean_ms": percentile(sorted(t.mean_ms for t in timings), 0.50),
        "decision_p95_ms": percentile(sorted(t.p95_ms for t in timings
                                             if t.p95_ms is not None), 0.50),
    }


@cache
def _probes() -> Any:
    return (select(HealthCheck.at, HealthCheck.ok, HealthCheck.latency_ms, HealthCheck.status,
                   HealthCheck.detail)
            .where(HealthCheck.bot_id == BOT_ID)
            .order_by(HealthCheck.at.desc(), HealthCheck.id.desc())
            .limit(bindparam("window", type_=Integer)))


@cache
def _timings() -> Any:
    return (select(MatchSeat.mean_ms, MatchSeat.p95_ms)
            .join(Match, Match.id == MatchSeat.match_pk)
            .where(MatchSeat.bot_id == BOT_ID, Match.state == FINISHED,
                   MatchSeat.mean_ms.is_not(None))
            .order_by(Match.id.desc()).limit(bindparam("window", type_=Integer)))


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """The nearest-rank percentile of an ascending sequence (None when empty)."""
    if not ordered:
        return None
    return float(ordered[max(0, math.ceil(q * len(ordered)) - 1)])


# -- a ladder ---------------------------------------------------------------------------------

def paused_bots(engine: Engine, game: str) -> list[dict[str, Any]]:
    """The bots of ``game``'s ladder that are paused: the bot itself (status ``paused``) or
    its entry in this ladder (a reason recorded), with the reason; retired bots are left out
    (they are off the ladder altogether)."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(
            select(Bot.id, Bot.name, Bot.status, Bot.games, Bot.owner_id,
                   Owner.name.label("owner_name"), LadderEntry.paused_reason)
            .outerjoin(Owner, Owner.id == Bot.owner_id)
            .outerjoin(LadderEntry, and_(LadderEntry.bot_id == Bot.id, LadderEntry.game == game))
            .where(or_(Bot.status == PAUSED, LadderEntry.paused_reason.is_not(None)),
                   Bot.status != RETIRED)
            .order_by(Bot.name)).all()
    out = []
    for r in rows:
        if r.paused_reason is None and game not in (r.games or []):
            continue  # paused, but not an entrant of this ladder
        out.append({"bot": {"id": r.id, "name": r.name},
                    "owner": None if r.owner_id is None else {"id": r.owner_id,
                                                               "name": r.owner_name},
                    "reason": r.paused_reason or "the bot is paused"})
    return out


def ladder_extras(engine: Engine, game: str) -> dict[int, dict[str, Any]]:
    """Per rated bot of ``game``: ``trend`` (Elo change over its last :data:`TREND_GAMES`
    rated games, and over how many) and ``firsts`` (share of rated games won outright or
    shared, forfeits excluded)."""
    recent = (
        select(RatingHistory.bot_id, RatingHistory.elo_before, RatingHistory.elo_after,
               func.row_number().over(partition_by=RatingHistory.bot_id,
                                       order_by=Match.rating_seq.desc()).label("back"))
        .join(Match, Match.id == RatingHistory.match_pk)
        .where(RatingHistory.game == game).subquery())
    with translate_errors(engine), reader(engine) as conn:
        window = conn.execute(select(recent).where(recent.c.back <= TREND_GAMES)).all()
        firsts = conn.execute(
            select(MatchSeat.bot_id, func.count().label("games"),
                   func.sum(case((and_(MatchSeat.rank == 1,
                                       MatchSeat.forfeited.is_not(True)), 1),
                                 else_=0)).label("firsts"))
            .join(Match, Match.id == MatchSeat.match_pk).where(*folded(game))
            .group_by(MatchSeat.bot_id)).all()
    newest: dict[int, Any] = {}
    oldest: dict[int, Any] = {}
    for r in window:
        if r.back == 1:
            newest[r.bot_id] = r
        if r.bot_id not in oldest or r.back > oldest[r.bot_id].back:
            oldest[r.bot_id] = r
    out: dict[int, dict[str, Any]] = {
        b: {"trend": round(newest[b].elo_after - oldest[b].elo_before, 1),
            "trend_games": oldest[b].back, "firsts": None} for b in newest}
    for f in firsts:
        out.setdefault(f.bot_id, {"trend": None, "trend_games": 0})["firsts"] = \
            round(f.firsts / f.games, 3) if f.games else None
    return out


# -- lookups ----------------------------------------------------------------------------------

def bot_id_named(engine: Engine, name: str) -> int | None:
    with translate_errors(engine), reader(engine) as conn:
        found = conn.execute(select(Bot.id).where(Bot.name == name)).scalar_one_or_none()
    return None if found is None else int(found)


def bot_names(engine: Engine, ids: Sequence[int]) -> dict[int, str]:
    with translate_errors(engine), reader(engine) as conn:
        return {r.id: r.name for r in conn.execute(
            select(Bot.id, Bot.name).where(Bot.id.in_(list(ids))))}


def owner_names(engine: Engine, ids: Sequence[int]) -> dict[int, str]:
    with translate_errors(engine), reader(engine) as conn:
        return {r.id: r.name for r in conn.execute(
            select(Owner.id, Owner.name).where(Owner.id.in_(list(ids))))}


# -- rounds -----------------------------------------------------------------------------------

def round_ref(engine: Engine, round_id: int) -> dict[str, Any] | None:
    """A round as pages name it: ``{id, game, number}`` (the number counts the rounds of its
    game's ladder, the id counts every ladder's), with the ids of the rounds before and after
    it in the same ladder (``previous``, ``next``: None at either end); None if there is no
    such round."""
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(Round.id, Round.game, Round.number)
                           .where(Round.id == round_id)).one_or_none()
        if row is None:
            return None
        before = conn.execute(select(Round.id).where(Round.game == row.game,
                                                     Round.number < row.number)
                              .order_by(Round.number.desc()).limit(1)).scalar_one_or_none()
        after = conn.execute(select(Round.id).where(Round.game == row.game,
                                                    Round.number > row.number)
                             .order_by(Round.number).limit(1)).scalar_one_or_none()
    return {"id": row.id, "game": row.game, "number": row.number, "previous": before,
            "next": after}


def live_session(engine: Engine, owner_id: int, token_id: int) -> dict[str, Any] | None:
    """The owner behind a page session, while the token it logged in with stays live (not
    revoked, the owner not suspended): ``{id, name, is_admin}``, else None."""
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(
            select(Owner.id, Owner.name, Owner.is_admin, Owner.suspended_at,
                   ApiToken.revoked_at)
            .join(ApiToken, ApiToken.owner_id == Owner.id)
            .where(ApiToken.id == token_id, Owner.id == owner_id)).one_or_none()
    if row is None or row.revoked_at is not None or row.suspended_at is not None:
        return None
    return {"id": row.id, "name": row.name, "is_admin": row.is_admin}

