"""A bot's living-ladder entries: join, leave, pause and resume, per game (owner only)."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import (
    ID_RULE as ID, LadderEntryBody, LadderEntryList, LadderEntryOut, whole_body,
)
from ladder import NotFoundError, matchmaking, registry


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
    @limiter.limit("30 per minute")
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
        svc = service()
        bot = registry.owned_bot(svc.engine, who.owner_id, bot_id)
        if game not in svc.games:
            abort(404, message=f"no game {game!r}")
        if game not in bot["games"]:
            abort(409, message=f"bot {bot_id} does not play {game} (it plays "
                               f"{', '.join(bot['games'])}): add it with PATCH /bots/{bot_id}")
        try:
            if body.get("active") is True:
                matchmaking.join(svc.engine, bot_id, game, svc.config.matchmaker())
                registry.join_house_bots(svc.engine, svc.config.house_ladders, [game])
            elif body.get("active") is False:
                matchmaking.leave(svc.engine, bot_id, game)
            if "paused" in body:
                registry.set_owner_pause(svc.engine, bot_id, game, body["paused"])
        except NotFoundError as exc:  # the bot exists: it is the entry that does not
            abort(409, message=f"{exc}: join it first with {{\"active\": true}}")
        return registry.ladder_entries(svc.engine, bot_id, game)[0]

    return blp
