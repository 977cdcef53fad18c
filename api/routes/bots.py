"""Bots: register (URL policy and a `GET /` probe), list, read, change, retire, check."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Any

import marshmallow as ma
from flask import url_for
from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api import actions, execution
from api.auth import BEARER, owner_required, principal, require_owner
from api.context import service
from api.schemas import (
    ID_RULE as ID, BotMatchPage, BotOut, BotPage, CheckOut, CheckPage, HeadToHeadPage, PageArgs,
    RatingPage, bot_create_schema, bot_filter_schema, bot_matches_args_schema, bot_update_schema,
    check_args_schema, head_to_head_args_schema, rating_args_schema,
)
from ladder import NotFoundError, checks, matchmaking, pages_reads as more, reads, registry
from ladder.models import ACTIVE, PULL, UNVERIFIED
from referee.netpolicy import BlockedUrl


def probe_or_422(url: str, games: list[str]) -> float:
    """The URL policy, then `GET /` (5 s, 64 KiB): a 422 naming what failed; the latency."""
    from referee.protocol import info_errors

    svc = service()
    try:
        svc.policy.check(url)
    except BlockedUrl as exc:
        abort(422, message=f"bot URL refused: {exc}", errors={"json": {"url": [str(exc)]}})
    found = execution.probe(url, svc.policy)
    if found.problem:
        abort(422, message=f"GET {url}/ failed: {found.problem}",
              errors={"json": {"url": [found.problem]}})
    problems = info_errors(found.info)
    listed = found.info.get("games") if isinstance(found.info, dict) else None
    if isinstance(listed, list):
        problems += [f"games: the bot does not list {g!r}" for g in games if g not in listed]
    if problems:
        abort(422, message=f"GET {url}/ is not a protocol v1 bot document",
              errors={"json": {"url": problems[:20]}})
    return found.ms


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("bots", __name__, url_prefix="/api/v1", description=(
        "HTTP bots and the house bots (random, greedy, mcts). Where the service requires "
        "ownership proof (by default whenever bot URLs must be public addresses), a new bot "
        "is `unverified` and plays nothing until its `GET /` document carries "
        "`\"verify\": \"<verify_nonce>\"` (the nonce its owner sees in the bot) and a check "
        "(`POST /bots/{id}/check`) passes."))

    @blp.route("/bots", methods=["POST"])
    @limiter.limit("10 per hour")
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(bot_create_schema(games))
    @blp.response(201, BotOut)
    def create_bot(body: dict[str, Any]) -> Any:
        """Register a bot: the URL must pass the address policy and answer `GET /`; or, in
        pull mode, a bot without an address that connects out (`GET /bots/{id}/requests`).

        It joins the living ladder of each of its games (placement: 10 rated games), unless
        `ladder` is false; `PUT /bots/{id}/ladders/{game}` joins, leaves, pauses, resumes.

        With ownership proof on (the default when bot URLs must be public addresses), the bot
        stays `unverified`, playing nothing, until its `GET /` echoes the returned
        `verify_nonce` as `verify` and a check passes (`POST /bots/{id}/check`).  A URL
        another owner's live bot uses is a 409."""
        who = require_owner()
        svc = service()
        if body["mode"] == PULL:
            bot_id = register_pull(who.owner_id, body)
        else:
            ms = probe_or_422(body["url"], body["games"])
            status = UNVERIFIED if svc.config.proves_ownership else ACTIVE
            bot_id = registry.register_bot(
                svc.engine, who.owner_id, name=body["name"], url=body["url"].rstrip("/"),
                games=sorted(set(body["games"])), description=body["description"],
                status=status, nonce=secrets.token_urlsafe(18))
            registry.record_health(svc.engine, bot_id, True, ms, "ok", "registration probe")
        if body["ladder"]:
            join_ladders(bot_id, sorted(set(body["games"])))
        return registry.bot_detail(svc.engine, bot_id, viewer=who.owner_id)

    @blp.route("/bots", methods=["GET"])
    @blp.arguments(bot_filter_schema(games), location="query", unknown=ma.RAISE, as_kwargs=True)
    @blp.response(200, BotPage)
    def list_bots(page: int, per_page: int, **filters: Any) -> Any:
        """Bots, by id; filter by game, owner and status (default: every non-CLI bot)."""
        who = principal()
        items, total = registry.list_bots(service().engine,
                                          viewer=who.owner_id if who else None,
                                          page=page, per_page=per_page, **filters)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/bots/<{ID}:bot_id>", methods=["GET"])
    @blp.response(200, BotOut)
    def get_bot(bot_id: int) -> Any:
        """A bot's profile (its URL and nonce only for its owner)."""
        who = principal()
        return registry.bot_detail(service().engine, bot_id,
                                   viewer=who.owner_id if who else None)

    @blp.route(f"/bots/<{ID}:bot_id>", methods=["PATCH"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(bot_update_schema(games))
    @blp.response(200, BotOut)
    def update_bot(body: dict[str, Any], bot_id: int) -> Any:
        """Change your bot; a new URL is probed again and bumps the bot's version (it plays 5
        placement games again; with ownership proof on, it is `unverified` until a check of
        the new URL passes).  A URL another owner's live bot uses is a 409.  A game taken off
        `games` leaves its ladder; a game added joins its ladder if the bot is on one
        already."""
        who = require_owner()
        svc = service()
        current = registry.owned_bot(svc.engine, who.owner_id, bot_id)
        changes = dict(body)
        if "url" in changes and current["mode"] == PULL:
            abort(422, message="a pull bot has no URL: register a push bot instead",
                  errors={"json": {"url": ["a pull bot has no URL"]}})
        if "url" in changes:
            changes["url"] = changes["url"].rstrip("/")
            probe_or_422(changes["url"], changes.get("games", current["games"]))
        if "games" in changes:
            changes["games"] = sorted(set(changes["games"]))
        registry.update_bot(svc.engine, who.owner_id, bot_id, changes,
                            reverify=svc.config.proves_ownership)
        if "games" in changes:
            follow_games(bot_id, current["games"], changes["games"])
        return registry.bot_detail(svc.engine, bot_id, viewer=who.owner_id)

    @blp.route(f"/bots/<{ID}:bot_id>", methods=["DELETE"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(204)
    def retire_bot(bot_id: int) -> Any:
        """Retire your bot: it plays no more; its matches and name stay."""
        who = require_owner()
        registry.retire_bot(service().engine, who.owner_id, bot_id)
        return None

    @blp.route(f"/bots/<{ID}:bot_id>/check", methods=["POST"])
    @limiter.limit(actions.LIMITS["bots.check_bot"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(check_args_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(202, CheckOut, headers={"Location": {
        "description": "the check, to poll", "schema": {"type": "string"}}})
    @blp.alt_response(200, schema=CheckOut, success=True,
                      description="the bot's check of this game still queued or running")
    @blp.alt_response(409, response="CONFLICT")
    def check_bot(bot_id: int, game: str | None = None) -> Any:
        """Check your bot: `GET /`, then a whole match against `random` (per call: status
        counts, latency, the first bad body; per decision kind: latency; the problems).

        Answers at once with the check, queued (202, `Location`): a worker runs it; poll
        `GET /bots/{id}/checks/{check_id}` until its `state` is `done` (its `report`) or
        `failed` (its `error`).  A bot has one pending check at a time: asking again while
        it is queued or running answers that one (200), or 409 if it checks another game.
        With ownership proof on, a passing check whose `GET /` echoed the nonce verifies
        the bot; every check keeps its `GET /` as a health record of the bot."""
        who = require_owner()
        check, created = actions.request_check(who.owner_id, bot_id, game)
        where = url_for("bots.get_check", bot_id=bot_id, check_id=check["id"])
        return check, 202 if created else 200, {"Location": where}

    @blp.route(f"/bots/<{ID}:bot_id>/checks", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(PageArgs, location="query", unknown=ma.RAISE, as_kwargs=True)
    @blp.response(200, CheckPage)
    def list_checks(bot_id: int, page: int, per_page: int) -> Any:
        """Your bot's checks, newest first (the last 50 finished ones are kept)."""
        who = require_owner()
        engine = service().engine
        registry.owned_bot(engine, who.owner_id, bot_id, allow_retired=True)
        items, total = checks.list_checks(engine, bot_id, page, per_page)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/bots/<{ID}:bot_id>/checks/<{ID}:check_id>", methods=["GET"])
    @owner_required
    @blp.doc(security=BEARER)
    @blp.response(200, CheckOut)
    def get_check(bot_id: int, check_id: int) -> Any:
        """One check of your bot: its state, and its report once done."""
        who = require_owner()
        engine = service().engine
        registry.owned_bot(engine, who.owner_id, bot_id, allow_retired=True)
        return checks.check_detail(engine, bot_id, check_id)

    @blp.route(f"/bots/<{ID}:bot_id>/ratings", methods=["GET"])
    @blp.arguments(rating_args_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, RatingPage)
    def bot_ratings(bot_id: int, game: str, page: int, per_page: int) -> Any:
        """The bot's rating before and after each of its rated matches of a game, oldest
        first (the order the ratings were folded in), with each match's round."""
        items, total = more.rating_series_page(service().engine, bot_id, game, page, per_page)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/bots/<{ID}:bot_id>/matches", methods=["GET"])
    @blp.arguments(bot_matches_args_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, BotMatchPage)
    def bot_matches(bot_id: int, page: int, per_page: int, **filters: Any) -> Any:
        """The bot's matches, newest first, each with its outcome for the bot; filter by
        game, opponent, result, rated, state, since and round."""
        engine = service().engine
        if bot_id not in more.bot_names(engine, [bot_id]):  # its name only: not its profile
            raise NotFoundError(f"no bot {bot_id}")
        if "since" in filters:
            filters["since"] = as_utc(filters["since"])
        items, total = reads.list_matches(engine, bot=bot_id, page=page, per_page=per_page,
                                          **filters)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/bots/<{ID}:bot_id>/head-to-head", methods=["GET"])
    @blp.arguments(head_to_head_args_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, HeadToHeadPage)
    def bot_head_to_head(bot_id: int, game: str, page: int, per_page: int) -> Any:
        """Per opponent, over the finished matches of a game where both sat (rated or not):
        meetings, finishing ahead of / level with / behind it, the bot's strikes per
        meeting, when they last met.  Most met first."""
        items, total = more.head_to_head_page(service().engine, bot_id, game, page, per_page)
        return {"game": game, "items": items, "total": total, "page": page,
                "per_page": per_page}

    return blp


def register_pull(owner_id: int, body: dict[str, Any]) -> int:
    """Store a pull bot: no address to check or probe, and none to prove (its owner's token
    is what its connection shows), so it is active at once; 422 where the service's layout
    cannot reach such bots."""
    from api.relays import available

    svc = service()
    refused = available(svc.mode)
    if refused is not None:
        abort(422, message=refused, errors={"json": {"mode": [refused]}})
    return registry.register_bot(
        svc.engine, owner_id, name=body["name"], url=None, games=sorted(set(body["games"])),
        description=body["description"], status=ACTIVE, nonce=secrets.token_urlsafe(18))


def join_ladders(bot_id: int, games: list[str]) -> None:
    """A newly registered bot joins its games' ladders, with the house bots there so it has
    opponents (an unverified bot's entries wait until it is verified)."""
    svc = service()
    for game in games:
        matchmaking.join(svc.engine, bot_id, game, svc.config.matchmaker())
    registry.join_house_bots(svc.engine, svc.config.house_ladders, games)


def follow_games(bot_id: int, before: list[str], after: list[str]) -> None:
    """The bot's ladders follow a change of its games: it leaves those it no longer plays
    (the matchmaker would seat it in a game it does not answer) and, when it plays on a
    ladder, joins those of its new games."""
    svc = service()
    entries = {e["game"]: e for e in registry.ladder_entries(svc.engine, bot_id)}
    for game in set(before) - set(after):
        if entries.get(game, {}).get("active"):
            matchmaking.leave(svc.engine, bot_id, game)
    if any(e["active"] for e in entries.values()):
        join_ladders(bot_id, sorted(set(after) - set(before)))


def as_utc(moment: datetime) -> datetime:
    """An aware moment in UTC (the database keeps UTC); the far ends of time clamp."""
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        edge = datetime.min if moment.year < 2 else datetime.max
        return edge.replace(tzinfo=timezone.utc)
