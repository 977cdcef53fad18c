"""What a seat may see (:func:`build_view`) and a full state rebuilt from that (:func:`determinize`).

Secrets are declared in one place, here: the order of each seat's face-down painting tiles (the
owner's too) and the random generator (hence the seed, future dice and the bag's draw order).
Everything else on the table is public and in the view.  The bag's contents are public (26 wares
minus those on the boards), so they are shown as counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .automa import NUMBERS_NOTE, AutomaTracks
from .board import CHARACTERS, COLOURS, Board
from .moves import keep_keys, move_keys, seashore_choices
from .options import space_name
from .scoring import breakdown
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
    b = s.b
    since = s.seen[seat] if seat is not None else s.round_event
    in_action = not s.over and s.phase in ACTION_PHASES
    return {
        "game": "tokaido-duo", "rules_version": RULES_VERSION, "board_version": b.version,
        "seat": seat, "num_players": s.num_players, "round": s.round, "first_player": s.first,
        "over": s.over, "phase": "over" if s.over else s.phase,
        "to_act": None if s.over else s.seat,
        "dice": [{"die": c, "value": s.dice[i], "used_by": None if s.used[i] < 0 else s.used[i]}
                 for i, c in enumerate(CHARACTERS)],
        "action": {"seat": s.actor, "die": CHARACTERS[s.char], "value": s.value,
                   "spring_gained": s.gained} if in_action else None,
        "keep_pool": _wares(b, s.pool) if s.pool is not None else None,
        "return_seat": s.ret_seat if s.ret_seat >= 0 else None,
        "hot_spring": None if s.spring < 0 else s.spring,
        "waves": {c: {"side": s.wave_side[i], "holder": None if s.wave_holder[i] < 0
                      else s.wave_holder[i]} for i, c in enumerate(CHARACTERS)},
        "boutiques": {b.towns[t]: {"ware": b.wares[b.boutiques[k][0]], "value": b.boutiques[k][1]}
                      for t, k in enumerate(s.boutique)},
        "bag": _wares(b, s.bag),
        "players": [_player(s, i) for i in (0, 1)],
        "end_triggers": list(s.triggers),
        "automa": _automa(s),
        "events": [render_event(e) for e in s.events[since:]],
    }


def _wares(b: Board, counts: list[int]) -> dict[str, int]:
    return {w: counts[i] for i, w in enumerate(b.wares)}


def _player(s: TokaidoState, i: int) -> dict[str, Any]:
    b = s.b
    out: dict[str, Any] = {
        "seat": i, "colour": COLOURS[s.colours[i]], "automa": s.is_automa(i), "pilgrim": s.pil[i],
        "pilgrim_space": space_name(b, s.pil[i]), "merchant": b.towns[s.mer[i]],
        "artist": b.zones[s.art[i]],
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
    a, b = s.b.automa, s.b
    return {
        "seat": 1, "level": t.level, "numbers": NUMBERS_NOTE,
        "tracks": {c: {"position": t.pos[k], "rank": t.rank(k), "wave_at": t.wave_at[k],
                       "length": len(t.ranks)} for k, c in enumerate(CHARACTERS)},
        "die_order": [CHARACTERS[c] for c in s.die_order],
        "coin_zones": sorted(b.zones[z] for z in a["coin_zones"]),
        "painting_town": b.towns[a["painting_town"]],
    }


def determinize(view: Mapping[str, Any], seed: int, board: Board) -> TokaidoState:
    """A full state agreeing with ``view``: face-down tiles dealt at random from what each seat
    has not revealed, future chance from ``seed``."""
    auto = view.get("automa")
    s = TokaidoState(board, seed, view["num_players"], auto["level"] if auto else None,
                     setup=False)
    _restore_table(s, view, board)
    for i, p in enumerate(view["players"]):
        if not p["automa"]:
            _restore_player(s, i, p, board)
    if auto is not None and s.automa is not None:
        _restore_automa(s.automa, auto)
    _restore_phase(s, view)
    s._settle()
    return s


def _restore_table(s: TokaidoState, v: Mapping[str, Any], b: Board) -> None:
    s.round, s.first, s.round_event = v["round"], v["first_player"], 0
    s.dice = [d["value"] for d in v["dice"]]
    s.used = [-1 if d["used_by"] is None else d["used_by"] for d in v["dice"]]
    s.picks = 3 - s.used.count(-1)
    s.spring = -1 if v["hot_spring"] is None else v["hot_spring"]
    s.wave_side = [v["waves"][c]["side"] for c in CHARACTERS]
    s.wave_holder = [-1 if v["waves"][c]["holder"] is None else v["waves"][c]["holder"]
                     for c in CHARACTERS]
    kinds = list(b.boutiques)
    s.boutique = []
    for t in b.towns[:8]:
        bt = v["boutiques"][t]
        k = next(k for k, x in enumerate(kinds) if x == (b.wares.index(bt["ware"]), bt["value"])
                 and k not in s.boutique)
        s.boutique.append(k)
    s.bag = [v["bag"][w] for w in b.wares]
    s.triggers = list(v["end_triggers"])
    s.die_order = [CHARACTERS.index(c) for c in v["automa"]["die_order"]] if v["automa"] \
        else [0, 1, 2]
    for i, p in enumerate(v["players"]):
        s.pil[i], s.mer[i], s.art[i] = p["pilgrim"], b.towns.index(p["merchant"]), \
            b.zones.index(p["artist"])


def _restore_player(s: TokaidoState, i: int, p: Mapping[str, Any], b: Board) -> None:
    s.temple[i], s.garden[i], s.coins[i], s.slabs[i] = (p["temple"], p["garden"], p["coins"],
                                                        p["slabs"])
    s.wares[i] = [p["wares"][w] for w in b.wares]
    known = [b.icons.index(sl["icon"]) for sl in p["paintings"] if sl["state"] != "hidden"]
    hidden = list((Counter(b.paintings[s.colours[i]]) - Counter(known)).elements())
    s.rng.shuffle(hidden)
    s.tiles[i] = known + hidden
    s.gifts[i] = p["gifts"]
    s.revealed[i] = len(known)


def _restore_automa(t: AutomaTracks, a: Mapping[str, Any]) -> None:
    for k, c in enumerate(CHARACTERS):
        tr = a["tracks"][c]
        t.pos[k], t.wave_at[k] = tr["position"], tr["wave_at"]
        t.ended[k] = tr["position"] == len(t.ranks)


def _restore_phase(s: TokaidoState, v: Mapping[str, Any]) -> None:
    if v["over"]:
        s.over, s.phase, s.keys = True, "over", []
        return
    act = v["action"]
    if act is not None:
        s.actor, s.char, s.value = act["seat"], CHARACTERS.index(act["die"]), act["value"]
        s.gained = act["spring_gained"]
    s.pool = [v["keep_pool"][w] for w in s.b.wares] if v["keep_pool"] is not None else None
    s.ret_seat = -1 if v["return_seat"] is None else v["return_seat"]
    s._ask(v["to_act"], v["phase"], _keys_for(s, v["phase"], v["to_act"]))


def _keys_for(s: TokaidoState, phase: str, seat: int) -> list[Any]:
    if phase == "choose_die":
        return [("die", c, s.dice[c]) for c in range(3) if s.used[c] < 0]
    if phase == "move":
        return move_keys(s, s.actor, s.char, s.value)
    if phase == "keep_wares":
        assert s.pool is not None
        return keep_keys(s.pool, s.ware_cap(s.actor))
    if phase == "wave_tile":
        return seashore_choices(s, seat)
    if phase == "hot_spring":
        return [("spring", 0), ("spring", 1)]
    return [("ret", w) for w, n in enumerate(s.wares[seat]) if n]

