"""A full Tokaido Duo game rebuilt from what one seat sees: how search bots use the engine.

Everything on the table is in the view; the secrets are the order of each seat's face-down
painting tiles and the generator. They are dealt at random from a seed, and the open question is
asked again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .automa import AutomaTracks
from .board import CHARACTERS, Board
from .state import TokaidoState


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
    return s


def _restore_table(s: TokaidoState, v: Mapping[str, Any], b: Board) -> None:
    s.round, s.first_player, s.round_start_event = v["round"], v["first_player"], 0
    s.dice = [d["value"] for d in v["dice"]]
    s.used = [-1 if d["used_by"] is None else d["used_by"] for d in v["dice"]]
    s.picks = 3 - s.used.count(-1)
    s.spring_holder = -1 if v["hot_spring"] is None else v["hot_spring"]
    s.wave_side = [v["waves"][c]["side"] for c in CHARACTERS]
    s.wave_holder = [-1 if v["waves"][c]["holder"] is None else v["waves"][c]["holder"]
                     for c in CHARACTERS]
    kinds = list(b.boutiques)
    s.boutiques = []
    for t in b.towns[:8]:
        bt = v["boutiques"][t]
        k = next(k for k, x in enumerate(kinds) if x == (b.wares.index(bt["ware"]), bt["value"])
                 and k not in s.boutiques)
        s.boutiques.append(k)
    s.bag = [v["bag"][w] for w in b.wares]
    s.triggers = list(v["end_triggers"])
    s.die_order = [CHARACTERS.index(c) for c in v["automa"]["die_order"]] if v["automa"] \
        else [0, 1, 2]
    for i, p in enumerate(v["players"]):
        s.pilgrims[i] = p["pilgrim"]
        s.merchants[i] = b.towns.index(p["merchant"])
        s.artists[i] = b.zones.index(p["artist"])


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
    """The action in progress, then the open question asked again (or the game over)."""
    if v["over"]:
        s.over, s.phase, s.option_keys = True, "over", []
        return
    act = v["action"]
    if act is not None:
        s.actor, s.character, s.value = act["seat"], CHARACTERS.index(act["die"]), act["value"]
        s.spring_gained = act["spring_gained"]
    s.keep_pool = [v["keep_pool"][w] for w in s.board.wares] if v["keep_pool"] is not None \
        else None
    s.return_seat = -1 if v["return_seat"] is None else v["return_seat"]
    s.reopen(v["phase"], v["to_act"])
