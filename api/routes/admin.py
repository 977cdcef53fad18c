"""Admin: pause and resume a game's ladder, void a match, recompute a ladder's ratings, read
the referee's own failures."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api.auth import BEARER, admin_required, require_owner
from api.context import service
from api.schemas import (
    ID_RULE as ID, IncidentPage, LadderOut, LadderPauseBody, PageArgs, RecomputeOut, VoidBody,
    VoidOut,
)
from ladder import admin
from ladder.recompute import recompute
from ladder.work import incidents

GAME = "string(maxlength=64):game"


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("admin", __name__, url_prefix="/api/v1/admin",
                    description="Running the ladders (admins only)")

    def known(game: str) -> None:
        if game not in service().games:
            abort(404, message=f"no game {game!r}; games: {', '.join(service().games)}")

    @blp.route(f"/ladders/<{GAME}>/pause", methods=["POST"])
    @admin_required
    @blp.doc(security=BEARER)
    @blp.arguments(LadderPauseBody, required=False)
    @blp.response(200, LadderOut)
    def pause_ladder(body: dict[str, Any] | None, game: str) -> Any:
        """Pause a game's ladder: nothing new is scheduled on it until it is resumed
        (matches already scheduled still play).  Pausing a paused ladder keeps the first
        pause's reason."""
        known(game)
        reason = (body or {}).get("reason", "paused by an admin")
        return admin.pause_ladder(service().engine, game, reason, require_owner().owner_id)

    @blp.route(f"/ladders/<{GAME}>/resume", methods=["POST"])
    @admin_required
    @blp.doc(security=BEARER)
    @blp.response(200, LadderOut)
    def resume_ladder(game: str) -> Any:
        """Resume a game's ladder (resuming one that runs changes nothing)."""
        known(game)
        return admin.resume_ladder(service().engine, game)

    @blp.route(f"/ladders/<{GAME}>/recompute", methods=["POST"])
    @admin_required
    @blp.doc(security=BEARER)
    @blp.response(200, RecomputeOut)
    def recompute_ladder(game: str) -> Any:
        """Rebuild a game's ratings and rating history as the fold over its rated,
        finished matches (what `referee ladder recompute` does)."""
        known(game)
        return {"game": game, "matches": recompute(service().engine, game)}

    @blp.route(f"/matches/<{ID}:match_id>/void", methods=["POST"])
    @admin_required
    @blp.doc(security=BEARER)
    @blp.arguments(VoidBody, required=False)
    @blp.response(200, VoidOut)
    def void_match(body: dict[str, Any] | None, match_id: int) -> Any:
        """Void a match.  One not over never plays; a finished rated one leaves the rating
        fold, and its game's ratings are recomputed in the same transaction (they equal a
        recompute).  409 for a match already voided."""
        reason = (body or {}).get("reason", "voided by an admin")
        return admin.void_match(service().engine, match_id, reason)

    @blp.route("/incidents", methods=["GET"])
    @admin_required
    @blp.doc(security=BEARER)
    @blp.arguments(PageArgs, location="query", unknown=ma.RAISE, as_kwargs=True)
    @blp.response(200, IncidentPage)
    def list_incidents(page: int, per_page: int) -> Any:
        """The referee's own failures, newest first: each match attempt that raised (a bug,
        storage lost while finishing), with its traceback, and whether the match got another
        attempt or, after its last, was voided.  A bot's faults are never incidents."""
        items, total = incidents(service().engine, page, per_page)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    return blp
