"""Bulk export: every finished match, cursor-paginated, with where its log is."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import caching
from api.context import service
from api.schemas import ExportOut, export_args_schema
from ladder import reads


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("export", __name__, url_prefix="/api/v1",
                    description="Bulk export of finished matches and their logs")

    @blp.route("/export/matches", methods=["GET"])
    @limiter.limit("10 per minute")
    @blp.arguments(export_args_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, ExportOut)
    def export_matches(after_id: int, limit: int, game: str | None = None) -> Any:
        """Finished matches with an id above `after_id`, oldest first, each with its seats,
        result, rating changes and log URL (and the log's SHA-256 and size).  Pass
        `next_after_id` as `after_id` for the next page.  The export never skips a match:
        it stops before the first one not over yet (`waiting_on`), so come back later for
        the rest; voided matches have no log and are passed over."""
        answer = caching.kept()  # after this route's own rate limit
        if answer is not None:
            return answer
        return reads.export_matches(service().engine, game=game, after_id=after_id,
                                    limit=limit)

    return blp
