"""A finished match's spectator frames: what the replay viewer draws (finished only; gzip,
strong ETag, immutable), derived from the public log by replaying it."""

from __future__ import annotations

import gzip
from typing import Any

from flask import Response, request
from flask_limiter import Limiter
from flask_smorest import Blueprint

from api.context import service
from api.replays import FRAMES
from api.schemas import ID_RULE as ID

FRAMES_DOC = {
    "200": {"description": "The frames document (`format: referee-frames`): the match header, "
                           "the board, and one frame per decision step after the start "
                           "(spectator view, events in words, decisions with labels, times "
                           "and strikes); gzip-encoded when the client accepts it.",
            "content": {"application/json": {"schema": {"type": "object"}}}},
    "304": {"description": "Not modified (If-None-Match matched the ETag)"},
}


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("frames", __name__, url_prefix="/api/v1",
                    description="Spectator frames of finished matches, for replay viewers")

    @blp.route(f"/matches/<{ID}:match_id>/frames", methods=["GET"])
    @limiter.limit("60 per minute")
    @blp.doc(responses=FRAMES_DOC)
    def get_frames(match_id: int) -> Any:
        """The spectator frames of a finished match: 409 while it (or a match sharing its
        seed) runs, or if its log cannot be replayed by this server's rules."""
        frames = FRAMES.get(service().engine, match_id)
        headers = {"ETag": frames.etag, "Cache-Control": "public, max-age=31536000, immutable",
                   "Vary": "Accept-Encoding"}
        presented = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
        if frames.etag in presented:
            return Response(status=304, headers=headers)
        if "gzip" in request.headers.get("Accept-Encoding", "").lower():
            return Response(frames.gz, status=200, mimetype="application/json",
                            headers={**headers, "Content-Encoding": "gzip"})
        return Response(gzip.decompress(frames.gz), status=200, mimetype="application/json",
                        headers=headers)

    return blp
