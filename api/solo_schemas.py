"""The solo ladders' documents (their own module: :mod:`api.schemas` holds the rest)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields

from api.schemas import BotRef, Ref, SoloTally, Strict


class SoloEntryBody(Strict):
    active = fields.Boolean(required=True, metadata={
        "description": "true: enter the bot (it plays from the next round); false: withdraw "
                       "it (its finished games stay on the board, the others are voided)"})


class SoloEntryOut(ma.Schema):
    bot_id = fields.Integer(required=True)
    game = fields.String(required=True)
    level = fields.Integer(required=True)
    ladder = fields.String(required=True, metadata={"description": "`<game>-solo-<level>`"})
    active = fields.Boolean(required=True)
    joined_at = fields.DateTime(required=True)
    paused = fields.Boolean(required=True, metadata={
        "description": "held back by the service: the bot's health probes failed, it "
                       "forfeited too often or (a pull bot) it is not connected; its waiting "
                       "games are voided and it plays again once that lifts"})
    paused_reason = fields.String(allow_none=True, required=True)
    paused_at = fields.DateTime(allow_none=True, required=True)


class SoloEntryList(ma.Schema):
    items = fields.List(fields.Nested(SoloEntryOut), required=True)


class SoloRow(SoloTally):
    rank = fields.Integer(metadata={"description": "absent from provisional rows"})
    bot = fields.Nested(BotRef, required=True)
    owner = fields.Nested(Ref, allow_none=True, required=True)
    active = fields.Boolean(required=True, metadata={"description": "still entered"})
    strength = fields.Float(allow_none=True, required=True, metadata={
        "description": "fitted strength against the Automa: the mean score margin corrected "
                       "for the luck of the seeds played (what ranks)"})
    strength_interval = fields.Float(allow_none=True, required=True, metadata={
        "description": "95% half-width of the strength (from the spread of the bot's "
                       "margins); none under two games"})


class SoloBoardOut(ma.Schema):
    game = fields.String(required=True)
    level = fields.Integer(required=True)
    ladder = fields.String(required=True)
    opponent = fields.String(required=True)
    rounds = fields.Integer(required=True, metadata={"description": "rounds opened so far"})
    ranking = fields.String(required=True, metadata={"description": "the ranking rule"})
    items = fields.List(fields.Nested(SoloRow), required=True)
    provisional = fields.List(fields.Nested(SoloRow), required=True, metadata={
        "description": "bots with too few finished games to rank, most games first"})


class SoloLadderOut(ma.Schema):
    game = fields.String(required=True)
    level = fields.Integer(required=True)
    ladder = fields.String(required=True)
    bots = fields.Integer(required=True, metadata={"description": "bots entered"})
    rounds = fields.Integer(required=True)
    url = fields.String(required=True)


class SoloLadderList(ma.Schema):
    items = fields.List(fields.Nested(SoloLadderOut), required=True)


def challenge_forms(games: list[str]) -> list[dict[str, Any]]:
    """The two forms of ``POST /challenges`` as JSON Schema (``oneOf`` over the body, which a
    marshmallow schema cannot say): two bots or more without ``automa_level``, or one bot
    with a level of a game that has a solo mode."""
    from referee.games import find_game

    forms: list[dict[str, Any]] = [{"properties": {
        "bots": {"minItems": 2}, "automa_level": {"type": "null"}}}]
    for game in games:
        levels = list(find_game(game).solo_levels)
        if levels:
            forms.append({"properties": {"game": {"enum": [game]}, "bots": {"maxItems": 1},
                                         "automa_level": {"enum": levels}},
                          "required": ["automa_level"]})
    return forms
