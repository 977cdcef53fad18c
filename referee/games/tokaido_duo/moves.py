"""Where a character may go with a die, and what it may do there: the ``move`` option keys.

One key per distinct outcome (rules page, Decisions 2): destinations are deduplicated (a pilgrim
using Hasty and one skipping an occupied space may land on the same space), and an effect choice
is offered only when it changes something (no "decline" at a temple when the track is full).
Wave tiles are offered side by side with the plain move (every wave effect is optional).
These are queries: they read the state and change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .board import Board
from .options import DECLINE_EFFECT, NO_EFFECT, USE_EFFECT, Key

if TYPE_CHECKING:
    from .state import TokaidoState

PILGRIM, MERCHANT, ARTIST = 0, 1, 2
"""Character indexes (the order of :data:`.board.CHARACTERS`)."""
COASTAL_TOWNS = 8
"""Towns 0..7 are the coastal towns (on the ring); the others are mountain towns."""


def wave_side(s: TokaidoState, seat: int, character: int) -> str | None:
    """The side of ``character``'s wave tile if ``seat`` holds it."""
    return s.wave_side[character] if s.wave_holder[character] == seat else None


def coastal_blockers(s: TokaidoState) -> set[int]:
    """Ring spaces a pilgrim may not stop on / a merchant may not enter: every pilgrim and
    every merchant standing on a coastal town (one meeple per coastal town)."""
    ring = s.board.town_ring
    out = set(s.pilgrims)
    for town in s.merchants:
        if town < COASTAL_TOWNS:
            out.add(ring[town])
    return out


def pilgrim_landing(s: TokaidoState, seat: int, steps: int) -> int:
    """Exactly ``steps`` clockwise (occupied spaces count), then on to the next free space."""
    size = len(s.board.ring)
    occupied = coastal_blockers(s)
    occupied.discard(s.pilgrims[seat])
    to = (s.pilgrims[seat] + steps) % size
    while to in occupied:
        to = (to + 1) % size
    return to


def pilgrim_effect_possible(s: TokaidoState, seat: int, space: int) -> bool:
    """Whether the space's effect would change anything: past the end of a track nothing
    happens, a hot spring already held gives nothing, a seashore with no tile to take neither."""
    kind = s.board.ring[space]
    if kind == "C":
        return True
    if kind == "T":
        return s.temple[seat] < s.board.limits["temple_end"]
    if kind == "G":
        return s.garden[seat] < s.board.limits["garden_end"]
    if kind == "H":
        return s.spring_holder != seat
    return bool(seashore_choices(s, seat))


def seashore_choices(s: TokaidoState, seat: int) -> list[Key]:
    """Wave tiles on the board; if none, the opponent's (rules page: Seashore)."""
    on_board = [("wave", c, -1) for c in range(3) if s.wave_holder[c] < 0]
    if on_board:
        return on_board
    return [("wave", c, holder) for c, holder in enumerate(s.wave_holder) if holder != seat]


def pilgrim_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Hasty: may move one more step; Tranquil: one fewer (at least 1); each landing with its
    effect used or declined."""
    side = wave_side(s, seat, PILGRIM)
    steps = [value]
    if side == "hasty":
        steps.append(value + 1)
    elif side == "tranquil" and value > 1:
        steps.append(value - 1)
    keys: list[Key] = []
    seen: list[int] = []
    for n in steps:
        to = pilgrim_landing(s, seat, n)
        if to in seen:
            continue
        seen.append(to)
        if pilgrim_effect_possible(s, seat, to):
            keys += [("move_pilgrim", to, USE_EFFECT), ("move_pilgrim", to, DECLINE_EFFECT)]
        else:
            keys.append(("move_pilgrim", to, NO_EFFECT))
    return keys


def merchant_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` routes, no town twice; never onto an occupied coastal town."""
    b = s.board
    blocked = coastal_blockers(s)
    keys: list[Key] = []
    for town in b.merchant_dest[s.merchants[seat]][value]:
        if town < COASTAL_TOWNS:
            if b.town_ring[town] in blocked:
                continue
            keys += _sell_keys(s, seat, town)
        else:
            keys += _draw_keys(s, seat, town)
    return keys


