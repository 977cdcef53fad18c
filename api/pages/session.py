"""Logging in to the pages with an API token: Flask's signed session cookie, and CSRF tokens.

The cookie holds the owner and the id of the token they logged in with, never the token
itself (the cookie is signed, not encrypted).  Every request checks that this token is still
live, so revoking it (``DELETE /api/v1/me/tokens/{id}``) or suspending the owner ends the page
session too.  Each form carries a per-session random token in a hidden field, compared in
constant time on POST; the cookie is ``SameSite=Lax`` and ``HttpOnly`` as a second line.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import g, request, session
from werkzeug.exceptions import BadRequest

from api.context import service
from ladder.pages_reads import live_session

CSRF_FIELD = "csrf"


def viewer() -> dict[str, Any] | None:
    """The logged-in owner (``{id, name, is_admin}``) or None; a dead session is cleared."""
    if "viewer" not in g:
        found = None
        owner_id, token_id = session.get("owner_id"), session.get("token_id")
        if isinstance(owner_id, int) and isinstance(token_id, int):
            found = live_session(service().engine, owner_id, token_id)
            if found is None:
                session.pop("owner_id", None)
                session.pop("token_id", None)
        g.viewer = found
    result: dict[str, Any] | None = g.viewer
    return result


def session_token_id() -> int | None:
    """The id of the token this session logged in with (None when logged out)."""
    token_id = session.get("token_id")
    return token_id if isinstance(token_id, int) else None


def log_in(owner_id: int, token_id: int) -> None:
    """A fresh session (a new CSRF token too: no value chosen before login survives it)."""
    session.clear()
    session["owner_id"], session["token_id"] = owner_id, token_id
    session[CSRF_FIELD] = secrets.token_urlsafe(32)


def log_out() -> None:
    session.clear()


def csrf_token() -> str:
    """This session's form token (created, and the cookie set, on first use)."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return token


def check_csrf() -> None:
    """400 unless the posted form carries this session's token."""
    expected = session.get(CSRF_FIELD)
    given = request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(),
                                                                given.encode()):
        raise BadRequest("this form has expired or did not come from this site: reload the "
                         "page and send it again")
