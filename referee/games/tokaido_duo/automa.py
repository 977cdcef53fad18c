"""The solo variant's Automa (seat 1): rank tracks instead of boards, and its scripted turn.

Procedure from seed 002 as settled by the rules page.  The Automa picks a die by (1) the pilgrim
if it can stop on a seashore while holding fewer than three wave tiles, (2) the die of highest
rank whose move raises that character's rank, (3) the highest value; ties follow the dice column
order, drawn at random for every roll.  Its merchant and artist walk fixed clockwise loops (the
merchant over coastal towns only, not moving if the destination is occupied).  Its track numbers
are placeholders from the board data and are labelled so in the view and the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import moves
from .board import CHARACTERS, Board
from .moves import ARTIST, MERCHANT, PILGRIM

if TYPE_CHECKING:
    from .state import TokaidoState

NUMBERS_NOTE = "placeholder"
"""How the view and result label the Automa's numbers: the printed cards are not public."""


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
    """Where the Automa's character ``c`` would stop with ``value``; None if it cannot move."""
    if c == PILGRIM:
        return moves.pilgrim_landing(s, 1, value)
    a = s.b.automa
    loop = a["merchant_loop"] if c == MERCHANT else a["artist_loop"]
    here = s.mer[1] if c == MERCHANT else s.art[1]
    dest = loop[(loop.index(here) + value) % len(loop)]
    if c == MERCHANT and (dest == here or s.b.town_ring[dest] in moves.coastal_blockers(s)):
        return None
    return dest


def raises(s: TokaidoState, c: int, dest: int) -> bool:
    """Seed 002: artist on a zone without a coin marker; merchant on a coastal town without
    the painting marker; pilgrim on a temple, a garden or such a coastal town."""
    a = s.b.automa
    if c == ARTIST:
        return dest not in a["coin_zones"]
    if c == MERCHANT:
        return dest != a["painting_town"]
    kind = s.b.ring[dest]
    return kind in "TG" or (kind == "C" and s.b.ring_town[dest] != a["painting_town"])


def choose_die(s: TokaidoState, avail: list[int]) -> int:
    t = s.automa
    assert t is not None
    order = [c for c in s.die_order if c in avail]
    if PILGRIM in avail and s.wave_holder.count(1) < 3:
        if s.b.ring[moves.pilgrim_landing(s, 1, s.dice[PILGRIM])] == "S":
            return PILGRIM
    for c in sorted(order, key=lambda c: -t.rank(c)):
        dest = landing(s, c, s.dice[c])
        if dest is not None and raises(s, c, dest):
            return c
    return max(order, key=lambda c: s.dice[c])


def take_turn(s: TokaidoState, avail: list[int]) -> None:
    """Pick a die, move, and resolve the landing; then the draft goes on (unless the human
    must first return a ware because the Automa took Robust)."""
    c = choose_die(s, avail) if len(avail) > 1 else avail[0]
    s.use_die(1, c)
    dest = landing(s, c, s.value)
    if dest is None:
        s.events.append(("no_move", 1, CHARACTERS[c], s.value))
        s._next_pick()
        return
    if _arrive(s, c, dest):
        return
    s._next_pick()


def _arrive(s: TokaidoState, c: int, dest: int) -> bool:
    b = s.b
    if c == PILGRIM:
        s.events.append(("move", 1, "pilgrim", s.pil[1], dest))
        s.pil[1] = dest
        kind = b.ring[dest]
        if kind == "S" and s.wave_holder.count(1) < 3:
            return _gain_wave(s)
        # A hot spring gives it nothing: the Automa receives only what its procedure lists
        # (seed 002: 「オートマが受け取るのは、ここに書かれたものだけ」), and the token is not listed.
    elif c == MERCHANT:
        s.events.append(("move", 1, "merchant", b.towns[s.mer[1]], b.towns[dest]))
        s.mer[1] = dest
    else:
        s.events.append(("move", 1, "artist", b.zones[s.art[1]], b.zones[dest]))
        s.art[1] = dest
    if raises(s, c, dest):
        _advance(s, c)
    return False


def _advance(s: TokaidoState, c: int) -> None:
    t = s.automa
    assert t is not None
    ended = t.advance(c)
    s.events.append(("automa_rank", CHARACTERS[c], t.pos[c], t.rank(c)))
    if ended:
        s.trigger(f"the Automa's {CHARACTERS[c]} rank token reached the end of its track")


def _gain_wave(s: TokaidoState) -> bool:
    """Seed 002: from the board, else from the player; the tile of its highest-ranked
    character (ties pilgrim > merchant > artist)."""
    t = s.automa
    assert t is not None
    choices = moves.seashore_choices(s, 1)
    _, char, source = max(choices, key=lambda k: (t.rank(k[1]), -k[1]))
    return s.take_wave(1, char, source)


def wave_moved(s: TokaidoState, char: int, seat: int, source: int) -> None:
    """Keep the Automa's cards in step with the wave tiles' holders."""
    t = s.automa
    assert t is not None
    if seat == 1:
        t.place_wave(char)
    elif source == 1:
        t.wave_at[char] = None
