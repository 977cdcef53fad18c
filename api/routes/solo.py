"""Solo ladders: bots play the same seeds alone against a game's Automa, one ladder per level,
and rank by their fitted strength against it (:mod:`ladder.solo_ladder`)."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import actions
from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID
from api.solo_schemas import (
    SoloBoardOut, SoloEntryBody, SoloEntryList, SoloEntryOut, SoloLadderList,
)
from ladder import registry, solo_ladder

LADDER = "<string(maxlength=64):game>/<int(signed=True):level>"


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("solo", __name__, url_prefix="/api/v1",
                    description="Solo ladders: bots against the Automa, one ladder per level")

    @blp.route("/solo-ladders", methods=["GET"])
    @blp.response(200, SoloLadderList)
    def list_ladders() -> Any:
        """Every solo ladder here (each level of each game with a solo mode): bots entered,
        rounds so far."""
        return {"items": solo_ladder.ladders(service().engine, service().games)}

    @blp.route(f"/solo-ladders/{LADDER}", methods=["GET"])
    @blp.response(200, SoloBoardOut)
    def get_board(game: str, level: int) -> Any:
        """The solo ladder of `game` at Automa `level`: bots ranked by fitted strength (mean
        score margin against the Automa, corrected for the seeds' luck, with its 95%
        interval), win rate with its Wilson interval; provisional bots apart.  `ranking`
        states the rule."""
        actions.known_solo_ladder(game, level)
        return solo_ladder.board(service().engine, game, level)

    @blp.route(f"/bots/<{ID}:bot_id>/solo-ladders", methods=["GET"])
    @blp.response(200, SoloEntryList)
    def list_entries(bot_id: int) -> Any:
        """The bot's solo ladder entries."""
        registry.bot_detail(service().engine, bot_id)  # 404 for no such bot
        return {"items": solo_ladder.entries_of(service().engine, bot_id)}

    @blp.route(f"/bots/<{ID}:bot_id>/solo-ladders/{LADDER}", methods=["PUT"])
    @limiter.limit(actions.LIMITS["solo.set_entry"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(SoloEntryBody)
    @blp.response(200, SoloEntryOut)
    def set_entry(body: dict[str, Any], bot_id: int, game: str, level: int) -> Any:
        """Enter (`{"active": true}`) or withdraw (`{"active": false}`) your bot in the solo
        ladder of `game` at Automa `level`.  It plays from the next round: every round, each
        bot entered plays the round's 4 fresh seeds once each (as its `max_concurrency`
        allows), and the next round opens when the last game of this one is over; after 200
        games at a level it plays no more there.  Withdrawn, its games not started are
        voided; its finished ones stay on the board.  `game` must be one of the bot's games,
        and an owner enters one bot per level (409 otherwise: a second bot could play a seed
        after the first had seen its dice); an unknown game or level is a 404.  A bot paused
        by the health or presence rules is entered paused, and plays once that lifts."""
        who = require_owner()
        return actions.set_solo_entry(who.owner_id, bot_id, game, level, body["active"])

    return blp
