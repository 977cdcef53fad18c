"""Lookup tables for the move queries of :mod:`.moves`, derived once per board.

A random playout asks where a character may go a few hundred times per game, so the answers
are prepared here from the board's geometry: per start and die value, the destinations with
their option keys already built for every case that varies during a game (wares held, wares in
the bag, meeples counted in a zone, a gift due, a wave tile held). The queries then only look
up and concatenate. Everything here is derived from the board data (see :class:`MoveTables`),
never written by hand, and read only.
"""

from __future__ import annotations

from typing import Any

from .board import ArtistDest, Board
from .options import DECLINE_EFFECT, NO_EFFECT, USE_EFFECT, Key

COASTAL_TOWNS = 8
"""Towns 0..7 are the coastal towns (on the ring); the others are mountain towns."""
MOST_MEEPLES = 5
"""The most meeples that can count for an artist: both pilgrims, both merchants, one artist."""
COUNT_BITS, COUNT_MASK = 3, 7
"""Meeples are counted for every zone at once in one integer, a field of 3 bits per zone (at
most :data:`MOST_MEEPLES` each, so a field never overflows into the next; 8 zones fit in 24
bits, a small integer, which Python adds and shifts fastest)."""

Keys = tuple[Key, ...]


def sell_keys(town: int, ware: int, price: int, held: int, crafty: bool) -> Keys:
    """Coastal town: sell any number of the boutique's ware for its value each (Crafty +1)."""
    if not held:
        return (("move_merchant", town, "plain", 0, 0, -1),)
    keys: list[Key] = [("move_merchant", town, "nothing", 0, 0, -1)]
    for k in range(1, held + 1):
        keys.append(("move_merchant", town, "sell", k, k * price, ware))
        if crafty:
            keys.append(("move_merchant", town, "sell+crafty", k, k * (price + 1), ware))
    return tuple(keys)


def draw_keys(town: int, n: int, in_bag: int, robust: bool) -> Keys:
    """Mountain town: draw its value ``n`` (Robust: one more), or nothing."""
    if not in_bag:
        return (("move_merchant", town, "plain", 0, 0, -1),)
    keys: Keys = (("move_merchant", town, "nothing", 0, 0, -1),
                  ("move_merchant", town, "draw", min(n, in_bag), 0, -1))
    if robust and in_bag > n:
        keys += (("move_merchant", town, "draw+1", n + 1, 0, -1),)
    return keys


def artist_dest_keys(zone: int, n: int, more: bool, gift: Key | None) -> Keys:
    """An artist's keys for one destination: paint ``n`` tiles (``more``: Proficient's one
    more too) or take the ``gift`` where any applies, else just move."""
    opts: list[Key] = []
    if n:
        opts.append(("move_artist", zone, "paint", n))
    if more:
        opts.append(("move_artist", zone, "paint+1", n + 1))
    if gift:
        opts.append(gift)
    if not opts:
        return (("move_artist", zone, "plain", 0),)
    return (("move_artist", zone, "nothing", 0), *opts)


