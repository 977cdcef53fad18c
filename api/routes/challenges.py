"""Challenges: unrated matches between chosen bots, seats swapped or rotated on shared seeds."""

from __future__ import annotations

from typing import Any

from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import actions
from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID, ChallengeOut, challenge_create_schema, whole_body
from api.solo_schemas import challenge_forms
from ladder.reads import challenge_detail


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("challenges", __name__, url_prefix="/api/v1",
                    description="Unrated matches between chosen bots")

    body_schema = challenge_create_schema(games)

    @blp.route("/challenges", methods=["POST"])
    @limiter.limit(actions.LIMITS["challenges.create"])
    @owner_required
    @blp.doc(security=BEARER, **whole_body(body_schema, oneOf=challenge_forms(games)))
    @blp.arguments(body_schema)
    @blp.response(202, ChallengeOut)
    def create(body: dict[str, Any]) -> Any:
        """Challenge: `games` matches (default one per seat order) between `bots`, one of
        them yours.  Two seats: seat-swapped pairs on one seed; more: every rotation of a
        seed.  One bot with `automa_level`: a solo challenge, each game on its own seed
        against the game's Automa.  Unrated.  Answers at once; the matches are played by
        workers."""
        who = require_owner()
        return actions.start_challenge(who.owner_id, body["game"], body["bots"],
                                       body.get("games"), body.get("automa_level"))

    @blp.route(f"/challenges/<{ID}:challenge_id>", methods=["GET"])
    @blp.response(200, ChallengeOut)
    def get(challenge_id: int) -> Any:
        """Progress and the aggregate result (points: a shared first place splits the point);
        a solo challenge's record against the Automa (`solo`: wins, score margins)."""
        return challenge_detail(service().engine, challenge_id)

    return blp
