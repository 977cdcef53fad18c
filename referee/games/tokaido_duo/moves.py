"""Where a character may go with a die, and what it may do there: the ``move`` option keys.

One key per distinct outcome (rules page, Decisions 2): destinations are deduplicated (a pilgrim
using Hasty and one skipping an occupied space may land on the same space), and an effect choice
is offered only when it changes something (no "decline" at a temple when the track is full).
Wave tiles are offered side by side with the plain move (every wave effect is optional).
These are queries: they read the state and change nothing. The destinations and their keys come
from the board's :class:`.tables.MoveTables`; what is left to do here is what depends on the
position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .board import Board
from .options import Key
from .tables import COASTAL_TOWNS, COUNT_MASK, MOST_MEEPLES, artist_dest_keys, sell_keys

if TYPE_CHECKING:
    from .state import TokaidoState

PILGRIM, MERCHANT, ARTIST = 0, 1, 2
"""Character indexes (the order of :data:`.board.CHARACTERS`)."""
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
    t = s.tables
    space = t.town_space
    here, other = s.pilgrims[seat], s.pilgrims[1 - seat]
    m0, m1 = space[s.merchants[0]], space[s.merchants[1]]
    size = t.ring_size
    to = (here + steps) % size
    while to != here and (to == other or to == m0 or to == m1):  # its own space is free
        to = (to + 1) % size
    return to


def pilgrim_effect_possible(s: TokaidoState, seat: int, space: int) -> bool:
    """Whether the space's effect would change anything: past the end of a track nothing
    happens, a hot spring already held gives nothing, a seashore with no tile to take neither
    (no tile on the board, and the seat holds all three)."""
    kind = s.board.ring[space]
    if kind == "C":
        return True
    if kind == "T":
        return s.temple[seat] < s.tables.temple_end
    if kind == "G":
        return s.garden[seat] < s.tables.garden_end
    if kind == "H":
        return s.spring_holder != seat
    return s.wave_holder.count(seat) < 3


def seashore_choices(s: TokaidoState, seat: int) -> list[Key]:
    """Wave tiles on the board; if none, the opponent's (rules page: Seashore)."""
    on_board = [("wave", c, -1) for c in range(3) if s.wave_holder[c] < 0]
    if on_board:
        return on_board
    return [("wave", c, holder) for c, holder in enumerate(s.wave_holder) if holder != seat]


def pilgrim_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Hasty: may move one more step; Tranquil: one fewer (at least 1); each landing with its
    effect used or declined."""
    t = s.tables
    to = pilgrim_landing(s, seat, value)
    keys = list(t.pilgrim[to][pilgrim_effect_possible(s, seat, to)])
    if s.wave_holder[PILGRIM] == seat:
        side = s.wave_side[PILGRIM]
        if side == "hasty":
            then = pilgrim_landing(s, seat, value + 1)
        elif side == "tranquil" and value > 1:
            then = pilgrim_landing(s, seat, value - 1)
        else:
            return keys
        if then != to:
            keys += t.pilgrim[then][pilgrim_effect_possible(s, seat, then)]
    return keys


def merchant_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` routes, no town twice; never onto an occupied coastal town (a pilgrim
    or a merchant there). A coastal town sells the boutique's ware (any number held, for its
    value each, Crafty +1) or nothing; a mountain town draws its value (Robust: one more) or
    nothing."""
    t = s.tables
    here = s.merchants[seat]
    side = s.wave_side[MERCHANT] if s.wave_holder[MERCHANT] == seat else None
    keys: list[Key] = []
    sells = t.sell[side == "crafty"][here][value]
    if sells:
        at, town_bit = t.space_town_bit, t.town_bit  # coastal towns with a pilgrim or a merchant
        blocked = (at[s.pilgrims[0]] | at[s.pilgrims[1]]
                   | town_bit[s.merchants[0]] | town_bit[s.merchants[1]])
        held, boutiques = s.wares[seat], s.boutiques
        for bit, town, by_token in sells:
            if not blocked & bit:
                ware, price, by_held = by_token[boutiques[town]]
                try:
                    keys += by_held[held[ware]]
                except IndexError:  # more wares than the game has: only a position by hand
                    keys += sell_keys(town, ware, price, held[ware], side == "crafty")
    draws = t.draw[side == "robust"][here][value]
    if draws:
        in_bag = sum(s.bag)
        for by_bag in draws:
            try:
                keys += by_bag[in_bag]
            except IndexError:  # more wares than the game has: only a position by hand
                keys += by_bag[-1]
    return keys


def artist_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` zones, none twice; paint (Proficient: +1) or gift where eligible
    (Inspired: the start or a passed zone matches too), or nothing."""
    t = s.tables
    # Other meeples in a zone (rules page: Paint): pilgrims and merchants of either seat on
    # its border (ring spaces, coastal or mountain towns), plus the other artist if in the
    # zone; counted for every zone at once (a bit field per zone).
    at_space, at_town = t.count_at_space, t.count_at_town
    p0, p1 = s.pilgrims
    m0, m1 = s.merchants
    counts = (at_space[p0] + at_space[p1] + at_town[m0] + at_town[m1]
              + t.count_in_zone[s.artists[1 - seat]])
    revealed = s.revealed[seat]
    side = s.wave_side[ARTIST] if s.wave_holder[ARTIST] == seat else None
    gifts = s.gifts[seat]  # the column of a gift due (see MoveTables._artist)
    due = 2 + 2 * s.tiles[seat][gifts] + (side == "inspired") if revealed > gifts else 0
    face_down = t.paintings - revealed
    keys: list[Key] = []
    if side == "proficient" or face_down < 0:  # one more tile may be painted (or a bad state)
        for shift, dest, gift in t.artist_dests[s.artists[seat]][value]:
            n = min(counts >> shift & COUNT_MASK, face_down)
            keys += artist_dest_keys(dest, n, side == "proficient" and n < face_down, gift[due])
        return keys
    entries = t.artist[s.artists[seat]][value][due]
    if face_down >= MOST_MEEPLES:  # any count can be painted
        for shift, by_count in entries:
            keys += by_count[counts >> shift & COUNT_MASK]
        return keys
    for shift, by_count in entries:  # as many as are left face down
        n = counts >> shift & COUNT_MASK
        keys += by_count[n if n < face_down else face_down]
    return keys


MOVE_KEYS = (pilgrim_keys, merchant_keys, artist_keys)
"""By character: the move keys of that character for a seat and a die value."""


def move_keys(s: TokaidoState, seat: int, character: int, value: int) -> list[Key]:
    """Every distinct outcome of moving ``character`` exactly ``value``; empty if it cannot."""
    return MOVE_KEYS[character](s, seat, value)


def can_move(s: TokaidoState, seat: int, character: int, value: int) -> bool:
    """Whether ``move_keys`` is not empty, without listing them where that is known: a pilgrim
    always lands (37 spaces, at most three occupied), an artist whenever a zone lies exactly
    ``value`` away."""
    if character == PILGRIM:
        return True
    if character == ARTIST:
        return bool(s.board.artist_dest[s.artists[seat]][value])
    return bool(merchant_keys(s, seat, value))


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
