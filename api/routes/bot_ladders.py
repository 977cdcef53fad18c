"""A bot's living-ladder entries: join, leave, pause and resume, per game (owner only)."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import actions
from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID, LadderEntryBody, LadderEntryList, LadderEntryOut, whole_body
from ladder import registry


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("bot_ladders", __name__, url_prefix="/api/v1",
                    description="Your bots on the living ladders: join, leave, pause, resume")

    @blp.route(f"/bots/<{ID}:bot_id>/ladders", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(200, LadderEntryList)
    def list_entries(bot_id: int) -> Any:
        """Your bot's ladder entries: on the ladder or left, why paused, placement games
        left (provisional while any are)."""
        who = require_owner()
        engine = service().engine
        registry.owned_bot(engine, who.owner_id, bot_id, allow_retired=True)
        return {"items": registry.ladder_entries(engine, bot_id)}

    @blp.route(f"/bots/<{ID}:bot_id>/ladders/<string(maxlength=64):game>", methods=["PUT"])
    @limiter.limit(actions.LIMITS["bot_ladders.set_entry"])
    @owner_required
    @blp.doc(security=BEARER, **whole_body(LadderEntryBody, minProperties=1))
    @blp.arguments(LadderEntryBody)
    @blp.response(200, LadderEntryOut)
    def set_entry(body: dict[str, Any], bot_id: int, game: str) -> Any:
        """Join (`{"active": true}`), leave (`{"active": false}`), pause
        (`{"paused": true}`) or resume (`{"paused": false}`) your bot on a game's ladder.

        The body needs `active`, `paused` or both.  `game` must be one of the bot's games
        (409 otherwise: add it with `PATCH /bots/{id}`); an unknown game is a 404.

        Joining starts 10 placement games (a bot new to the game); leaving cancels its
        unstarted fixtures at the next tick (its history stays).  A pause keeps the entry and
        its placement; a pause the health checks made lifts itself after 2 good probes."""
        who = require_owner()
        return actions.set_ladder_entry(who.owner_id, bot_id, game, active=body.get("active"),
                                        paused=body.get("paused"))

    return blp
