"""Matches: lists, details, and logs (finished only; gzip, strong ETag, immutable)."""

from __future__ import annotations

import gzip
from typing import Any

import marshmallow as ma
from flask import Response, request
from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import caching
from api.auth import BEARER, owner_required, require_owner
from api.context import service
from api.schemas import ID_RULE as ID, MatchOut, MatchPage, SeatLogOut, match_filter_schema
from ladder import reads

LOG_DOC = {
    "200": {"description": "The match log (the match-log contract, bots' own `log` lines "
                           "removed); gzip-encoded when the client accepts it.",
            "content": {"application/json": {"schema": {"type": "object"}}}},
    "304": {"description": "Not modified (If-None-Match matched the ETag)"},
}


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("matches", __name__, url_prefix="/api/v1",
                    description="Matches: scheduled, running, finished or voided")

    @blp.route("/matches", methods=["GET"])
    @blp.arguments(match_filter_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, MatchPage)
    def list_matches(page: int, per_page: int, **filters: Any) -> Any:
        """Matches, newest first; filter by game, bot, state, rated, challenge."""
        items, total = reads.list_matches(service().engine, page=page, per_page=per_page,
                                          **filters)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/matches/<{ID}:match_id>", methods=["GET"])
    @blp.response(200, MatchOut)
    def get_match(match_id: int) -> Any:
        """A match: seats, result, end reason, strikes with reasons, timings, rating changes.
        The seed appears once the match and every match sharing its seed are over."""
        return reads.match_detail(service().engine, match_id)

    @blp.route(f"/matches/<{ID}:match_id>/log", methods=["GET"])
    @limiter.limit("60 per minute")
    @blp.doc(responses=LOG_DOC)
    def get_log(match_id: int) -> Any:
        """The log of a finished match: 409 while it (or a match sharing its seed) runs."""
        answer = caching.kept()  # after this route's own rate limit
        if answer is not None:
            return answer
        gz, sha = reads.match_log(service().engine, match_id)
        etag = f'"{sha}"'
        headers = {"ETag": etag, "Cache-Control": "public, max-age=31536000, immutable",
                   "Vary": "Accept-Encoding"}
        if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
            return Response(status=304, headers=headers)
        if caching.accepts_gzip():
            return Response(gz, status=200, mimetype="application/json",
                            headers={**headers, "Content-Encoding": "gzip"})
        return Response(gzip.decompress(gz), status=200, mimetype="application/json",
                        headers=headers)

    @blp.route(f"/matches/<{ID}:match_id>/seats/<int(max=15):seat>/log", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(200, SeatLogOut)
    def get_seat_log(match_id: int, seat: int) -> Any:
        """Your bot's own `log` lines from one match (owner only)."""
        who = require_owner()
        return reads.seat_log(service().engine, match_id, seat, who.owner_id)

    return blp
