"""The owner's home, ``/me``: their bots on each ladder (placement, pauses and what lifts them),
latest strikes, alerts and checks; and the forms that act on them (pause, resume, leave or
join a ladder; enter or withdraw from a solo ladder; check a bot; challenge, solo or not; mint
and revoke tokens).

Every form works without JavaScript and posts this session's CSRF token
(:func:`api.pages.session.check_csrf`: a 400 page without it).  Each does its work through the
same functions as the API (:mod:`api.actions`, :mod:`ladder.accounts`) and counts against the
same per-owner rate limits (:data:`api.actions.LIMITS`: one allowance, whichever door); the
request guards' body limit applies to forms as to JSON.  A refused action (someone else's bot:
403 or 404; a state that does not allow it: 409; bad input: 422) is a page that says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma
from flask import (
    Blueprint, flash, get_flashed_messages, redirect, render_template, request, url_for,
)
from flask_limiter import Limiter
from werkzeug.exceptions import BadRequest, Unauthorized
from werkzeug.wrappers import Response

from api import actions
from api.auth import address_key
from api.context import service
from api.pages import session as login
from api.pages.owner_state import bot_states, solo_state
from api.pages.query import query, whole
from api.schemas import ID_MAX, ID_RULE as ID, TokenCreate, challenge_create_schema
from ladder import (
    ConflictError, InvalidError, NotFoundError, accounts, checks, owner_reads, reads, registry,
    solo_ladder,
)
from ladder.health import alerts
from ladder.models import ACTIVE, RETIRED

LADDER_ACTIONS = {"join": {"active": True}, "leave": {"active": False},
                  "pause": {"paused": True}, "resume": {"paused": False}}
SOLO_ACTIONS = {"enter": True, "withdraw": False}
SEATS = 4
"""Opponent fields of the challenge form: enough for the largest table (Doubletrack's 4)."""
ALERTS_SHOWN = 10
REFRESH_S = 3
"""How often a pending check's page reloads itself (a meta refresh: no script needed)."""


def add_routes(blp: Blueprint, limiter: Limiter) -> None:
    """The owner pages, on the pages blueprint."""
    def same_as(endpoint: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """The API endpoint's limit, counted in its bucket for this owner."""
        return limiter.shared_limit(actions.LIMITS[endpoint], scope=endpoint,
                                    key_func=owner_key)

    blp.add_url_rule("/me", "me", me)
    blp.add_url_rule(f"/me/bots/<{ID}:bot_id>/ladders/<string(maxlength=64):game>",
                     "me_ladder", same_as("bot_ladders.set_entry")(ladder_entry),
                     methods=["POST"])
    blp.add_url_rule(f"/me/bots/<{ID}:bot_id>/solo-ladders/<string(maxlength=64):game>",
                     "me_solo", same_as("solo.set_entry")(solo_entry), methods=["POST"])
    blp.add_url_rule(f"/me/bots/<{ID}:bot_id>/check", "me_check",
                     same_as("bots.check_bot")(start_check), methods=["POST"])
    blp.add_url_rule(f"/me/bots/<{ID}:bot_id>/checks/<{ID}:check_id>", "me_check_report",
                     check_report)
    blp.add_url_rule("/me/challenges", "me_challenge",
                     same_as("challenges.create")(challenge), methods=["POST"])
    blp.add_url_rule("/me/tokens", "me_token", same_as("owners.mint_token")(mint_token),
                     methods=["POST"])
    blp.add_url_rule(f"/me/tokens/<{ID}:token_id>/revoke", "me_revoke", revoke_token,
                     methods=["POST"])


def owner_key() -> str:
    """The rate limits' key: the owner, as the API's is for a token (``owner:ID``)."""
    me = login.viewer()
    return f"owner:{me['id']}" if me else address_key()


# -- the home page ----------------------------------------------------------------------------

def me() -> Response:
    q = query(challenge=whole(1, ID_MAX))
    who = login.viewer()
    if who is None:
        return redirect(url_for(".login", next=request.full_path.rstrip("?")))
    return private(render_template("pages/me.html", **home(who["id"]),
                                   opponent=q.get("challenge"), notes=get_flashed_messages()))


def home(owner_id: int) -> dict[str, Any]:
    """Everything ``/me`` shows, read through the same functions the API answers from."""
    engine = service().engine
    bots, _ = registry.list_bots(engine, owner=owner_id, viewer=owner_id, per_page=10_000)
    solo = solo_games()
    for b in bots:
        b["states"] = bot_states(b)
        b["solo"] = [solo_state(e) for e in solo_ladder.entries_of(engine, b["id"])
                     ] if any(g in solo for g in b["games"]) else []
        found, _ = checks.list_checks(engine, b["id"], 1, 1)
        b["last_check"] = found[0] if found else None
    strikes = owner_reads.latest_strikes(engine, [b["id"] for b in bots])
    shown, total = alerts(engine, owner_id, per_page=ALERTS_SHOWN)
    return {"bots": [b for b in bots if b["status"] != RETIRED],
            "retired": [b for b in bots if b["status"] == RETIRED],
            "strikes": strikes, "alerts": shown, "alerts_total": total,
            "tokens": accounts.tokens(engine, owner_id), "max_tokens": accounts.MAX_TOKENS,
            "challenges": [reads.challenge_detail(engine, c)
                           for c in owner_reads.challenge_ids(engine, owner_id)],
            "opponents": owner_reads.opponents(engine), "solo_games": solo,
            "solo_bots": {g: [b for b in bots if b["status"] == ACTIVE and g in b["games"]]
                          for g in solo},
            "seats": SEATS, "limits": actions.LIMITS}


def owner_only() -> int:
    """The logged-in owner posting a form from this site: 401 page without a session, 400
    without this session's CSRF token."""
    query()
    who = login.viewer()
    if who is None:
        raise Unauthorized("Log in first: these forms act for a logged-in owner.")
    login.check_csrf()
    return int(who["id"])


def refused(owner_id: int, exc: Exception, code: int) -> Response:
    """The home page again, saying why the form was refused (a 409 or 422)."""
    return private(render_template("pages/me.html", **home(owner_id), opponent=None,
                                   notes=get_flashed_messages(), problem=str(exc)), code)


def private(body: str, status: int = 200) -> Response:
    """An owner's page: never kept by a cache (a shared one, or the browser's history)."""
    response = Response(body, status=status, mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"
    return response


def back(note: str, anchor: str = "") -> Response:
    flash(note)
    return redirect(url_for(".me") + (f"#{anchor}" if anchor else ""), code=303)


# -- ladders, checks, challenges --------------------------------------------------------------

def ladder_entry(bot_id: int, game: str) -> Response:
    owner_id = owner_only()
    action = request.form.get("action", "")
    if action not in LADDER_ACTIONS:
        raise BadRequest(f"action: {action[:40]!r} is not one of {', '.join(LADDER_ACTIONS)}")
    try:
        actions.set_ladder_entry(owner_id, bot_id, game, **LADDER_ACTIONS[action])
    except ConflictError as exc:
        return refused(owner_id, exc, 409)
    done = {"join": "joined", "leave": "left", "pause": "paused", "resume": "resumed"}[action]
    return back(f"Bot {bot_id} {done} the {titled(game)} ladder.", f"bot-{bot_id}")


def solo_games() -> dict[str, list[int]]:
    """The games played here that have a solo mode, with their Automa's levels."""
    from referee.games import find_game

    return {g: list(find_game(g).solo_levels) for g in service().games
            if find_game(g).solo_levels}


def solo_entry(bot_id: int, game: str) -> Response:
    """Enter or withdraw the bot on ``game``'s solo ladder at the form's ``level``."""
    owner_id = owner_only()
    action = request.form.get("action", "")
    if action not in SOLO_ACTIONS:
        raise BadRequest(f"action: {action[:40]!r} is not one of {', '.join(SOLO_ACTIONS)}")
    level = as_id(request.form.get("level", ""))
    if not isinstance(level, int):
        return refused(owner_id, InvalidError(f"level: {level[:40]!r} is not a level"), 422)
    try:
        actions.set_solo_entry(owner_id, bot_id, game, level, SOLO_ACTIONS[action])
    except (ConflictError, NotFoundError) as exc:  # not entered, no such level: say so
        return refused(owner_id, exc, 409 if isinstance(exc, ConflictError) else 404)
    done = "entered" if SOLO_ACTIONS[action] else "withdrew from"
    return back(f"Bot {bot_id} {done} the {titled(game)} solo ladder, level {level}.",
                f"bot-{bot_id}")


def start_check(bot_id: int) -> Response:
    owner_id = owner_only()
    game = request.form.get("game", "").strip() or None
    try:
        check, _ = actions.request_check(owner_id, bot_id, game)
    except (ConflictError, InvalidError) as exc:
        return refused(owner_id, exc, 409 if isinstance(exc, ConflictError) else 422)
    return redirect(url_for(".me_check_report", bot_id=bot_id, check_id=check["id"]), code=303)


def check_report(bot_id: int, check_id: int) -> Response:
    query()
    who = login.viewer()
    if who is None:
        return redirect(url_for(".login", next=request.path))
    engine = service().engine
    bot = registry.owned_bot(engine, who["id"], bot_id, allow_retired=True)
    found = checks.check_detail(engine, bot_id, check_id)
    return private(render_template("pages/me_check.html", bot=bot, check=found,
                                   pending=found["state"] in checks.PENDING, refresh=REFRESH_S))


def challenge() -> Response:
    owner_id = owner_only()
    form = request.form
    bots = [form.get("bot", "")] + [form.get(f"opponent{n}", "") for n in range(1, SEATS)]
    body: dict[str, Any] = {"game": form.get("game", ""),
                            "bots": [as_id(b) for b in bots if b.strip()]}
    for field in ("games", "automa_level"):
        if form.get(field, "").strip():
            body[field] = as_id(form[field])
    try:
        checked = challenge_create_schema(service().games)().load(body)
        found = actions.start_challenge(owner_id, checked["game"], checked["bots"],
                                        checked.get("games"), checked.get("automa_level"))
    except ma.ValidationError as exc:
        return refused(owner_id, InvalidError(flat(exc.messages)), 422)
    except InvalidError as exc:
        return refused(owner_id, exc, 422)
    against = (f" against the Automa at level {checked['automa_level']}"
               if checked.get("automa_level") is not None else "")
    return back(f"Challenge {found['id']} queued: {len(found['match_ids'])} unrated "
                f"{titled(found['game'])} matches{against}.", "challenges")


# -- tokens -----------------------------------------------------------------------------------

def mint_token() -> Response:
    """The new token on a page of its own, shown this once (never stored in the session or
    a URL, so never shown again)."""
    owner_id = owner_only()
    try:
        name = TokenCreate().load({"name": request.form.get("name", "").strip() or "token"})
        row, secret = accounts.mint_token(service().engine, owner_id, name["name"])
    except ma.ValidationError as exc:
        return refused(owner_id, InvalidError(flat(exc.messages)), 422)
    except ConflictError as exc:
        return refused(owner_id, exc, 409)
    return private(render_template("pages/me_token.html", token=row, secret=secret), 201)


def revoke_token(token_id: int) -> Response:
    """Revoke one of the owner's tokens; revoking the one this session logged in with ends
    the session too (as it would at the next request), back at the login form."""
    owner_id = owner_only()
    accounts.revoke_token(service().engine, owner_id, token_id)  # someone else's: a 404
    if login.session_token_id() == token_id:
        login.log_out()
        flash(f"Token {token_id} revoked: it works no more, and this session ended with it.")
        return redirect(url_for(".login", next=url_for(".me")), code=303)
    return back(f"Token {token_id} revoked: it works no more.", "tokens")


# -- helpers ----------------------------------------------------------------------------------

def as_id(text: str) -> int | str:
    """A form's number as an int for the API's schema to check; anything else as it came,
    for the schema to refuse with its own message."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else text


def flat(messages: Any) -> str:
    """marshmallow's messages as one line: ``field: problem; ...``."""
    if isinstance(messages, dict):
        return "; ".join(f"{k}: {flat(v)}" for k, v in messages.items())
    if isinstance(messages, list):
        return ", ".join(flat(m) for m in messages)
    return str(messages)


def titled(game: str) -> str:
    from referee.games import find_game

    return str(find_game(game).title) if game in service().games else game
