"""What a seat may see of a Tokaido Duo game (:func:`build_view`).

Secrets are declared in one place, here: the order of each seat's face-down painting tiles (the
owner's too) and the random generator (hence the seed, future dice and the bag's draw order).
Everything else on the table is public and in the view.  The bag's contents are public (26 wares
minus those on the boards), so they are shown as counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import AUTOMA_NUMBERS, CHARACTERS, COLOURS, Board
from .options import space_name
from .scoring import breakdown

if TYPE_CHECKING:
    from .state import TokaidoState

RULES_VERSION = "2"
"""2: solo corrections from seed 002 (the human plays green; the Automa never takes the hot spring)."""
ACTION_PHASES = ("move", "keep_wares", "wave_tile", "hot_spring", "return_ware")
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "round": ("round", "first_player", "dice", "die_order"),
    "die": ("seat", "die", "value"),
    "no_move": ("seat", "character", "value"),
    "spring_used": ("seat", "character", "value"),
    "move": ("seat", "character", "from", "to"),
    "track": ("seat", "track", "value"),
    "spring": ("seat", "from_seat"),
    "wave": ("seat", "tile", "side", "from_seat"),
    "return": ("seat", "ware"),
    "sell": ("seat", "ware", "count", "coins"),
    "draw": ("seat", "wares"),
    "returned": ("seat", "wares"),
    "coins": ("seat", "amount", "source"),
    "slab": ("seat", "slabs"),
    "paint": ("seat", "icons"),
    "gift": ("seat", "icon", "gifts"),
    "trigger": ("reason",),
    "end": ("reason",),
    "automa_rank": ("character", "position", "rank"),
}


def render_event(e: tuple[Any, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": e[0]}
    for name, value in zip(EVENT_FIELDS[e[0]], e[1:]):
        if isinstance(value, tuple):
            value = list(value)
        out[name] = value
    if e[0] == "round":
        out["dice"] = dict(zip(CHARACTERS, out["dice"]))
        if out["die_order"] is not None:
            out["die_order"] = [CHARACTERS[c] for c in out["die_order"]]
    if e[0] == "wave" and out["from_seat"] == -1:
        out["from_seat"] = None
    return out


def build_view(s: TokaidoState, seat: int | None) -> dict[str, Any]:
    """``seat``'s view (``None``: a spectator's, with the round's events), JSON-ready."""
    b = s.board
    since = s.seen[seat] if seat is not None else s.round_start_event
    in_action = not s.over and s.phase in ACTION_PHASES
    return {
        "game": "tokaido-duo", "rules_version": RULES_VERSION, "board_version": b.version,
        "seat": seat, "num_players": s.num_players, "round": s.round,
        "first_player": s.first_player,
        "over": s.over, "phase": "over" if s.over else s.phase,
        "to_act": None if s.over else s.seat,
        "dice": [{"die": c, "value": s.dice[i], "used_by": None if s.used[i] < 0 else s.used[i]}
                 for i, c in enumerate(CHARACTERS)],
        "action": {"seat": s.actor, "die": CHARACTERS[s.character], "value": s.value,
                   "spring_gained": s.spring_gained} if in_action else None,
        "keep_pool": _wares(b, s.keep_pool) if s.keep_pool is not None else None,
        "return_seat": s.return_seat if s.return_seat >= 0 else None,
        "hot_spring": None if s.spring_holder < 0 else s.spring_holder,
        "waves": {c: {"side": s.wave_side[i], "holder": None if s.wave_holder[i] < 0
                      else s.wave_holder[i]} for i, c in enumerate(CHARACTERS)},
        "boutiques": {b.towns[t]: {"ware": b.wares[b.boutiques[k][0]], "value": b.boutiques[k][1]}
                      for t, k in enumerate(s.boutiques)},
        "bag": _wares(b, s.bag),
        "players": [_player(s, i) for i in (0, 1)],
        "end_triggers": list(s.triggers),
        "automa": _automa(s),
        "events": [render_event(e) for e in s.events[since:]],
    }


def _wares(b: Board, counts: list[int]) -> dict[str, int]:
    return {w: counts[i] for i, w in enumerate(b.wares)}


def _player(s: TokaidoState, i: int) -> dict[str, Any]:
    b = s.board
    out: dict[str, Any] = {
        "seat": i, "colour": COLOURS[s.colours[i]], "automa": s.is_automa(i),
        "pilgrim": s.pilgrims[i], "pilgrim_space": space_name(b, s.pilgrims[i]),
        "merchant": b.towns[s.merchants[i]], "artist": b.zones[s.artists[i]],
        "waves": [c for k, c in enumerate(CHARACTERS) if s.wave_holder[k] == i],
        "score": breakdown(s, i),
    }
    if s.is_automa(i):
        return out
    tiles = s.tiles[i]
    slots = ([{"slot": k, "state": "gifted", "icon": b.icons[tiles[k]]} for k in range(s.gifts[i])]
             + [{"slot": k, "state": "revealed", "icon": b.icons[tiles[k]]}
                for k in range(s.gifts[i], s.revealed[i])]
             + [{"slot": k, "state": "hidden"} for k in range(s.revealed[i], len(tiles))])
    out.update(temple=s.temple[i], garden=s.garden[i], coins=s.coins[i], slabs=s.slabs[i],
               wares=_wares(b, s.wares[i]), ware_cap=s.ware_cap(i), paintings=slots,
               face_down=len(tiles) - s.revealed[i], gifts=s.gifts[i],
               next_gift=b.icons[tiles[s.gifts[i]]] if s.revealed[i] > s.gifts[i] else None)
    return out


def _automa(s: TokaidoState) -> dict[str, Any] | None:
    t = s.automa
    if t is None:
        return None
    a, b = s.board.automa, s.board
    return {
        "seat": 1, "level": t.level, "numbers": AUTOMA_NUMBERS,
        "tracks": {c: {"position": t.pos[k], "rank": t.rank(k), "wave_at": t.wave_at[k],
                       "length": len(t.ranks)} for k, c in enumerate(CHARACTERS)},
        "die_order": [CHARACTERS[c] for c in s.die_order],
        "coin_zones": sorted(b.zones[z] for z in a["coin_zones"]),
        "painting_town": b.towns[a["painting_town"]],
    }
