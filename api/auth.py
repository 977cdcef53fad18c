"""Who is asking: the owner a bearer token names, the decorators that require one (or an
admin), and the keys the rate limits count by."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import g, request
from flask_smorest import abort

from api.context import service
from ladder import LadderError
from ladder.accounts import Principal, authenticate

BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""The OpenAPI security requirement of every operation that needs a token."""


def principal() -> Principal | None:
    """The request's owner from ``Authorization: Bearer <token>`` (cached per request)."""
    if "principal" not in g:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        found = None
        if scheme.lower() == "bearer" and token.strip():
            found = authenticate(service().engine, token.strip())
        g.principal = found
    result: Principal | None = g.principal
    return result


def require_owner() -> Principal:
    """The authenticated owner, or 401 (no token, a malformed, unknown or revoked one)."""
    found = principal()
    if found is None:
        abort(401, message="a valid token is required: Authorization: Bearer <token>",
              headers={"WWW-Authenticate": 'Bearer realm="referee"'})
    assert found is not None
    return found


def owner_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Authenticate before the body and query are validated: a request without a valid token
    is a 401 whatever else is wrong with it.  The view reads the owner with
    :func:`require_owner` (cached)."""
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        require_owner()
        return view(*args, **kwargs)
    return wrapper


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`owner_required`, and 403 for an owner who is not an admin."""
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not require_owner().is_admin:
            abort(403, message="this needs an admin's token")
        return view(*args, **kwargs)
    return wrapper


def rate_key() -> str:
    """Limits apply per owner when a valid token is presented (however many tokens it
    mints, an owner has one allowance), else per client address."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        try:
            found = principal()
        except LadderError:  # the database is down: the view answers 503 when it asks
            found = None
        if found is not None:
            return f"owner:{found.owner_id}"
    return address_key()


def address_key() -> str:
    """The client's address: the peer's, or what the trusted proxies say it is
    (``REFEREE_TRUSTED_PROXIES``).  The key of the limits an owner must not escape by
    presenting a token, e.g. creating owners."""
    return f"ip:{request.remote_addr or 'unknown'}"
