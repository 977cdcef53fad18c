"""The solo variant's Automa (seat 1): its rank tracks, and the decisions of its scripted turn.

Procedure from seed 002 as settled by the rules page.  The Automa picks a die by (1) the pilgrim
if it can stop on a seashore while holding fewer than three wave tiles, (2) the die of highest
rank whose move raises that character's rank, (3) the highest value; ties follow the dice column
order, drawn at random for every roll.  Its merchant and artist walk fixed clockwise loops (the
merchant over coastal towns only, not moving if the destination is occupied).  Its track numbers
are placeholders from the board data and are labelled so in the view and the result.

This module only decides (which die, where, which wave tile) and keeps the arithmetic of its
own :class:`AutomaTracks`; the state applies the decisions, as it does a human seat's answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import moves
from .board import Board
from .moves import ARTIST, MERCHANT, PILGRIM

if TYPE_CHECKING:
    from .state import TokaidoState

AUTOMA = 1
"""The Automa's seat."""


class AutomaTracks:
    """Three rank tracks (pilgrim, merchant, artist): token positions and wave tiles on them.

    ``pos[c]`` is 0 at the start, else the 1-based space the token is on.  ``wave_at[c]`` is
    ``None`` (tile not held), 0 (held, off the track) or the space the tile covers.
    """

    def __init__(self, board: Board, level: int) -> None:
        a = board.automa
        self.level = level
        self.factor = a["factor"][level]
        self.ranks, self.final, self.wave_spaces = a["ranks"], a["final"], a["wave_spaces"]
        self.pos = [0, 0, 0]
        self.wave_at: list[int | None] = [None, None, None]
        self.ended = [False, False, False]

    def clone(self) -> AutomaTracks:
        c = AutomaTracks.__new__(AutomaTracks)
        c.__dict__.update(self.__dict__)
        c.pos, c.wave_at, c.ended = list(self.pos), list(self.wave_at), list(self.ended)
        return c

    def scaled(self, value: int) -> int:
        """Level-2 number times the level factor, rounded half up (rules page: placeholders)."""
        return int(value * self.factor + 0.5)

    def rank(self, c: int) -> int:
        """The first number ahead of the token, skipping a space covered by a wave tile; past
        the last space, the track's final (uncircled) number."""
        for q in range(self.pos[c] + 1, len(self.ranks) + 1):
            if self.wave_at[c] != q:
                return self.scaled(self.ranks[q - 1])
        return self.scaled(self.final)

    def place_wave(self, c: int) -> None:
        """On the first wave space ahead of the token, else off the track."""
        self.wave_at[c] = next((q for q in self.wave_spaces if q > self.pos[c]), 0)

    def wave_moved(self, c: int, to_automa: bool, from_automa: bool) -> None:
        """Keep the cards in step with the wave tiles: a tile gained goes on its track, a tile
        lost leaves it."""
        if to_automa:
            self.place_wave(c)
        elif from_automa:
            self.wave_at[c] = None

    def advance(self, c: int) -> bool:
        """One space on; onto a wave tile: one more, then the tile is placed again.
        True when the token has just reached the last space (an end trigger)."""
        last = len(self.ranks)
        self.pos[c] = min(self.pos[c] + 1, last)
        if self.wave_at[c] and self.wave_at[c] == self.pos[c]:
            self.pos[c] = min(self.pos[c] + 1, last)
            self.place_wave(c)
        if self.pos[c] == last and not self.ended[c]:
            self.ended[c] = True
            return True
        return False


def landing(s: TokaidoState, c: int, value: int) -> int | None:
    """Where the Automa's character ``c`` would stop with ``value``; None if it cannot move
    (seed 002: the merchant does not move when the destination coastal town is occupied)."""
    if c == PILGRIM:
        return moves.pilgrim_landing(s, AUTOMA, value)
    a = s.board.automa
    loop = a["merchant_loop"] if c == MERCHANT else a["artist_loop"]
    here = s.merchants[AUTOMA] if c == MERCHANT else s.artists[AUTOMA]
    dest = loop[(loop.index(here) + value) % len(loop)]
    if c == MERCHANT and (dest == here
                          or s.board.town_ring[dest] in moves.coastal_blockers(s)):
        return None
    return dest


def rank_rises(s: TokaidoState, c: int, dest: int) -> bool:
    """Seed 002: artist on a zone without a coin marker; merchant on a coastal town without
    the painting marker; pilgrim on a temple, a garden or such a coastal town."""
    a = s.board.automa
    if c == ARTIST:
        return dest not in a["coin_zones"]
    if c == MERCHANT:
        return dest != a["painting_town"]
    kind = s.board.ring[dest]
    return kind in "TG" or (kind == "C" and s.board.ring_town[dest] != a["painting_town"])


def wants_wave(s: TokaidoState) -> bool:
    """Rule (1) applies while the Automa holds fewer than three wave tiles."""
    return s.wave_holder.count(AUTOMA) < 3


def choose_die(s: TokaidoState, available: list[int]) -> int:
    """The die the Automa takes: rules (1), (2), (3) above, ties by the column order."""
    t = s.automa
    assert t is not None
    order = [c for c in s.die_order if c in available]
    if PILGRIM in available and wants_wave(s):
        if s.board.ring[moves.pilgrim_landing(s, AUTOMA, s.dice[PILGRIM])] == "S":
            return PILGRIM
    for c in sorted(order, key=lambda c: -t.rank(c)):
        dest = landing(s, c, s.dice[c])
        if dest is not None and rank_rises(s, c, dest):
            return c
    return max(order, key=lambda c: s.dice[c])


def wave_to_take(s: TokaidoState) -> tuple[int, int]:
    """Seed 002: from the board, else from the player; the tile of its highest-ranked
    character (ties pilgrim > merchant > artist). Returns (character, source seat or -1)."""
    t = s.automa
    assert t is not None
    _, c, source = max(moves.seashore_choices(s, AUTOMA), key=lambda k: (t.rank(k[1]), -k[1]))
    return c, source
