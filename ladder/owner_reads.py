"""What an owner's home page reads that no API resource answers in one go: the latest strikes
of their bots, and their latest challenges.  Reads only; each is one or two queries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, func, select

from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.models import ACTIVE, FINISHED, Bot, Challenge, Match, MatchSeat


def latest_strikes(engine: Engine, bot_ids: Sequence[int], limit: int = 5
                   ) -> dict[int, list[dict[str, Any]]]:
    """Per bot, its ``limit`` latest finished matches in which it earned strikes, newest
    first: ``{match_id, game, finished_at, strikes, reasons, forfeited}``."""
    if not bot_ids:
        return {}
    ranked = (
        select(MatchSeat.bot_id, MatchSeat.strikes, MatchSeat.strike_reasons,
               MatchSeat.forfeited, Match.id.label("match_id"), Match.game, Match.finished_at,
               func.row_number().over(partition_by=MatchSeat.bot_id, order_by=(
                   Match.finished_at.desc(), Match.id.desc())).label("back"))
        .join(Match, Match.id == MatchSeat.match_pk)
        .where(MatchSeat.bot_id.in_(list(bot_ids)), MatchSeat.strikes > 0,
               Match.state == FINISHED).subquery())
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(ranked).where(ranked.c.back <= limit)
                            .order_by(ranked.c.back)).all()
    out: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r.bot_id, []).append({
            "match_id": r.match_id, "game": r.game, "finished_at": utc(r.finished_at),
            "strikes": r.strikes, "forfeited": bool(r.forfeited),
            "reasons": sorted((r.strike_reasons or {}).items())})
    return out


def challenge_ids(engine: Engine, owner_id: int, limit: int = 5) -> list[int]:
    """The owner's ``limit`` latest challenges, newest first."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Challenge.id).where(Challenge.owner_id == owner_id)
                                 .order_by(Challenge.id.desc()).limit(limit)).scalars())


def opponents(engine: Engine) -> list[dict[str, Any]]:
    """The bots a challenge may name (active, an owner's or the house's: not the CLI's), by
    id: their ids, names and games, in one query (a form lists them all; their profiles,
    ratings and probes are not needed there)."""
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(Bot.id, Bot.name, Bot.games).where(
            Bot.status == ACTIVE, (Bot.owner_id.is_not(None)) | Bot.house.is_(True))
            .order_by(Bot.id)).all()
    return [{"id": r.id, "name": r.name, "games": list(r.games or [])} for r in rows]
