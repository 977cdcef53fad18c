"""What every request must be before a view reads it: a body within bounds, JSON an API
operation can parse safely, no query string where an operation takes none.  They run
``before_request`` and answer in the API's error shape (``abort``)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, request
from flask_smorest import abort

from referee.protocol import decode_json

MAX_BODY_BYTES = 64 * 1024
"""The largest request body.  The largest legitimate one, a bot's registration with a
2,000-character URL and description, each character an escaped astral one (12 bytes), is
under 50 KB."""
MAX_JSON_DEPTH = 32
"""How deep a request's JSON may nest (the schemas need 2 levels).  The standard library's
parser, which webargs uses, recurses: past about 1,000 levels it raises RecursionError."""


def register(app: Flask) -> None:
    """The guards, in the order they run; ``MAX_CONTENT_LENGTH`` caps what a chunked body
    may make the first one read."""
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES + 1  # a chunked body is read one byte past
    app.before_request(refuse_large_body)
    app.before_request(require_json_body)
    app.before_request(refuse_undeclared_query)


def api_operation() -> dict[str, Any] | None:
    """The OpenAPI description of the request's view, None for anything else (the pages)."""
    view = current_app.view_functions.get(request.endpoint or "")
    doc: dict[str, Any] | None = getattr(view, "_apidoc", None)
    return doc


def reads_own_body() -> bool:
    """Whether the request's view reads its body itself, as a bot's answer, whose size and
    JSON are the match's to judge (a strike), not the guards' (``api.routes.pull``)."""
    view = current_app.view_functions.get(request.endpoint or "")
    return bool(getattr(view, "_raw_body", False))


def refuse_large_body() -> None:
    """413 for a body over :data:`MAX_BODY_BYTES`: one that declares its length is refused
    unread; a chunked one is read up to one byte past the limit (``MAX_CONTENT_LENGTH``
    stops it there) and kept for the views."""
    if reads_own_body():
        return
    size = request.content_length
    if size is None and "chunked" in request.headers.get("Transfer-Encoding", "").lower():
        size = len(request.get_data(cache=True))
    if (size or 0) > MAX_BODY_BYTES:
        abort(413, message=f"the body is over {MAX_BODY_BYTES // 1024} KiB, "
                           "the most this service takes")


def require_json_body() -> None:
    """415 for a body that is not JSON (flask-smorest would call it missing: a confusing 422),
    400 for JSON that the schemas' parser could not take safely.

    webargs parses with the standard library, which recurses (a RecursionError, so a 500,
    past about 1,000 levels) and refuses integers of over 4,300 digits with a ValueError (a
    500 too).  :func:`referee.protocol.decode_json` reads the body first, as it reads a bot's
    answers: strict JSON (no NaN, no invalid Unicode, no number beyond a double's range, so
    no integer of over 309 digits), at most :data:`MAX_JSON_DEPTH` levels deep.  The pages'
    forms are not API operations: they post form data."""
    if request.routing_exception is not None or request.method not in ("POST", "PUT", "PATCH"):
        return
    if api_operation() is None or reads_own_body():
        return
    has_body = bool(request.content_length) or "chunked" in request.headers.get(
        "Transfer-Encoding", "").lower()
    if not has_body:
        return
    if not request.is_json:
        abort(415, message="send the body as JSON (Content-Type: application/json)")
    body = request.get_data(cache=True)
    if not body:
        return  # an empty chunked body: the schemas say whether one is needed
    try:
        decode_json(body, max_depth=MAX_JSON_DEPTH)
    except ValueError as exc:
        abort(400, message=f"the body is not JSON this service reads: {exc}")


def refuse_undeclared_query() -> None:
    """A query string on an endpoint that takes none is a 422, like an unknown parameter of
    one that does (those are refused by their schemas, ``unknown=RAISE``)."""
    if request.routing_exception is not None or not request.args:
        return
    doc = api_operation()
    if doc is None:
        return  # not an API operation (the docs page, the pages check their own)
    declared = doc.get("arguments", {}).get("parameters", [])
    if any(p.get("in") == "query" for p in declared):
        return
    abort(422, message="this endpoint takes no query parameters",
          errors={"query": {name: ["Unknown field."] for name in request.args}})
