"""The API's one error shape, ``{code, status, message[, errors]}``, for every failure:
flask-smorest's own (a bad body, a 404), werkzeug's (a 405, a 429), the store's typed errors
and anything unexpected (a 500, logged with its traceback)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import flask_smorest
from flask import Flask
from werkzeug.exceptions import (
    Conflict, Forbidden, HTTPException, InternalServerError, NotFound, ServiceUnavailable,
    UnprocessableEntity,
)

from ladder import ConflictError, ForbiddenError, InvalidError, LadderError, NotFoundError

log = logging.getLogger("referee.api")
STORE_ERRORS: dict[type[LadderError], type[HTTPException]] = {
    NotFoundError: NotFound, ForbiddenError: Forbidden, ConflictError: Conflict,
    InvalidError: UnprocessableEntity,
}
STORAGE_DOWN = "the service's database cannot be reached just now; try again in a moment"
"""The 503 of any other storage failure: the detail (which names the database, its host,
user or file) goes to the log, never into an answer."""
MAX_LISTED_ERRORS = 20
"""An error body lists this many field errors at most (and says how many there were)."""


class ErrorShape(flask_smorest.Api):
    """flask-smorest with every error as ``{code, status, message[, errors]}`` and werkzeug's
    own ``Allow`` (405) and ``Retry-After`` (429, 503) headers kept (flask-smorest drops
    them)."""

    def handle_http_exception(self, error: HTTPException) -> Any:
        payload, code, headers = super().handle_http_exception(error)
        headers = dict(headers or {})
        for key, value in error.get_headers():
            if key.lower() in ("allow", "retry-after", "www-authenticate"):
                headers.setdefault(key, value)
        payload.setdefault("message", error.description or error.name)
        if isinstance(payload.get("errors"), dict):
            listed, total = cap_errors(payload["errors"], MAX_LISTED_ERRORS)
            if total > MAX_LISTED_ERRORS:
                payload["errors"] = listed
                payload["message"] = (f"{payload['message']} ({total} errors, the first "
                                      f"{MAX_LISTED_ERRORS} listed)")
        return payload, code, headers


def cap_errors(errors: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    """The first ``limit`` field errors of a nested error dict (each a list of messages at
    its path), and how many there were: a body of 10,000 unknown keys must not answer with
    10,000 lines."""
    leaves = list(_error_leaves(errors))
    kept: dict[str, Any] = {}
    for path, messages in leaves[:limit]:
        node = kept
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = messages
    return kept, len(leaves)


def _error_leaves(errors: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in errors.items():
        if isinstance(value, dict) and value:
            yield from (((key, *path), leaf) for path, leaf in _error_leaves(value))
        else:
            yield (key,), value


def register(app: Flask, api: ErrorShape) -> None:
    """The store's typed errors as their 4xx (any other storage failure a 503), anything
    else not an HTTP error a logged 500."""
    def store_error(exc: LadderError) -> Any:
        kind = next((http for cls, http in STORE_ERRORS.items() if isinstance(exc, cls)),
                    ServiceUnavailable)
        message = str(exc)
        if kind is ServiceUnavailable:
            log.error("storage: %s", exc)
            message = STORAGE_DOWN
        http = kind(description=message)
        http.data = {"message": message}  # type: ignore[attr-defined]
        return api.handle_http_exception(http)

    def unexpected(exc: Exception) -> Any:
        if isinstance(exc, HTTPException):
            return api.handle_http_exception(exc)
        log.exception("unhandled error")
        return api.handle_http_exception(InternalServerError(description="internal error"))

    app.register_error_handler(LadderError, store_error)
    app.register_error_handler(Exception, unexpected)
