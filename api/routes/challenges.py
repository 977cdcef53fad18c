"""Challenges: unrated matches between chosen bots, seats swapped or rotated on shared seeds."""

from __future__ import annotations

import logging
from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint

from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID, ChallengeOut, challenge_create_schema
from ladder.reads import challenge_detail
from ladder.work import create_challenge

log = logging.getLogger("referee.api")


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("challenges", __name__, url_prefix="/api/v1",
                    description="Unrated matches between chosen bots")

    @blp.route("/challenges", methods=["POST"])
    @limiter.limit("20 per day")
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(challenge_create_schema(games))
    @blp.response(202, ChallengeOut)
    def create(body: dict[str, Any]) -> Any:
        """Challenge: `games` matches (default one per seat order) between `bots`, one of
        them yours.  Two seats: seat-swapped pairs on one seed; more: every rotation of a
        seed.  Unrated.  Answers at once; the matches are played by workers."""
        who = require_owner()
        svc = service()
        bots = body["bots"]
        games_wanted = body.get("games") or len(bots)
        challenge_id, ids = create_challenge(svc.engine, who.owner_id, body["game"], bots,
                                             games_wanted)
        try:
            svc.dispatcher.enqueue(ids)
        except Exception:  # the broker is down: the sweeper enqueues them later
            log.exception("enqueueing challenge %s", challenge_id)
        return challenge_detail(svc.engine, challenge_id)

    @blp.route(f"/challenges/<{ID}:challenge_id>", methods=["GET"])
    @blp.response(200, ChallengeOut)
    def get(challenge_id: int) -> Any:
        """Progress and the aggregate result (points: a shared first place splits the point)."""
        return challenge_detail(service().engine, challenge_id)

    return blp