def _draw_keys(s: TokaidoState, seat: int, town: int) -> list[Key]:
    """Mountain town: draw its value (Robust: one more), or nothing."""
    in_bag = sum(s.bag)
    if not in_bag:
        return [("move_merchant", town, "plain", 0, 0, -1)]
    n = s.board.town_value[town]
    keys: list[Key] = [("move_merchant", town, "nothing", 0, 0, -1),
                       ("move_merchant", town, "draw", min(n, in_bag), 0, -1)]
    if wave_side(s, seat, MERCHANT) == "robust" and in_bag > n:
        keys.append(("move_merchant", town, "draw+1", n + 1, 0, -1))
    return keys


def _sell_keys(s: TokaidoState, seat: int, town: int) -> list[Key]:
    """Coastal town: sell any number of the boutique's ware for its value each (Crafty +1)."""
    ware, price = s.board.boutiques[s.boutiques[town]]
    held = s.wares[seat][ware]
    if not held:
        return [("move_merchant", town, "plain", 0, 0, -1)]
    keys: list[Key] = [("move_merchant", town, "nothing", 0, 0, -1)]
    crafty = wave_side(s, seat, MERCHANT) == "crafty"
    for k in range(1, held + 1):
        keys.append(("move_merchant", town, "sell", k, k * price, ware))
        if crafty:
            keys.append(("move_merchant", town, "sell+crafty", k, k * (price + 1), ware))
    return keys


def artist_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` zones, none twice; paint (Proficient: +1) or gift where eligible
    (Inspired: the start or a passed zone matches too), or nothing."""
    b = s.board
    face_down = b.limits["paintings"] - s.revealed[seat]
    side = wave_side(s, seat, ARTIST)
    proficient, inspired = side == "proficient", side == "inspired"
    gift_icon = s.tiles[seat][s.gifts[seat]] if s.revealed[seat] > s.gifts[seat] else -1
    # Other meeples in a zone (rules page: Paint): pilgrims and merchants of either seat on
    # its border (ring spaces, coastal or mountain towns), plus the other artist if in the
    # zone. Where they stand is gathered once for every destination.
    spaces, towns = list(s.pilgrims), []
    for town in s.merchants:
        if town < COASTAL_TOWNS:
            spaces.append(b.town_ring[town])
        else:
            towns.append(town)
    other_artist = s.artists[1 - seat]
    zone_ring, zone_towns = b.zone_ring, b.zone_towns
    keys: list[Key] = []
    for dest, icon_mask, first_path, path_by_icon in b.artist_dest[s.artists[seat]][value]:
        opts: list[Key] = []
        ring, near = zone_ring[dest], zone_towns[dest]
        n = 1 if other_artist == dest else 0
        for space in spaces:
            n += space in ring
        for town in towns:
            n += town in near
        n = min(n, face_down)
        if n:
            opts.append(("move_artist", dest, "paint", n))
        if proficient and min(n + 1, face_down) > n:
            opts.append(("move_artist", dest, "paint+1", n + 1))
        if gift_icon >= 0:
            if b.zone_icon[dest] == gift_icon:
                opts.append(("move_artist", dest, "gift", first_path))
            elif inspired and icon_mask >> gift_icon & 1:  # name the path that matches
                opts.append(("move_artist", dest, "gift", path_by_icon[gift_icon]))
        keys += ([("move_artist", dest, "nothing", 0)] + opts if opts
                 else [("move_artist", dest, "plain", 0)])
    return keys


MOVE_KEYS = (pilgrim_keys, merchant_keys, artist_keys)
"""By character: the move keys of that character for a seat and a die value."""


def move_keys(s: TokaidoState, seat: int, character: int, value: int) -> list[Key]:
    """Every distinct outcome of moving ``character`` exactly ``value``; empty if it cannot."""
    return MOVE_KEYS[character](s, seat, value)


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


def keep_keys_cached(board: Board, pool: list[int], cap: int) -> list[Key]:
    """:func:`keep_keys`, memoised per board (the same pools recur all game long)."""
    memo = board.keep_cache
    k = (tuple(pool), cap)
    keys = memo.get(k)
    if keys is None:
        keys = memo[k] = keep_keys(pool, cap)
    return keys
