"""JSON Schemas of each game's board data (the ``board`` of ``/start``), published in docs/schemas.

The board a match is played on is data (the packaged ``board.yaml`` beside each game, or any
file given with ``--board``), sent to every bot in ``/start`` as JSON: integer keys of the YAML
file (Doubletrack's purple shortcuts, the Automa's level factors) arrive as strings, and the
order of a mapping's keys is kept (Tokaido Duo's wares are listed in board order in option
ids). The prose is in ``docs/games/``.

The schemas say what the engines' loaders check field by field (types, counts, ranges, names
the rules fix) and never more, so every board an engine accepts validates; the checks that
tie fields together (routes forming a tree, a zone's border agreeing with them, 26 wares in
all, 30 cards in all, a score table one longer than its limit) are in each field's
``description`` and in the loaders, which name the first problem. Like the view schemas they
are open: fields added later are allowed. The tests validate the packaged boards against the
published files and check that the names enumerated here are the engines' own.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

_ID = "https://referee.invalid/schemas/"
_STR: Schema = {"type": "string"}
_NAME: Schema = {"type": "string", "minLength": 1}
_VERSION: Schema = {"type": ["string", "number"],
                    "description": "The board's name, shown in views as `board_version`."}


def _int(lo: int, hi: int | None = None, description: str | None = None) -> Schema:
    out: Schema = {"type": "integer", "minimum": lo}
    if hi is not None:
        out["maximum"] = hi
    if description:
        out["description"] = description
    return out


def _obj(required: dict[str, Schema], description: str | None = None, *,
         closed: bool = False) -> Schema:
    """An object with these fields required; ``closed``: no others (the loader refuses them)."""
    out: Schema = {"type": "object", "required": sorted(required), "properties": required}
    if closed:
        out["additionalProperties"] = False
    if description:
        out["description"] = description
    return out


def _list(items: Schema, size: int | None = None, description: str | None = None,
          **more: Any) -> Schema:
    out: Schema = {"type": "array", "items": items, **more}
    if size is not None:
        out.update(minItems=size, maxItems=size)
    if description:
        out["description"] = description
    return out


def _described(schema: Schema, description: str) -> Schema:
    return {**schema, "description": description}


# -- Tokaido Duo -----------------------------------------------------------------------------

TOKAIDO_CHARACTERS = ("pilgrim", "merchant", "artist")
TOKAIDO_SPACES = ("T", "G", "S", "H")
"""Ring codes: temple, garden, seashore, hot spring; the coastal towns are C1..C8."""
TOKAIDO_COASTAL = tuple(f"C{i}" for i in range(1, 9))
TOKAIDO_RING_SIZE = 37
TOKAIDO_WAVE_SIDES = {"pilgrim": ("hasty", "tranquil"), "artist": ("proficient", "inspired"),
                      "merchant": ("crafty", "robust")}
TOKAIDO_LIMITS = ("wares", "wares_robust", "coins_per_slab", "slabs", "temple_end",
                  "garden_end", "paintings")

_RING_INDEX = _int(0, TOKAIDO_RING_SIZE - 1)
_COASTAL: Schema = {"enum": list(TOKAIDO_COASTAL)}
_SCORE_TABLE = _list(_int(0), minItems=1)

TOKAIDO_BOARD: Schema = _obj({
    "version": _VERSION,
    "dice": _obj({c: _list(_int(1, 12), None, f"The {c} die's faces.", minItems=1)
                  for c in TOKAIDO_CHARACTERS},
                 "The three dice, by character: their faces (one die per character, no other).",
                 closed=True),
    "ring": _list({"enum": [*TOKAIDO_SPACES, *TOKAIDO_COASTAL]}, TOKAIDO_RING_SIZE,
                  "The pilgrim's ring, clockwise from space 0: T temple, G garden, S seashore, "
                  "H hot spring, C1..C8 the coastal towns (each exactly once)."),
    "mountain_towns": {
        "type": "object", "minProperties": 4, "maxProperties": 4,
        "propertyNames": {"not": _COASTAL},
        "additionalProperties": _int(2, 4, "Wares drawn there."),
        "description": "The 4 mountain towns (merchant only): name -> its value, the wares a "
                       "merchant draws there (2-4).",
    },
    "routes": _list(_list(_STR, 2), 11,
                    "The trade routes, each [town, town] (one merchant step): a tree over the "
                    "12 towns in which every coastal town is a leaf. They also part the zones."),
    "zones": {
        "type": "object", "minProperties": 8, "maxProperties": 8,
        "additionalProperties": _obj({
            "icon": _described(_STR, "A painting icon (a key of `paintings`)."),
            "ring": _list(_RING_INDEX, None, "The ring spaces on the zone's border (a "
                          "coastal town's space borders two zones, any other space one)."),
            "towns": _list(_STR, None, "The mountain towns on its border."),
            "adj": _list(_STR, None, "The zones one trade route away (symmetric)."),
        }),
        "description": "The 8 zones the routes part the board into (artist only), by name.",
    },
    "start": _list(_obj({"pilgrim": _RING_INDEX, "merchant": _STR, "artist": _STR}), 2,
                   "Start spaces of seat 0 then seat 1: a ring space, a town, a zone; no two "
                   "meeples on one ring space."),
    "boutiques": _list(_obj({"ware": _STR, "value": _int(2, 4, "Coins per ware sold.")}), 8,
                       "The 8 boutique tokens, shuffled onto the coastal towns each game."),
    "wares": {
        "type": "object", "minProperties": 1,
        "additionalProperties": _int(1),
        "description": "Ware -> copies in the bag (26 in all). The order is the board order "
                       "used in `keep_wares` option ids.",
    },
    "paintings": _list({"type": "object", "minProperties": 1, "additionalProperties": _int(1)},
                       2, "Each colour's painting set, purple then green: icon -> tiles "
                          "(`limits.paintings` in all). Purple is seat 0, or the Automa."),
    "scoring": _obj({
        "merchant_by_slabs": _described(_SCORE_TABLE, "Merchant score by gold slabs held, "
                                        "0 to `limits.slabs` (never decreasing)."),
        "artist_by_gifts": _described(_SCORE_TABLE, "Artist score by paintings gifted, "
                                      "0 to `limits.paintings` (never decreasing)."),
    }, "Score tables, indexed by count."),
    "limits": _obj({k: _int(1) for k in TOKAIDO_LIMITS},
                   "wares: the cap after a draw (wares_robust with Robust); coins_per_slab; "
                   "slabs, temple_end, garden_end, paintings: the end triggers (the 6th slab, "
                   "temple 9, garden 6, the 10th gift) and the tables' lengths."),
    "waves": _obj({c: _list({"enum": list(sides)}, 2, uniqueItems=True)
                   for c, sides in TOKAIDO_WAVE_SIDES.items()},
                  "Each character's wave tile: its two sides (one is drawn face up at setup)."),
    "automa": _obj({
        "coin_zones": _list(_STR, None, "Zones with a coin marker (no artist rank there)."),
        "painting_town": _described(_COASTAL, "The coastal town with the painting marker."),
        "merchant_loop": _list(_COASTAL, None, "The Automa merchant's clockwise loop.",
                               minItems=1, uniqueItems=True),
        "artist_loop": _list(_STR, None, "The Automa artist's clockwise loop of zones.",
                             minItems=1, uniqueItems=True),
        "track": _obj({
            "ranks": _list(_int(0), None, "Rank by track space (never decreasing).",
                           minItems=1),
            "final": _int(0, None, "The rank on reaching the end of the track."),
            "wave_spaces": _list(_int(1), None, "1-based track spaces showing a wave icon."),
        }, "The level-2 rank track, for all three characters (placeholder numbers)."),
        "level_factor": {
            "type": "object", "minProperties": 6, "maxProperties": 6,
            "propertyNames": {"pattern": "^[1-6]$"},
            "additionalProperties": {"type": "number", "exclusiveMinimum": 0},
            "description": "Level 1-6 -> the factor on the level-2 ranks (placeholders).",
        },
    }, "Solo play's numbers: PLACEHOLDERS (the printed cards are not public)."),
})


# -- Doubletrack -----------------------------------------------------------------------------

DOUBLETRACK_SQUARES = ("PLAY_A_CARD", "SELL_A_CARD", "SELL_A_PASS", "SELL_THE_LEAD", "TAKE_25",
                       "TAKE_PASS")
"""The square kinds named by a string; a NUMBER square is ``{number: n}`` or ``{number: [lo,
hi]}``."""
DOUBLETRACK_CARDS = ("trade_places", "take_the_lead", "back_10", "go_farthest_back",
                     "steal_a_gate_pass", "worthless")

_SQUARE: Schema = {
    "oneOf": [
        {"enum": list(DOUBLETRACK_SQUARES)},
        _obj({"number": {"oneOf": [_int(1), _list(_int(1), 2)]}}, closed=True),
    ],
    "description": "A square: its kind, or {number: n} (move the small pawn n), or "
                   "{number: [lo, hi]} (the mover picks lo..hi, lo < hi).",
}

DOUBLETRACK_BOARD: Schema = _obj({
    "version": {**_VERSION, "minLength": 1},
    "players": _list({"enum": [3, 4]}, None, "The seat counts this board allows.",
                     minItems=1, uniqueItems=True),
    "colours": _list(_NAME, 4, "The four colours, in seat order (clockwise): seat i plays "
                     "colour i, whose gate and quadrant it starts by.", uniqueItems=True),
    "dice": _obj({"count": _int(1), "sides": _int(2)}, "The big pawn moves the dice's sum."),
    "hand_size": _int(1, None, "Cards dealt to each seat."),
    "money": _obj({"unit": _int(1, None, "Every amount and bid is a multiple of it (it "
                                         "divides 25 and 5)."),
                   "start": _int(1, None, "Each seat's money at the start.")}),
    "outer": _obj({
        "quadrant": _list(_SQUARE, None, "The squares of one quadrant, from its TAKE_PASS "
                          "square (offset 0, and only there); repeated for each colour.",
                          minItems=1),
        "shortcut": _list(_SQUARE, None, "The squares of a gate shortcut, which forks right "
                          "after each TAKE_PASS square (no TAKE_PASS on it).", minItems=1),
        "rejoin_offset": _int(2, None, "The quadrant offset where the shortcut rejoins."),
    }, "The outer track (big pawns)."),
    "inner": _obj({
        "home": _int(2, None, "The HOME circle's number (START is 0)."),
        "purple_shortcuts": {
            "type": "object", "propertyNames": {"pattern": "^[0-9]+$"},
            "additionalProperties": _int(1),
            "description": "Purple circle -> the circle its shortcut leads to (forward, past "
                           "the next circle, inside 1..home-1).",
        },
    }, "The inner track (small pawns)."),
    "deck": _obj({
        "number": _obj({"values": _list(_int(1), None, "The Number cards' values.",
                                        minItems=1, uniqueItems=True),
                        "copies": _int(1, None, "Copies of each Number card.")}),
        **{kind: _int(0, None, "Copies.") for kind in DOUBLETRACK_CARDS},
    }, "The deck: 30 cards in all.", closed=True),
})


BOARD_SCHEMAS: dict[str, Schema] = {
    "board-tokaido-duo": {
        "$id": _ID + "board-tokaido-duo.json",
        "title": "Tokaido Duo: the board data of /start; fields in docs/games/tokaido-duo.md",
        **TOKAIDO_BOARD,
    },
    "board-doubletrack": {
        "$id": _ID + "board-doubletrack.json",
        "title": "Doubletrack: the board data of /start; fields in docs/games/doubletrack.md",
        **DOUBLETRACK_BOARD,
    },
}
"""Schema name (the file name in docs/schemas, without .json) -> schema."""

BOARD_OF_GAME: dict[str, str] = {"tokaido-duo": "board-tokaido-duo",
                                 "doubletrack": "board-doubletrack"}
