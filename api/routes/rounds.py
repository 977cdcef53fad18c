"""Rounds of the living ladders: who plays whom, who rests, how far each round is."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_limiter import Limiter
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.context import service
from api.schemas import ID_RULE as ID, Page, PageArgs, Ref, game_field
from ladder.matchmaking import list_rounds, round_detail


def round_filter_schema(known: list[str]) -> type[ma.Schema]:
    class RoundFilter(PageArgs):
        game = game_field(known)
    return RoundFilter


class ProgressOut(ma.Schema):
    fixtures = fields.Integer(required=True)
    planned = fields.Integer(required=True, metadata={"description": "not started yet"})
    dispatched = fields.Integer(required=True, metadata={"description": "matches created"})
    done = fields.Integer(required=True)
    cancelled = fields.Integer(required=True)
    byes = fields.Integer(required=True)


class RoundOut(ma.Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    number = fields.Integer(required=True)
    opened_at = fields.DateTime(required=True)
    closed_at = fields.DateTime(required=True, allow_none=True)
    eligible = fields.Integer(required=True, metadata={"description": "bots in the snapshot"})
    progress = fields.Nested(ProgressOut, required=True)


class RoundPage(Page):
    items = fields.List(fields.Nested(RoundOut), required=True)


class FixtureMatchOut(ma.Schema):
    id = fields.Integer(required=True)
    state = fields.String(required=True)


class FixtureOut(ma.Schema):
    id = fields.Integer(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["fixture", "makeup"]),
                         metadata={"description": "a make-up replaces voided or cancelled "
                                                  "games of this round"})
    state = fields.String(required=True, validate=validate.OneOf(
        ["planned", "dispatched", "done", "cancelled"]))
    reason = fields.String(required=True, allow_none=True)
    bots = fields.List(fields.Nested(Ref), required=True,
                       metadata={"description": "in the seat order of its first game"})
    games = fields.Integer(required=True, metadata={"description": "2: a pair, seats swapped"})
    released = fields.Integer(required=True)
    makeup_of = fields.Integer(required=True, allow_none=True)
    matches = fields.List(fields.Nested(FixtureMatchOut), required=True)


class ByeOut(ma.Schema):
    bot = fields.Nested(Ref, required=True)
    reason = fields.String(required=True, metadata={
        "description": "rotation, forced (no opponent of another owner) or orphan"})


class RoundDetailOut(RoundOut):
    eligible_bots = fields.List(fields.Nested(Ref), required=True)
    fixtures = fields.List(fields.Nested(FixtureOut), required=True)
    byes = fields.List(fields.Nested(ByeOut), required=True)


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("rounds", __name__, url_prefix="/api/v1",
                    description="Rounds of the living ladders: fixtures and byes")

    @blp.route("/rounds", methods=["GET"])
    @blp.arguments(round_filter_schema(games), location="query", unknown=ma.RAISE,
                   as_kwargs=True)
    @blp.response(200, RoundPage)
    def get_rounds(page: int, per_page: int, game: str | None = None) -> Any:
        """Rounds, newest first, with their progress; filter by game."""
        items, total = list_rounds(service().engine, game, page, per_page)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    @blp.route(f"/rounds/<{ID}:round_id>", methods=["GET"])
    @blp.response(200, RoundDetailOut)
    def get_round(round_id: int) -> Any:
        """A round: the eligible bots it snapshot, every fixture with its matches, the byes."""
        return round_detail(service().engine, round_id)

    return blp
