"""Where a character may go with a die, and what it may do there: the ``move`` option keys.

One key per distinct outcome (rules page, Decisions 2): destinations are deduplicated (a pilgrim
using Hasty and one skipping an occupied space may land on the same space), and an effect choice
is offered only when it changes something (no "decline" at a temple when the track is full).
Wave tiles are offered side by side with the plain move (every wave effect is optional).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import TokaidoState

PILGRIM, MERCHANT, ARTIST = 0, 1, 2
Key = tuple[Any, ...]


def wave_side(s: TokaidoState, seat: int, char: int) -> str | None:
    """The side of ``char``'s wave tile if ``seat`` holds it."""
    return s.wave_side[char] if s.wave_holder[char] == seat else None


def coastal_blockers(s: TokaidoState) -> set[int]:
    """Ring spaces a pilgrim may not stop on / a merchant may not enter: every pilgrim and
    every merchant standing on a coastal town (one meeple per coastal town)."""
    ring = s.b.town_ring
    out = set(s.pil)
    for m in s.mer:
        if m < 8:
            out.add(ring[m])
    return out


def pilgrim_landing(s: TokaidoState, seat: int, steps: int) -> int:
    """Exactly ``steps`` clockwise (occupied spaces count), then on to the next free space."""
    size = len(s.b.ring)
    occ = coastal_blockers(s)
    occ.discard(s.pil[seat])
    t = (s.pil[seat] + steps) % size
    while t in occ:
        t = (t + 1) % size
    return t


def pilgrim_effect_possible(s: TokaidoState, seat: int, space: int) -> bool:
    kind = s.b.ring[space]
    if kind == "C":
        return True
    if kind == "T":
        return s.temple[seat] < s.b.limits["temple_end"]
    if kind == "G":
        return s.garden[seat] < s.b.limits["garden_end"]
    if kind == "H":
        return s.spring != seat
    return bool(seashore_choices(s, seat))


def seashore_choices(s: TokaidoState, seat: int) -> list[Key]:
    """Wave tiles on the board; if none, the opponent's (rules page: Seashore)."""
    board = [("wave", c, -1) for c in range(3) if s.wave_holder[c] < 0]
    if board:
        return board
    return [("wave", c, h) for c, h in enumerate(s.wave_holder) if h != seat]


def pilgrim_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    side = wave_side(s, seat, PILGRIM)
    steps = [value]
    if side == "hasty":
        steps.append(value + 1)
    elif side == "tranquil" and value > 1:
        steps.append(value - 1)
    keys: list[Key] = []
    seen: list[int] = []
    for n in steps:
        t = pilgrim_landing(s, seat, n)
        if t in seen:
            continue
        seen.append(t)
        if pilgrim_effect_possible(s, seat, t):
            keys += [("mp", t, 1), ("mp", t, 2)]
        else:
            keys.append(("mp", t, 0))
    return keys


def merchant_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    b = s.b
    blocked = coastal_blockers(s)
    keys: list[Key] = []
    for t in b.merchant_dest[s.mer[seat]][value]:
        if t < 8:
            if b.town_ring[t] in blocked:
                continue
            keys += _sell_keys(s, seat, t)
        else:
            keys += _draw_keys(s, seat, t)
    return keys


def _draw_keys(s: TokaidoState, seat: int, town: int) -> list[Key]:
    in_bag = sum(s.bag)
    if not in_bag:
        return [("mm", town, "plain", 0, 0, -1)]
    n = s.b.town_value[town]
    keys: list[Key] = [("mm", town, "nothing", 0, 0, -1), ("mm", town, "draw", min(n, in_bag), 0, -1)]
    if wave_side(s, seat, MERCHANT) == "robust" and in_bag > n:
        keys.append(("mm", town, "draw+1", n + 1, 0, -1))
    return keys


def _sell_keys(s: TokaidoState, seat: int, town: int) -> list[Key]:
    ware, price = s.b.boutiques[s.boutique[town]]
    held = s.wares[seat][ware]
    if not held:
        return [("mm", town, "plain", 0, 0, -1)]
    keys: list[Key] = [("mm", town, "nothing", 0, 0, -1)]
    crafty = wave_side(s, seat, MERCHANT) == "crafty"
    for k in range(1, held + 1):
        keys.append(("mm", town, "sell", k, k * price, ware))
        if crafty:
            keys.append(("mm", town, "sell+crafty", k, k * (price + 1), ware))
    return keys


def meeples_around(s: TokaidoState, seat: int, zone: int) -> int:
    """Other meeples in ``zone`` (rules page: Paint): pilgrims and merchants of either seat on
    its border (ring spaces, coastal or mountain towns), plus the other artist if in the zone."""
    b = s.b
    ring, towns = b.zone_ring[zone], b.zone_towns[zone]
    n = 0
    for p in s.pil:
        n += p in ring
    for m in s.mer:
        n += (b.town_ring[m] in ring) if m < 8 else (m in towns)
    return n + (s.art[1 - seat] == zone)


def artist_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    b = s.b
    face_down = b.limits["paintings"] - s.revealed[seat]
    side = s.wave_side[ARTIST] if s.wave_holder[ARTIST] == seat else None
    proficient, inspired = side == "proficient", side == "inspired"
    gift_icon = s.tiles[seat][s.gifts[seat]] if s.revealed[seat] > s.gifts[seat] else -1
    keys: list[Key] = []
    for dest, mask, first, by_icon in b.artist_dest[s.art[seat]][value]:
        opts: list[Key] = []
        n = min(meeples_around(s, seat, dest), face_down)
        if n:
            opts.append(("ma", dest, "paint", n))
        if proficient and min(n + 1, face_down) > n:
            opts.append(("ma", dest, "paint+1", n + 1))
        if gift_icon >= 0:
            if b.zone_icon[dest] == gift_icon:
                opts.append(("ma", dest, "gift", first))
            elif inspired and mask >> gift_icon & 1:
                opts.append(("ma", dest, "gift", by_icon[gift_icon]))  # the path that matches
        keys += [("ma", dest, "nothing", 0)] + opts if opts else [("ma", dest, "plain", 0)]
    return keys


MOVE_KEYS = (pilgrim_keys, merchant_keys, artist_keys)


def move_keys(s: TokaidoState, seat: int, char: int, value: int) -> list[Key]:
    """Every distinct outcome of moving ``char`` exactly ``value``; empty if it cannot move."""
    return MOVE_KEYS[char](s, seat, value)


def keep_keys(pool: list[int], cap: int) -> list[Key]:
    """Every distinct multiset of exactly ``cap`` wares out of ``pool`` (counts per type)."""
    out: list[Key] = []

    def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
        if i == len(pool):
            if left == 0:
                out.append(("keep", acc))
            return
        rest = sum(pool[i + 1:])
        for k in range(min(pool[i], left), -1, -1):
            if left - k <= rest:
                rec(i + 1, left - k, acc + (k,))

    rec(0, cap, ())
    return out


def keep_keys_cached(board: Any, pool: list[int], cap: int) -> list[Key]:
    """:func:`keep_keys`, memoised per board (the same pools recur all game long)."""
    memo = board.keep_cache
    k = (tuple(pool), cap)
    keys = memo.get(k)
    if keys is None:
        keys = memo[k] = keep_keys(pool, cap)
    return keys
