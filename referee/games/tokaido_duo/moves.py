"""Where a character may go with a die, and what it may do there: the ``move`` option keys.

One key per distinct outcome (rules page, Decisions 2): destinations are deduplicated (a pilgrim
using Hasty and one skipping an occupied space may land on the same space), and an effect choice
is offered only when it changes something (no "decline" at a temple when the track is full).
Wave tiles are offered side by side with the plain move (every wave effect is optional).
These are queries: they read the state and change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import ArtistDest, Board
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


class MoveTables:
    """The move queries' lookup tables for one board: what each query would otherwise rebuild
    on every call (destinations with their ready-made option keys), computed once per board
    from its geometry (:func:`tables`). Read only."""

    def __init__(self, b: Board) -> None:
        self.ring_size = len(b.ring)
        self.town_space = tuple(b.town_ring[t] if t < COASTAL_TOWNS else -1
                                for t in range(len(b.towns)))
        """Per town: its ring space (a coastal town), else -1 (never a space)."""
        self.pilgrim = tuple(((("move_pilgrim", to, NO_EFFECT),),
                              (("move_pilgrim", to, USE_EFFECT), ("move_pilgrim", to, DECLINE_EFFECT)))
                             for to in range(len(b.ring)))
        """Per ring space: the keys of landing there, indexed by whether its effect is possible."""
        self.temple_end, self.garden_end = b.limits["temple_end"], b.limits["garden_end"]
        self.paintings = b.limits["paintings"]
        self.merchant = tuple(tuple(tuple(self._merchant_dest(b, town) for town in dests)
                                    for dests in by_value) for by_value in b.merchant_dest)
        """Per town and value: ``(town, its space, its value, its keys)`` per destination."""
        self.token_ware = tuple(ware for ware, _price in b.boutiques)
        """Per boutique token: the ware it buys."""
        self.artist = tuple(tuple(tuple(self._artist_dest(b, dest) for dest in dests)
                                  for dests in by_value) for by_value in b.artist_dest)
        """Per zone and value: one tuple per destination zone (see ``_artist_dest``)."""

    def _merchant_dest(self, b: Board, town: int) -> tuple[int, int, int, Any]:
        """A coastal town: its sell keys by boutique token, wares held and Crafty; a mountain
        town: its draw keys by ``min(wares in the bag, value + 1)`` and Robust."""
        space, value = self.town_space[town], b.town_value[town]
        table: tuple[Any, ...]
        if space >= 0:
            most = max(b.ware_counts)
            table = tuple(tuple((_sell_keys(town, ware, price, held, False),
                                 _sell_keys(town, ware, price, held, True))
                                for held in range(most + 1)) for ware, price in b.boutiques)
        else:
            table = tuple((_draw_keys(town, value, in_bag, False),
                           _draw_keys(town, value, in_bag, True)) for in_bag in range(value + 2))
        return town, space, value, table

    def _artist_dest(self, b: Board, dest: ArtistDest) -> tuple[Any, ...]:
        """``(zone, 0/1 per ring space on its border, 0/1 per town on its border, its icon,
        the gift key by its own icon, the gift key per icon met on a path or None, the
        "nothing" key, the "plain" key)``."""
        zone, _mask, first, by_icon = dest
        ring, near = b.zone_ring[zone], b.zone_towns[zone]
        on_space = tuple(int(i in ring) for i in range(len(b.ring)))
        on_town = tuple(int(b.town_ring[t] in ring if t < COASTAL_TOWNS else t in near)
                        for t in range(len(b.towns)))
        gifts = tuple(None if p is None else ("move_artist", zone, "gift", p) for p in by_icon)
        return (zone, on_space, on_town, b.zone_icon[zone], ("move_artist", zone, "gift", first),
                gifts, ("move_artist", zone, "nothing", 0), ("move_artist", zone, "plain", 0))


def tables(board: Board) -> MoveTables:
    """The board's :class:`MoveTables`, built on first use and kept on the board."""
    t = board.move_tables
    if t is None:
        t = board.move_tables = MoveTables(board)
    assert isinstance(t, MoveTables)
    return t


def pilgrim_landing(s: TokaidoState, seat: int, steps: int) -> int:
    """Exactly ``steps`` clockwise (occupied spaces count), then on to the next free space."""
    t = s.tables
    space = t.town_space
    here, other = s.pilgrims[seat], s.pilgrims[1 - seat]
    m0, m1 = space[s.merchants[0]], space[s.merchants[1]]
    size = t.ring_size
    to = (here + steps) % size
    while to != here and (to == other or to == m0 or to == m1):
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
    by_space = s.tables.pilgrim
    to = pilgrim_landing(s, seat, value)
    keys = list(by_space[to][pilgrim_effect_possible(s, seat, to)])
    if s.wave_holder[PILGRIM] == seat:
        side = s.wave_side[PILGRIM]
        if side == "hasty":
            other = pilgrim_landing(s, seat, value + 1)
        elif side == "tranquil" and value > 1:
            other = pilgrim_landing(s, seat, value - 1)
        else:
            return keys
        if other != to:
            keys += by_space[other][pilgrim_effect_possible(s, seat, other)]
    return keys


