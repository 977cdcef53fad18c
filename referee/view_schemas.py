"""JSON Schemas of each game's view (the ``view`` of a ``/decide``), published in docs/schemas.

A bot author reads these beside ``docs/games/``; the tests validate real views from random
games (both games, every seat and the spectator, solo and 3-4 seats) against them, so they
cannot drift from the engines. They are written as open schemas: every field the referee sends
today is required and typed, and fields added in later minor revisions are allowed (bots must
ignore fields they do not know, see docs/protocol.md). Names that come from the board data
(towns, zones, wares, colours, cards) are plain strings, since ``--board`` may rename them;
names the rules fix (characters, phases) are enumerated.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

_ID = "https://referee.invalid/schemas/"
_STR: Schema = {"type": "string"}
_BOOL: Schema = {"type": "boolean"}
_INT: Schema = {"type": "integer"}
_NAT: Schema = {"type": "integer", "minimum": 0}
_SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": 3}
_SEAT_OR_NULL: Schema = {"type": ["integer", "null"], "minimum": 0, "maximum": 3}
_NAT_OR_NULL: Schema = {"type": ["integer", "null"], "minimum": 0}
_STR_OR_NULL: Schema = {"type": ["string", "null"]}
_COUNTS: Schema = {"type": "object", "additionalProperties": _NAT}
_STRINGS: Schema = {"type": "array", "items": _STR}


def _obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    """An object with these fields required (others allowed, per the protocol's rule)."""
    return {"type": "object", "required": sorted(required),
            "properties": {**required, **(optional or {})}}


def _list(items: Schema, size: int | None = None) -> Schema:
    out: Schema = {"type": "array", "items": items}
    if size is not None:
        out.update(minItems=size, maxItems=size)
    return out


def _events(kinds: dict[str, tuple[dict[str, Schema], dict[str, Schema]]]) -> Schema:
    """``events``: objects told apart by ``type``, each with its own required fields."""
    return _list({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": sorted(kinds)}},
        "allOf": [
            {"if": {"required": ["type"], "properties": {"type": {"const": kind}}},
             "then": _obj({"type": {"const": kind}, **required}, optional)}
            for kind, (required, optional) in sorted(kinds.items())
        ],
    })


# -- Tokaido Duo -----------------------------------------------------------------------------

_CHARACTER: Schema = {"enum": ["pilgrim", "merchant", "artist"]}
_BY_CHARACTER = lambda value: _obj({c: value for c in ("pilgrim", "merchant", "artist")})  # noqa: E731
_PLACE: Schema = {"type": ["integer", "string"]}
"""A ring space (integer), or a town or zone name."""

_TOKAIDO_PLAYER: Schema = _obj(
    {"seat": _SEAT, "automa": _BOOL, "pilgrim": _NAT, "pilgrim_space": _STR, "merchant": _STR,
     "artist": _STR, "waves": _list(_CHARACTER), "score": _BY_CHARACTER(_INT)},
    {"temple": _NAT, "garden": _NAT, "coins": _NAT, "slabs": _NAT, "wares": _COUNTS,
     "ware_cap": _NAT, "face_down": _NAT, "gifts": _NAT, "next_gift": _STR_OR_NULL,
     "paintings": _list(_obj({"slot": _NAT, "state": {"enum": ["gifted", "revealed", "hidden"]}},
                             {"icon": _STR}))},
)
_TOKAIDO_EVENTS = _events({
    "round": ({"round": _NAT, "first_player": _SEAT, "dice": _BY_CHARACTER(_NAT),
               "die_order": {"type": ["array", "null"], "items": _CHARACTER}}, {}),
    "die": ({"seat": _SEAT, "die": _CHARACTER, "value": _NAT}, {}),
    "no_move": ({"seat": _SEAT, "character": _CHARACTER, "value": _NAT}, {}),
    "spring_used": ({"seat": _SEAT, "character": _CHARACTER, "value": _NAT}, {}),
    "move": ({"seat": _SEAT, "character": _CHARACTER, "from": _PLACE, "to": _PLACE}, {}),
    "track": ({"seat": _SEAT, "track": {"enum": ["temple", "garden"]}, "value": _NAT}, {}),
    "spring": ({"seat": _SEAT, "from_seat": _SEAT_OR_NULL}, {}),
    "wave": ({"seat": _SEAT, "tile": _CHARACTER, "side": _STR, "from_seat": _SEAT_OR_NULL}, {}),
    "return": ({"seat": _SEAT, "ware": _STR}, {}),
    "sell": ({"seat": _SEAT, "ware": _STR, "count": _NAT, "coins": _NAT}, {}),
    "draw": ({"seat": _SEAT, "wares": _STRINGS}, {}),
    "returned": ({"seat": _SEAT, "wares": _STRINGS}, {}),
    "coins": ({"seat": _SEAT, "amount": _NAT, "source": {"enum": ["coastal", "sale"]}}, {}),
    "slab": ({"seat": _SEAT, "slabs": _NAT}, {}),
    "paint": ({"seat": _SEAT, "icons": _STRINGS}, {}),
    "gift": ({"seat": _SEAT, "icon": _STR, "gifts": _NAT}, {}),
    "trigger": ({"reason": _STR}, {}),
    "end": ({"reason": _STR}, {}),
    "automa_rank": ({"character": _CHARACTER, "position": _NAT, "rank": _INT}, {}),
})
TOKAIDO_VIEW: Schema = _obj({
    "game": {"const": "tokaido-duo"}, "rules_version": _STR, "board_version": _STR,
    "seat": _SEAT_OR_NULL, "num_players": {"enum": [1, 2]}, "round": _NAT,
    "first_player": _SEAT, "over": _BOOL,
    "phase": {"enum": ["choose_die", "move", "keep_wares", "wave_tile", "hot_spring",
                       "return_ware", "over"]},
    "to_act": _SEAT_OR_NULL,
    "dice": _list(_obj({"die": _CHARACTER, "value": _NAT, "used_by": _SEAT_OR_NULL}), 3),
    "action": {"oneOf": [{"type": "null"}, _obj({"seat": _SEAT, "die": _CHARACTER,
                                                 "value": _NAT, "spring_gained": _BOOL})]},
    "keep_pool": {"oneOf": [{"type": "null"}, _COUNTS]},
    "return_seat": _SEAT_OR_NULL, "hot_spring": _SEAT_OR_NULL,
    "waves": _BY_CHARACTER(_obj({"side": _STR, "holder": _SEAT_OR_NULL})),
    "boutiques": {"type": "object", "additionalProperties": _obj({"ware": _STR, "value": _NAT})},
    "bag": _COUNTS,
    "players": _list(_TOKAIDO_PLAYER, 2),
    "end_triggers": _STRINGS,
    "automa": {"oneOf": [{"type": "null"}, _obj({
        "seat": _SEAT, "level": _NAT, "numbers": _STR,
        "tracks": _BY_CHARACTER(_obj({"position": _NAT, "rank": _INT,
                                      "wave_at": _NAT_OR_NULL, "length": _NAT})),
        "die_order": _list(_CHARACTER), "coin_zones": _STRINGS, "painting_town": _STR,
    })]},
    "events": _TOKAIDO_EVENTS,
})


# -- Doubletrack -----------------------------------------------------------------------------

_GATE_HOLDER: Schema = {"type": ["integer", "null"], "minimum": -1, "maximum": 3}
"""A seat, or -1 / null for no one."""
_FLOW_STEP: Schema = {"type": "array", "items": {"type": ["integer", "string", "array", "null"]}}
_DOUBLETRACK_EVENTS = _events({
    "start": ({"first": _SEAT}, {}),
    "turn": ({"seat": _SEAT, "turn": _NAT}, {}),
    "gate_request": ({"seat": _SEAT, "gate": _STR, "ask": _BOOL}, {}),
    "gate_offer": ({"seat": _SEAT, "gate": _STR,
                    "offer": {"oneOf": [{"const": "refuse"}, _NAT]}}, {}),
    "gate_accept": ({"seat": _SEAT, "gate": _STR, "fee": _NAT, "pay": _BOOL}, {}),
    "roll": ({"seat": _SEAT, "dice": _list(_NAT), "to": _NAT, "square": _STR,
              "shortcuts": _STRINGS}, {}),
    "fee": ({"seat": _SEAT, "to": _SEAT, "gate": _STR, "amount": _NAT}, {}),
    "small": ({"seat": _SEAT, "to": _NAT}, {"stays": _BOOL}),
    "gate_taken": ({"seat": _SEAT, "gate": _STR, "was": _GATE_HOLDER}, {}),
    "gate_stolen": ({"seat": _SEAT, "gate": _STR, "was": _GATE_HOLDER}, {}),
    "take": ({"seat": _SEAT, "victim": _SEAT, "amount": _NAT}, {}),
    "card": ({"seat": _SEAT, "card": _STR}, {}),
    "draw": ({"seat": _SEAT}, {"card": _STR}),
    "card_on_sale": ({"seat": _SEAT}, {}),
    "bids": ({"auction": {"enum": ["card", "pass", "lead"]},
              "bids": _list({"type": ["integer", "null"], "minimum": 0}),
              "winner": _SEAT_OR_NULL}, {}),
    "pass_sold": ({"gate": _STR, "winner": _SEAT, "was": _GATE_HOLDER}, {}),
    "pass_left": ({"seat": _SEAT, "gate": _STR, "holder": _GATE_HOLDER}, {}),
    "roll_off": ({"seats": _list(_SEAT), "rolls": _list(_NAT)}, {}),
    "lead_paid": ({"to": _SEAT, "amount": _NAT}, {}),
    "no_pass_to_sell": ({"seat": _SEAT}, {}),
    "no_effect": ({"seat": _SEAT, "card": _STR}, {}),
    "card_declined": ({"seat": _SEAT, "card": _STR}, {}),
    "trade": ({"seat": _SEAT, "other": _SEAT}, {}),
    "home": ({"seat": _SEAT}, {}),
    "turn_limit": ({"turns": _NAT}, {}),
})
DOUBLETRACK_VIEW: Schema = _obj({
    "game": {"const": "doubletrack"}, "rules_version": _STR, "board_version": _STR,
    "seat": _SEAT_OR_NULL,
    "num_players": {"enum": [3, 4]}, "turn": _NAT, "turn_limit": _NAT, "active": _SEAT,
    "seats": {"type": "array", "minItems": 3, "maxItems": 4, "items": _obj(
        {"seat": _SEAT, "colour": _STR,
         "big": _obj({"pos": _NAT, "square": _STR},
                     {"shortcut": _obj({"gate": _STR, "index": _NAT})}),
         "small": _NAT, "money": _NAT, "hand_size": _NAT, "known_cards": _STRINGS,
         "gates": _STRINGS})},
    "gates": {"type": "object", "additionalProperties": _SEAT_OR_NULL},
    "hand": {"type": ["array", "null"], "items": _STR},
    "on_sale": {"oneOf": [{"type": "null"}, _obj({"seller": _SEAT, "card": _STR_OR_NULL})]},
    "draw_pile_size": _NAT, "pile_bottom": _STRINGS,
    "cards_played": _list(_obj({"seat": _SEAT, "card": _STR})),
    "inner": _obj({"home": _NAT, "purple_shortcuts": _COUNTS}),
    "flow": _obj({"waiting": {"oneOf": [{"type": "null"}, _FLOW_STEP]},
                  "steps": _list(_FLOW_STEP)}),
    "winner": _SEAT_OR_NULL, "over": _BOOL,
    "events": _DOUBLETRACK_EVENTS,
})


VIEW_SCHEMAS: dict[str, Schema] = {
    "view-tokaido-duo": {
        "$id": _ID + "view-tokaido-duo.json",
        "title": "Tokaido Duo: what one seat (or a spectator) sees; fields in docs/games/tokaido-duo.md",
        **TOKAIDO_VIEW,
    },
    "view-doubletrack": {
        "$id": _ID + "view-doubletrack.json",
        "title": "Doubletrack: what one seat (or a spectator) sees; fields in docs/games/doubletrack.md",
        **DOUBLETRACK_VIEW,
    },
}
"""Schema name (the file name in docs/schemas, without .json) -> schema."""

VIEW_OF_GAME: dict[str, str] = {"tokaido-duo": "view-tokaido-duo", "doubletrack": "view-doubletrack"}
