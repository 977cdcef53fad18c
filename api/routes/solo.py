"""Solo ladders: bots play the same seeds alone against a game's Automa, one ladder per level,
and rank by their fitted strength against it (:mod:`ladder.solo_ladder`)."""

from __future__ import annotations

import logging
from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID
from api.solo_schemas import (
    SoloBoardOut, SoloEntryBody, SoloEntryList, SoloEntryOut, SoloLadderList,
)
from ladder import ConflictError, registry, solo_ladder

log = logging.getLogger("referee.api")
LADDER = "<string(maxlength=64):game>/<int(signed=True):level>"
ENTRY_LIMIT = "30 per minute"


def known_ladder(game: str, level: int) -> None:
    """404 for a game this service does not play, or a level its Automa does not have."""
    from referee.games import find_game

    games = service().games
    if game not in games:
        abort(404, message=f"no game {game!r}; games: {', '.join(games)}")
    levels = find_game(game).solo_levels
    if not levels:
        abort(404, message=f"{game} has no solo mode, so no solo ladder")
    if level not in levels:
        abort(404, message=f"no solo ladder {game} level {level}: its Automa has levels "
                           f"{levels[0]}-{levels[-1]}")


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
        known_ladder(game, level)
        return solo_ladder.board(service().engine, game, level)

    @blp.route(f"/bots/<{ID}:bot_id>/solo-ladders", methods=["GET"])
    @blp.response(200, SoloEntryList)
    def list_entries(bot_id: int) -> Any:
        """The bot's solo ladder entries."""
        registry.bot_detail(service().engine, bot_id)  # 404 for no such bot
        return {"items": solo_ladder.entries_of(service().engine, bot_id)}

    @blp.route(f"/bots/<{ID}:bot_id>/solo-ladders/{LADDER}", methods=["PUT"])
    @limiter.limit(ENTRY_LIMIT)
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
        voided; its finished ones stay on the board.  `game` must be one of the bot's games
        (409 otherwise); an unknown game or level is a 404."""
        who = require_owner()
        svc = service()
        bot = registry.owned_bot(svc.engine, who.owner_id, bot_id)
        known_ladder(game, level)
        if game not in bot["games"]:
            raise ConflictError(f"bot {bot_id} does not play {game} (it plays "
                                f"{', '.join(bot['games'])}): add it with PATCH /bots/{bot_id}")
        entry = solo_ladder.set_entry(svc.engine, bot_id, game, level, body["active"])
        if body["active"]:
            try:  # a ladder with no round open starts one now, not at the next beat
                svc.dispatcher.enqueue(solo_ladder.tick(svc.engine))
            except Exception:  # the broker is down: the sweeper enqueues them later
                log.exception("opening a solo round of %s level %s", game, level)
        return entry

    return blp
