"""A match's spectator frames: what the replay viewer draws.  A finished match's (gzip, strong
ETag, immutable) are derived from the public log by replaying it; a running match's
(``/live``, polled) from its progress so far, only while no match sharing its seed is
unfinished (:mod:`api.live`)."""

from __future__ import annotations

import gzip
import json
from typing import Any

import marshmallow as ma
from flask import Response, request
from flask_limiter import Limiter
from flask_smorest import Blueprint

from api import caching
from api.context import service
from api.live import live_document
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
                    description="Spectator frames of finished and running matches, for replay viewers")

    @blp.route(f"/matches/<{ID}:match_id>/frames", methods=["GET"])
    @limiter.limit("60 per minute")
    @blp.doc(responses=FRAMES_DOC)
    def get_frames(match_id: int) -> Any:
        """The spectator frames of a finished match: 409 while it (or a match sharing its
        seed) runs, or if its log cannot be replayed by this server's rules."""
        answer = caching.kept()  # after this route's own rate limit
        if answer is not None:
            return answer
        frames = FRAMES.get(service().engine, match_id)
        headers = {"ETag": frames.etag, "Cache-Control": "public, max-age=31536000, immutable",
                   "Vary": "Accept-Encoding"}
        presented = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
        if frames.etag in presented:
            return Response(status=304, headers=headers)
        if caching.accepts_gzip():
            return Response(frames.gz, status=200, mimetype="application/json",
                            headers={**headers, "Content-Encoding": "gzip"})
        return Response(gzip.decompress(frames.gz), status=200, mimetype="application/json",
                        headers=headers)

    @blp.route(f"/matches/<{ID}:match_id>/live", methods=["GET"])
    @limiter.limit("120 per minute")
    @blp.arguments(LiveArgs, location="query", unknown=ma.RAISE)
    @blp.doc(responses=LIVE_DOC)
    def get_live(args: dict[str, Any], match_id: int) -> Any:
        """A running match's spectator frames so far, from frame `since` on (poll it every
        second or so, with `since` the number of frames you have; `attempt` changes if the
        match is played again from the start; a `state` other than `running` means there is
        nothing live: a finished match's frames are at `/frames`).  409 with the reason
        while a match sharing its seed is unfinished: live after the pair ends."""
        doc = live_document(service().engine, match_id, service().mode, args["since"])
        return Response(json.dumps(doc, separators=(",", ":"), ensure_ascii=False),
                        status=200, mimetype="application/json",
                        headers={"Cache-Control": "no-store"})

    return blp


class LiveArgs(ma.Schema):
    since = ma.fields.Integer(load_default=0, validate=ma.validate.Range(0, 1_000_000),
                              metadata={"description": "frames already held: the answer "
                                                       "starts at this frame"})


LIVE_DOC = {
    "200": {"description": "`match_id`, `state` (running), `attempt`, `since`, `total` (frames "
                           "so far) and `frames` from `since` on; with `since=0` also "
                           "`format`, `version`, `match` (no result yet) and `board`, as in "
                           "a frames document. `frames` is empty until the match has started, "
                           "and once it is over.",
            "content": {"application/json": {"schema": {"type": "object"}}}},
}
