"""Option keys, the engine's own form of an option, and the public :class:`Option` of each.

Internally an option is a small tuple, its *key*, e.g. ``("move_pilgrim", 12, USE_EFFECT)`` for
"pilgrim to space 12, use the space's effect". The public id, label and data are derived from the
key alone, so each Option is built once per board and cached: ``pending`` then costs a dict
lookup per option. The key's first element, its *tag*, names the state transition applying it.

Key shapes:

- ``("die", character, value)``: take that die
- ``("move_pilgrim", space, effect)``: effect is :data:`NO_EFFECT` (none possible),
  :data:`USE_EFFECT` or :data:`DECLINE_EFFECT`
- ``("move_merchant", town, mode, count, coins, ware)``: mode in :data:`MERCHANT_MODES`;
  count = wares drawn or sold, coins = coins a sale brings, ware = the type sold (-1 otherwise)
- ``("move_artist", zone, mode, extra)``: mode in :data:`ARTIST_MODES`; extra = tiles revealed
  (paint), the path of zones taken (gift: with Inspired, one whose icons match), else 0
- ``("keep", counts)``: wares kept, one count per ware type
- ``("wave", character, source)``: source -1 = the board, else the seat it is taken from
- ``("spring", use)``: 1 spend the hot spring, 0 pass
- ``("return", ware)``: the ware returned when Robust is lost
"""

from __future__ import annotations

from typing import Any

from referee.core import Option

from .board import CHARACTERS, SPACE_KINDS, Board

Key = tuple[Any, ...]
"""An option key (shapes above)."""

NO_EFFECT, USE_EFFECT, DECLINE_EFFECT = 0, 1, 2
"""A pilgrim move's effect choice: the space offers none, use it, decline it (every space
effect is optional)."""
MERCHANT_MODES = ("plain", "nothing", "draw", "draw+1", "sell", "sell+crafty")
ARTIST_MODES = ("plain", "nothing", "paint", "paint+1", "gift")
PROMPTS = {
    "choose_die": "choose a die",
    "move": "where to move, and what to do there",
    "keep_wares": "which wares to keep",
    "wave_tile": "which wave tile to take",
    "hot_spring": "spend the hot spring token to use the same die again?",
    "return_ware": "Robust lost with six wares: which ware to return to the bag",
}
"""The prompt of each question (the state's *phase*)."""
HOT_SPRING_KEYS: list[Key] = [("spring", 0), ("spring", 1)]


def option_for(board: Board, key: Key) -> Option:
    """The cached public Option of ``key`` on ``board``."""
    opt = board.option_cache.get(key)
    if opt is None:
        opt = board.option_cache[key] = _BUILDERS[key[0]](board, key)
    return opt


def space_name(board: Board, i: int) -> str:
    kind = board.ring[i]
    return board.towns[board.ring_town[i]] if kind == "C" else SPACE_KINDS[kind]


def _die(b: Board, key: Key) -> Option:
    _, c, v = key
    return Option(CHARACTERS[c], f"{CHARACTERS[c]} die ({v})", {"die": CHARACTERS[c], "value": v})


_EFFECT_SUFFIX = ("", ":effect", ":decline")
_EFFECT_WORD = ("none", "use", "decline")


def _pilgrim(b: Board, key: Key) -> Option:
    _, dest, effect = key
    space = space_name(b, dest)
    word = _EFFECT_WORD[effect]
    label = f"pilgrim to {dest} ({space})" + ("" if effect == NO_EFFECT else f", {word} effect")
    return Option(f"move:{dest}{_EFFECT_SUFFIX[effect]}", label,
                  {"character": "pilgrim", "to": dest, "space": space, "effect": word})


def _merchant(b: Board, key: Key) -> Option:
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


def _artist(b: Board, key: Key) -> Option:
    _, dest, mode, extra = key
    zone = b.zones[dest]
    data: dict[str, Any] = {"character": "artist", "to": zone, "icon": b.icons[b.zone_icon[dest]],
                            "action": mode.split("+")[0] if mode != "plain" else "none"}
    if mode.startswith("paint"):
        data.update(reveal=extra, proficient=mode == "paint+1")
        label = f"artist to {zone}, paint (reveal {extra})"
    elif mode == "gift":
        via = [b.zones[z] for z in extra]
        data.update(via=via)
        label = f"artist to {zone} via {'-'.join(via)}, gift"
    else:
        label = f"artist to {zone}" + ("" if mode == "plain" else f", {mode}")
    suffix = "" if mode == "plain" else f":{mode}"
    return Option(f"move:{zone}{suffix}", label, data)


def _keep(b: Board, key: Key) -> Option:
    counts = key[1]
    names = [b.wares[w] for w, n in enumerate(counts) for _ in range(n)]
    return Option("keep:" + ",".join(names), "keep " + ", ".join(names),
                  {"keep": {b.wares[w]: n for w, n in enumerate(counts)}})


def _wave(b: Board, key: Key) -> Option:
    _, c, source = key
    src = "board" if source < 0 else f"seat {source}"
    return Option(f"wave:{CHARACTERS[c]}", f"take the {CHARACTERS[c]} wave tile from the {src}",
                  {"tile": CHARACTERS[c], "from": None if source < 0 else source})


def _spring(b: Board, key: Key) -> Option:
    use = key[1]
    return Option("spring:use" if use else "spring:pass",
                  "spend the hot spring: same die again" if use else "keep the hot spring token",
                  {"use": bool(use)})


def _return(b: Board, key: Key) -> Option:
    ware = b.wares[key[1]]
    return Option(f"return:{ware}", f"return a {ware} to the bag", {"ware": ware})


_BUILDERS = {"die": _die, "move_pilgrim": _pilgrim, "move_merchant": _merchant,
             "move_artist": _artist, "keep": _keep, "wave": _wave, "spring": _spring,
             "return": _return}
