"""Turning the engine's internal action keys into the public :class:`Option` objects.

Internally an option is a small tuple (its *key*), e.g. ``("mp", 12, 1)`` for "pilgrim to space
12, use the effect".  The public id, label and data are derived from the key alone, so each
Option is built once per board and cached: ``pending`` then costs a dict lookup per option.

Key shapes (first element is the tag):

- ``("die", character, value)``
- ``("mp", space, effect)``: pilgrim; effect 0 = no effect possible, 1 = use it, 2 = decline
- ``("mm", town, mode, count, coins, ware)``: merchant; mode in :data:`MERCHANT_MODES`;
  count = wares drawn or sold, coins = coins a sale brings, ware = the type sold (-1 otherwise)
- ``("ma", zone, mode, extra)``: artist; mode in :data:`ARTIST_MODES`; extra = tiles revealed
  (paint), the path of zones taken (gift: with Inspired, one whose icons match), else 0
- ``("keep", counts)``: wares kept, one count per ware type
- ``("wave", character, source)``: source -1 = the board, else the seat it is taken from
- ``("spring", use)``: 1 spend the hot spring, 0 pass
- ``("ret", ware)``: the ware returned when Robust is lost
"""

from __future__ import annotations

from typing import Any

from referee.core import Option

from .board import CHARACTERS, SPACE_KINDS, Board

MERCHANT_MODES = ("plain", "nothing", "draw", "draw+1", "sell", "sell+crafty")
ARTIST_MODES = ("plain", "nothing", "paint", "paint+1", "gift")
PILGRIM_EFFECT = ("", ":effect", ":decline")
PROMPTS = {
    "choose_die": "choose a die",
    "move": "where to move, and what to do there",
    "keep_wares": "which wares to keep",
    "wave_tile": "which wave tile to take",
    "hot_spring": "spend the hot spring token to use the same die again?",
    "return_ware": "Robust lost with six wares: which ware to return to the bag",
}


def option_for(board: Board, key: tuple[Any, ...]) -> Option:
    """The cached public Option of ``key`` on ``board``."""
    opt = board.opt_cache.get(key)
    if opt is None:
        opt = board.opt_cache[key] = _BUILDERS[key[0]](board, key)
    return opt


def space_name(board: Board, i: int) -> str:
    kind = board.ring[i]
    return board.towns[board.ring_town[i]] if kind == "C" else SPACE_KINDS[kind]


def _die(b: Board, key: tuple[Any, ...]) -> Option:
    _, c, v = key
    return Option(CHARACTERS[c], f"{CHARACTERS[c]} die ({v})", {"die": CHARACTERS[c], "value": v})


def _pilgrim(b: Board, key: tuple[Any, ...]) -> Option:
    _, dest, eff = key
    space = space_name(b, dest)
    effect = ("none", "use", "decline")[eff]
    label = f"pilgrim to {dest} ({space})" + ("" if eff == 0 else f", {effect} effect")
    return Option(f"move:{dest}{PILGRIM_EFFECT[eff]}", label,
                  {"character": "pilgrim", "to": dest, "space": space, "effect": effect})


def _merchant(b: Board, key: tuple[Any, ...]) -> Option:
    _, dest, mode, count, coins, ware = key
    town = b.towns[dest]
    suffix = {"plain": "", "nothing": ":nothing", "draw": ":draw", "draw+1": ":draw+1",
              "sell": f":sell:{count}", "sell+crafty": f":sell:{count}:crafty"}[mode]
    data: dict[str, Any] = {"character": "merchant", "to": town,
                            "action": mode.split("+")[0] if mode != "plain" else "none"}
    if mode.startswith("draw"):
        data.update(count=count, robust=mode == "draw+1")
        label = f"merchant to {town}, draw {count}"
    elif mode.startswith("sell"):
        data.update(ware=b.wares[ware], count=count, coins=coins, crafty=mode == "sell+crafty")
        label = f"merchant to {town}, sell {count} {b.wares[ware]} for {coins} coins"
    else:
        label = f"merchant to {town}" + (", do nothing" if mode == "nothing" else "")
    return Option(f"move:{town}{suffix}", label, data)


def _artist(b: Board, key: tuple[Any, ...]) -> Option:
    _, dest, mode, reveal = key
    zone = b.zones[dest]
    data: dict[str, Any] = {"character": "artist", "to": zone, "icon": b.icons[b.zone_icon[dest]],
                            "action": mode.split("+")[0] if mode != "plain" else "none"}
    if mode.startswith("paint"):
        data.update(reveal=reveal, proficient=mode == "paint+1")
        label = f"artist to {zone}, paint (reveal {reveal})"
    elif mode == "gift":
        via = [b.zones[z] for z in reveal]
        data.update(via=via)
        label = f"artist to {zone} via {'-'.join(via)}, gift"
    else:
        label = f"artist to {zone}" + ("" if mode == "plain" else f", {mode}")
    suffix = "" if mode == "plain" else f":{mode}"
    return Option(f"move:{zone}{suffix}", label, data)


def _keep(b: Board, key: tuple[Any, ...]) -> Option:
    counts = key[1]
    names = [b.wares[w] for w, n in enumerate(counts) for _ in range(n)]
    return Option("keep:" + ",".join(names), "keep " + ", ".join(names),
                  {"keep": {b.wares[w]: n for w, n in enumerate(counts)}})


def _wave(b: Board, key: tuple[Any, ...]) -> Option:
    _, c, source = key
    src = "board" if source < 0 else f"seat {source}"
    return Option(f"wave:{CHARACTERS[c]}", f"take the {CHARACTERS[c]} wave tile from the {src}",
                  {"tile": CHARACTERS[c], "from": None if source < 0 else source})


def _spring(b: Board, key: tuple[Any, ...]) -> Option:
    use = key[1]
    return Option("spring:use" if use else "spring:pass",
                  "spend the hot spring: same die again" if use else "keep the hot spring token",
                  {"use": bool(use)})


def _ret(b: Board, key: tuple[Any, ...]) -> Option:
    ware = b.wares[key[1]]
    return Option(f"return:{ware}", f"return a {ware} to the bag", {"ware": ware})


_BUILDERS = {"die": _die, "mp": _pilgrim, "mm": _merchant, "ma": _artist, "keep": _keep,
             "wave": _wave, "spring": _spring, "ret": _ret}
