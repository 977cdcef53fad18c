"""Owners and tokens: `POST /owners` (first token, once), `/me`, `/me/tokens`."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api import actions
from api.auth import BEARER, address_key, owner_required, require_owner
from api.context import service
from api.schemas import (
    ID_RULE as ID, AlertArgs, AlertPage, MeOut, NewTokenOut, OwnerCreate, OwnerCreated, TokenCreate,
    TokenOut,
)
from ladder import ConflictError, accounts
from ladder.health import alerts
from ladder.registry import list_bots


class TokenList(ma.Schema):
    items = ma.fields.List(ma.fields.Nested(TokenOut), required=True)


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("owners", __name__, url_prefix="/api/v1",
                    description="Owners of bots and their API tokens")

    @blp.route("/owners", methods=["POST"])
    @limiter.limit("5 per hour", key_func=address_key)  # a token must not widen it
    @blp.arguments(OwnerCreate)
    @blp.response(201, OwnerCreated)
    def create_owner(body: dict[str, Any]) -> Any:
        """Create an owner; the answer carries its first token, shown this once."""
        owner, token = accounts.create_owner(service().engine, body["name"], body.get("email"))
        return {"owner": owner, "token": token}

    @blp.route("/me", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(200, MeOut)
    def me() -> Any:
        """The token's owner and their bots."""
        who = require_owner()
        engine = service().engine
        bots, _ = list_bots(engine, owner=who.owner_id, viewer=who.owner_id, per_page=10_000)
        return {**accounts.owner(engine, who.owner_id), "bots": bots}

    @blp.route("/me/tokens", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(200, TokenList)
    def list_tokens() -> Any:
        """Your tokens (never their secrets), with when each was last used."""
        who = require_owner()
        return {"items": accounts.tokens(service().engine, who.owner_id)}

    @blp.route("/me/tokens", methods=["POST"])
    @limiter.limit(actions.LIMITS["owners.mint_token"])
    @owner_required
    @blp.doc(security=BEARER, description=(
        f"An owner holds at most {accounts.MAX_TOKENS} active tokens (a 409 past that: "
        "revoke one first).  Rate limits count per owner, whichever token a request "
        "presents."))
    @blp.arguments(TokenCreate, required=False)
    @blp.response(201, NewTokenOut)
    def mint_token(body: dict[str, Any]) -> Any:
        """Mint a token; the secret is in this answer only."""
        who = require_owner()
        try:
            row, secret = accounts.mint_token(service().engine, who.owner_id,
                                              (body or {}).get("name", "token"))
        except ConflictError as exc:
            abort(409, message=f"{exc} (GET /api/v1/me/tokens lists them, "
                               "DELETE /api/v1/me/tokens/{id} revokes one)")
        return {**row, "token": secret}

    @blp.route(f"/me/tokens/<{ID}:token_id>", methods=["DELETE"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(204)
    def revoke_token(token_id: int) -> Any:
        """Revoke one of your tokens (it stops working at once)."""
        who = require_owner()
        accounts.revoke_token(service().engine, who.owner_id, token_id)
        return None

    @blp.route("/me/alerts", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(AlertArgs, location="query", unknown=ma.RAISE, as_kwargs=True)
    @blp.response(200, AlertPage)
    def my_alerts(page: int, per_page: int, bot: int | None = None) -> Any:
        """What happened to your bots on their own, newest first: a bot's ladder entries
        paused (3 failed health probes in a row, or 5 forfeits in a row) or resumed (2 good
        probes in a row after a pause).  Filter by bot."""
        who = require_owner()
        items, total = alerts(service().engine, who.owner_id, bot=bot, page=page,
                              per_page=per_page)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    return blp
