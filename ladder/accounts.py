"""Owners and their API tokens (the service's accounts).

A token reads ``rk_<id>_<secret>``: the id finds the row, the secret is checked against its
stored SHA-256 with a constant-time comparison.  The secret is shown once, at minting, and
never stored; a revoked token stays in the table (its owner can see when it was last used).
An owner holds at most :data:`MAX_TOKENS` active tokens: they are for an owner's machines
and scripts, not a way to multiply anything.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, overload

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ladder import ConflictError, NotFoundError
from ladder.db import reader, translate_errors
from ladder.models import MAX_ID, ApiToken, Owner

TOKEN_RE = re.compile(r"rk_([0-9]{1,10})_([A-Za-z0-9_-]{20,100})")
LAST_USED_RESOLUTION = timedelta(seconds=60)
"""``last_used_at`` is written at most this often per token: not one write per request."""
MAX_TOKENS = 10
"""Active (unrevoked) tokens an owner may hold at once."""


@dataclass(frozen=True)
class Principal:
    """Who a request acts for."""

    owner_id: int
    token_id: int
    is_admin: bool


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


@overload
def utc(moment: datetime) -> datetime: ...


@overload
def utc(moment: datetime | None) -> datetime | None: ...


def utc(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; they were stored in UTC."""
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_owner(engine: Engine, name: str, email: str | None = None) -> tuple[dict[str, Any], str]:
    """A new owner and its first token (the secret, shown once); ConflictError if taken."""
    now = now_utc()
    try:
        with translate_errors(engine, keep=(IntegrityError,)), engine.begin() as conn:
            owner_id = conn.execute(insert(Owner).values(
                name=name, email=email, is_admin=False, created_at=now).returning(Owner.id)
            ).scalar_one()
            token = _mint(conn, owner_id, "first token", now)
    except IntegrityError:
        raise ConflictError(f"the owner name {name!r} is taken") from None
    return owner(engine, owner_id), token


def owner(engine: Engine, owner_id: int) -> dict[str, Any]:
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(Owner.__table__).where(Owner.id == owner_id)).one_or_none()
        if row is None:
            raise NotFoundError(f"no owner {owner_id}")
        return {"id": row.id, "name": row.name, "email": row.email, "is_admin": row.is_admin,
                "created_at": utc(row.created_at)}


def mint_token(engine: Engine, owner_id: int, name: str) -> tuple[dict[str, Any], str]:
    """A new token for ``owner_id``: its row and the secret (shown once); ConflictError at
    :data:`MAX_TOKENS` active ones.  The owner's row is locked while counting, so two mints
    at once cannot both take the last place (SQLite's write lock does as much)."""
    now = now_utc()
    with translate_errors(engine), engine.begin() as conn:
        conn.execute(select(Owner.id).where(Owner.id == owner_id).with_for_update())
        live = conn.execute(select(func.count()).select_from(ApiToken).where(
            ApiToken.owner_id == owner_id, ApiToken.revoked_at.is_(None))).scalar_one()
        if live >= MAX_TOKENS:
            raise ConflictError(f"you hold {live} active tokens, the most an owner may: "
                                "revoke one before minting another")
        secret = _mint(conn, owner_id, name, now)
    token_id = int(TOKEN_RE.fullmatch(secret).group(1))  # type: ignore[union-attr]
    return next(t for t in tokens(engine, owner_id) if t["id"] == token_id), secret


def _mint(conn: Any, owner_id: int, name: str, now: datetime) -> str:
    secret = secrets.token_urlsafe(32)
    token_id = conn.execute(insert(ApiToken).values(
        owner_id=owner_id, sha256=_hash(secret), name=name, created_at=now)
        .returning(ApiToken.id)).scalar_one()
    return f"rk_{token_id}_{secret}"


def tokens(engine: Engine, owner_id: int) -> list[dict[str, Any]]:
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(select(ApiToken.__table__).where(ApiToken.owner_id == owner_id)
                            .order_by(ApiToken.id)).all()
        return [{"id": t.id, "name": t.name, "created_at": utc(t.created_at),
                 "last_used_at": utc(t.last_used_at), "revoked_at": utc(t.revoked_at)}
                for t in rows]


def revoke_token(engine: Engine, owner_id: int, token_id: int) -> None:
    """Revoke one of ``owner_id``'s tokens; NotFoundError for another owner's (no leak)."""
    with translate_errors(engine), engine.begin() as conn:
        row = conn.execute(select(ApiToken.owner_id, ApiToken.revoked_at)
                           .where(ApiToken.id == token_id)).one_or_none()
        if row is None or row.owner_id != owner_id:
            raise NotFoundError(f"you have no token {token_id}")
        if row.revoked_at is None:
            conn.execute(update(ApiToken).where(ApiToken.id == token_id)
                         .values(revoked_at=now_utc()))


def authenticate(engine: Engine, presented: str) -> Principal | None:
    """The principal of a live token, or None (malformed, unknown, wrong secret, revoked,
    suspended owner): the caller answers 401 without saying which."""
    match = TOKEN_RE.fullmatch(presented)
    if match is None or int(match.group(1)) > MAX_ID:
        return None
    token_id, secret = int(match.group(1)), match.group(2)
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(
            select(ApiToken.sha256, ApiToken.revoked_at, ApiToken.last_used_at,
                   Owner.id, Owner.is_admin, Owner.suspended_at)
            .join(Owner, Owner.id == ApiToken.owner_id).where(ApiToken.id == token_id)
        ).one_or_none()
    if row is None or not hmac.compare_digest(row.sha256, _hash(secret)):
        return None
    if row.revoked_at is not None or row.suspended_at is not None:
        return None
    now = now_utc()
    last = utc(row.last_used_at)
    if last is None or now - last > LAST_USED_RESOLUTION:
        with translate_errors(engine), engine.begin() as conn:
            conn.execute(update(ApiToken).where(ApiToken.id == token_id)
                         .values(last_used_at=now))
    return Principal(row.id, token_id, row.is_admin)