def merchant_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` routes, no town twice; never onto an occupied coastal town (a pilgrim
    or a merchant there). A coastal town sells the boutique's ware (any number held, for its
    value each, Crafty +1) or nothing; a mountain town draws its value (Robust: one more) or
    nothing."""
    t = s.tables
    space = t.town_space
    p0, p1 = s.pilgrims
    m0, m1 = space[s.merchants[0]], space[s.merchants[1]]
    side = s.wave_side[MERCHANT] if s.wave_holder[MERCHANT] == seat else None
    crafty, robust = side == "crafty", side == "robust"
    in_bag = -1
    keys: list[Key] = []
    for town, to, n, table in t.merchant[s.merchants[seat]][value]:
        if to >= 0:
            if to == p0 or to == p1 or to == m0 or to == m1:
                continue
            token = s.boutiques[town]
            held = s.wares[seat][t.token_ware[token]]
            try:
                keys += table[token][held][crafty]
            except IndexError:  # more wares than the game has: only a position built by hand
                ware, price = s.board.boutiques[token]
                keys += _sell_keys(town, ware, price, held, crafty)
        else:
            if in_bag < 0:
                in_bag = sum(s.bag)
            keys += table[min(in_bag, n + 1)][robust]
    return keys


def _draw_keys(town: int, n: int, in_bag: int, robust: bool) -> tuple[Key, ...]:
    """Mountain town: draw its value ``n`` (Robust: one more), or nothing; ``in_bag`` wares
    left to draw (up to ``n + 1``: more changes nothing)."""
    if not in_bag:
        return (("move_merchant", town, "plain", 0, 0, -1),)
    keys: tuple[Key, ...] = (("move_merchant", town, "nothing", 0, 0, -1),
                             ("move_merchant", town, "draw", min(n, in_bag), 0, -1))
    if robust and in_bag > n:
        keys += (("move_merchant", town, "draw+1", n + 1, 0, -1),)
    return keys


def _sell_keys(town: int, ware: int, price: int, held: int, crafty: bool) -> tuple[Key, ...]:
    """Coastal town: sell any number of the boutique's ware for its value each (Crafty +1)."""
    if not held:
        return (("move_merchant", town, "plain", 0, 0, -1),)
    keys: list[Key] = [("move_merchant", town, "nothing", 0, 0, -1)]
    for k in range(1, held + 1):
        keys.append(("move_merchant", town, "sell", k, k * price, ware))
        if crafty:
            keys.append(("move_merchant", town, "sell+crafty", k, k * (price + 1), ware))
    return tuple(keys)


def artist_keys(s: TokaidoState, seat: int, value: int) -> list[Key]:
    """Exactly ``value`` zones, none twice; paint (Proficient: +1) or gift where eligible
    (Inspired: the start or a passed zone matches too), or nothing."""
    revealed, gifts = s.revealed[seat], s.gifts[seat]
    face_down = s.tables.paintings - revealed
    side = s.wave_side[ARTIST] if s.wave_holder[ARTIST] == seat else None
    proficient, inspired = side == "proficient", side == "inspired"
    gift_icon = s.tiles[seat][gifts] if revealed > gifts else -1
    # Other meeples in a zone (rules page: Paint): pilgrims and merchants of either seat on
    # its border (ring spaces, coastal or mountain towns), plus the other artist if in the zone.
    p0, p1 = s.pilgrims
    m0, m1 = s.merchants
    other_artist = s.artists[1 - seat]
    keys: list[Key] = []
    for dest, on_space, on_town, icon, gift, gift_by_icon, nothing, plain in \
            s.tables.artist[s.artists[seat]][value]:
        n = on_space[p0] + on_space[p1] + on_town[m0] + on_town[m1] + (other_artist == dest)
        if n > face_down:
            n = face_down
        more = proficient and n < face_down
        if gift_icon < 0 or (icon != gift_icon and not inspired):
            gift = None
        elif icon != gift_icon:  # Inspired: name a path that meets the icon, if any
            gift = gift_by_icon[gift_icon]
        if not (n or more or gift):
            keys.append(plain)
            continue
        keys.append(nothing)
        if n:
            keys.append(("move_artist", dest, "paint", n))
        if more:
            keys.append(("move_artist", dest, "paint+1", n + 1))
        if gift:
            keys.append(gift)
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