class MoveTables:
    """The tables of one board (build with :func:`move_tables`)."""

    def __init__(self, b: Board) -> None:
        self.ring_size = len(b.ring)
        self.temple_end, self.garden_end = b.limits["temple_end"], b.limits["garden_end"]
        self.paintings = b.limits["paintings"]
        self.town_space = tuple(b.town_ring[t] if t < COASTAL_TOWNS else -1
                                for t in range(len(b.towns)))
        """Per town: its ring space (a coastal town), else -1 (never a space)."""
        self.town_bit = tuple(1 << t if t < COASTAL_TOWNS else 0 for t in range(len(b.towns)))
        """Per town: its bit in a set of coastal towns (a mountain town: none)."""
        self.space_town_bit = tuple(1 << b.ring_town[i] if b.ring_town[i] >= 0 else 0
                                    for i in range(len(b.ring)))
        """Per ring space: the bit of its coastal town in a set of them (else none)."""
        self.pilgrim = tuple(((("move_pilgrim", to, NO_EFFECT),),
                              (("move_pilgrim", to, USE_EFFECT),
                               ("move_pilgrim", to, DECLINE_EFFECT)))
                             for to in range(len(b.ring)))
        """Per ring space: the keys of landing there, by whether its effect can apply."""
        self._merchant(b)
        self._artist(b)

    def _merchant(self, b: Board) -> None:
        """``sell[crafty][town][value]``: per coastal destination (they come first, towns being
        numbered coastal first) its space's bit, the town, and per boutique token the ware it
        buys, its value and the keys by wares held. ``draw[robust][town][value]``: per
        mountain destination its keys by wares in the bag."""
        most_held = max(b.ware_counts)
        in_game = sum(b.ware_counts)

        def sells(town: int, crafty: bool) -> tuple[Any, ...]:
            return (self.town_bit[town], town,
                    tuple((ware, price, tuple(sell_keys(town, ware, price, held, crafty)
                                              for held in range(most_held + 1)))
                          for ware, price in b.boutiques))

        def draws(town: int, robust: bool) -> Keys:
            return tuple(draw_keys(town, b.town_value[town], in_bag, robust)
                         for in_bag in range(in_game + 1))

        self.sell = tuple(tuple(tuple(tuple(sells(t, crafty) for t in dests if t < COASTAL_TOWNS)
                                      for dests in by_value) for by_value in b.merchant_dest)
                          for crafty in (False, True))
        self.draw = tuple(tuple(tuple(tuple(draws(t, robust) for t in dests if t >= COASTAL_TOWNS)
                                      for dests in by_value) for by_value in b.merchant_dest)
                          for robust in (False, True))

    def _artist(self, b: Board) -> None:
        """Meeple counts per zone as bit fields (``count_at_space`` and ``count_at_town``: 1
        in the field of each zone on whose border that space or town lies; ``count_in_zone``:
        in the zone's own field, for the other artist). ``artist[zone][value][column]``: per
        destination, the shift of its field and its keys by that count (no wave tile, enough
        tiles face down for any count); ``artist_dests[zone][value]``: per destination its
        shift, zone and gift key by column (or None), for every other case. The column says
        which gift is due: 0 none (no revealed tile awaits its gift), else two per icon of
        the next tile to give, without and with Inspired."""
        zones = range(len(b.zones))
        self.count_at_space = tuple(sum(1 << COUNT_BITS * z for z in zones if i in b.zone_ring[z])
                                    for i in range(len(b.ring)))
        self.count_at_town = tuple(
            self.count_at_space[b.town_ring[t]] if t < COASTAL_TOWNS
            else sum(1 << COUNT_BITS * z for z in zones if t in b.zone_towns[z])
            for t in range(len(b.towns)))
        self.count_in_zone = tuple(1 << COUNT_BITS * z for z in zones)
        dests = tuple(tuple(tuple(self._artist_dest(b, d) for d in ds) for ds in by_value)
                      for by_value in b.artist_dest)
        self.artist_dests = dests
        columns = range(2 + 2 * len(b.icons))
        self.artist = tuple(tuple(
            tuple(tuple((shift, tuple(artist_dest_keys(zone, n, False, gifts[col])
                                      for n in range(MOST_MEEPLES + 1)))
                        for shift, zone, gifts in ds) for col in columns)
            for ds in by_value) for by_value in dests)

    @staticmethod
    def _artist_dest(b: Board, dest: ArtistDest) -> tuple[int, int, tuple[Key | None, ...]]:
        """A destination's field shift, zone, and gift key per column: the zone's
        own icon matches (the first path named), or with Inspired an icon met on a path."""
        zone, _mask, first, by_icon = dest
        gifts: list[Key | None] = [None, None]
        for icon, path in enumerate(by_icon):
            own = ("move_artist", zone, "gift", first) if b.zone_icon[zone] == icon else None
            met = None if path is None else ("move_artist", zone, "gift", path)
            gifts += [own, own or met]
        return COUNT_BITS * zone, zone, tuple(gifts)


def move_tables(board: Board) -> MoveTables:
    """The board's :class:`MoveTables`, built on first use and kept on the board."""
    t = board.move_tables
    if t is None:
        t = board.move_tables = MoveTables(board)
    assert isinstance(t, MoveTables)
    return t
