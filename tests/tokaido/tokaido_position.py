"""Build explicit Tokaido Duo positions for scenario tests.

Usage::

    from tokaido_position import build, act, ids, pick, script_draws

    s = build(pilgrims=(10, 20), merchants=("M2", "C2"), temple=(8, 1))
    act(s, seat=0, die="pilgrim", value=3)      # seat 0 takes the pilgrim die showing 3
    assert "move:13:effect" in ids(s)            # the open decision's option ids
    pick(s, "move:13:effect")                    # answer it (whoever is asked)

``build`` starts a real game from ``seed`` (two seats, or solo with ``automa=LEVEL``) and then
overrides any of the fields below; anything not given keeps the seeded setup. Per-seat fields
take a pair ``(seat0, seat1)``; use ``None`` inside the pair to keep a seat's value.

- ``pilgrims``: ring indices; ``merchants``: town names (``"C3"``, ``"M2"``);
  ``artists``: zone names (``"Z4"``)
- ``temple``, ``garden``, ``coins``, ``slabs``: numbers
- ``wares``: per seat a mapping ware -> count (the bag is adjusted so 26 wares stay in play)
- ``tiles``: per seat the 10 painting icons in slot order; ``revealed`` / ``gifts``: how many
  slots (from the left) are revealed-or-gifted / gifted
- ``waves``: mapping character -> ``(side, holder)`` with holder a seat or ``None`` (board)
- ``spring``: the hot spring holder (seat or ``None``)
- ``boutiques``: mapping coastal town -> ``(ware, value)`` for the towns you care about
- ``first``: who is first player of the current round; ``dice``: ``(pilgrim, merchant, artist)``

``act`` makes ``seat`` the round's first player with nothing used yet and takes ``die`` at
``value``, leaving the state at the move decision (forced steps already applied).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.core import Decision
from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.automa import AutomaTracks
from referee.games.tokaido_duo.board import CHARACTERS, Board
from referee.games.tokaido_duo.state import TokaidoState

BOARD: Board = GAME.load_board()
PAIR_FIELDS = ("temple", "garden", "coins", "slabs")


def build(seed: int = 0, automa: int | None = None, board: Board | None = None,
          **fields: Any) -> TokaidoState:
    """A game from ``seed`` with the given fields overridden (see the module docstring)."""
    s = GAME.new_state(1 if automa else 2, seed, board or BOARD,
                       {"automa": automa} if automa else None)
    b = s.board
    if s.automa is not None:  # undo an opening Automa turn: a clean table to build on
        s.automa = AutomaTracks(b, s.automa.level)
        s.pilgrims, s.merchants, s.artists = ([st[k] for st in b.start] for k in range(3))
        s.wave_holder, s.spring_holder = [-1, -1, -1], -1
    _pairs(s, fields)
    if "wares" in fields:
        _set_wares(s, fields.pop("wares"))
    if "tiles" in fields:
        for seat, icons in enumerate(fields.pop("tiles")):
            if icons is not None:
                s.tiles[seat] = [b.icons.index(i) for i in icons]
    for key in ("revealed", "gifts"):
        for seat, v in enumerate(fields.pop(key, (None, None))):
            if v is not None:
                getattr(s, key)[seat] = v
    for char, (side, holder) in fields.pop("waves", {}).items():
        c = CHARACTERS.index(char)
        s.wave_side[c], s.wave_holder[c] = side, -1 if holder is None else holder
        if s.automa and holder == 1:
            s.automa.place_wave(c)
    if "spring" in fields:
        h = fields.pop("spring")
        s.spring_holder = -1 if h is None else h
    for town, (ware, value) in fields.pop("boutiques", {}).items():
        _set_boutique(s, town, ware, value)
    first = fields.pop("first", 0)
    dice = fields.pop("dice", None)
    if fields:
        raise TypeError(f"unknown position fields {sorted(fields)}")
    reset_round(s, first, dice)
    return s


def _pairs(s: TokaidoState, f: dict[str, Any]) -> None:
    b = s.board
    conv: dict[str, tuple[str, Callable[[Any], int]]] = {
        "pilgrims": ("pilgrims", int), "merchants": ("merchants", b.towns.index),
        "artists": ("artists", b.zones.index)}
    for key, (attr, fn) in conv.items():
        for seat, v in enumerate(f.pop(key, (None, None))):
            if v is not None:
                getattr(s, attr)[seat] = fn(v)
    for key in PAIR_FIELDS:
        for seat, v in enumerate(f.pop(key, (None, None))):
            if v is not None:
                getattr(s, key)[seat] = v


def _set_wares(s: TokaidoState, per_seat: Sequence[Mapping[str, int] | None]) -> None:
    b = s.board
    for seat, m in enumerate(per_seat):
        if m is None:
            continue
        s.wares[seat] = [m.get(w, 0) for w in b.wares]
    s.bag = [b.ware_counts[w] - s.wares[0][w] - s.wares[1][w] for w in range(len(b.wares))]
    if min(s.bag) < 0:
        raise ValueError("more wares on the boards than exist")


def _set_boutique(s: TokaidoState, town: str, ware: str, value: int) -> None:
    """Put a boutique token of (ware, value) on ``town`` (swapping tokens between towns)."""
    b = s.board
    want = next(k for k, t in enumerate(b.boutiques) if t == (b.wares.index(ware), value))
    t = b.towns.index(town)
    other = s.boutiques.index(want)
    s.boutiques[t], s.boutiques[other] = want, s.boutiques[t]


def reset_round(s: TokaidoState, first: int = 0, dice: Sequence[int] | None = None) -> None:
    """Restart the current round's draft: ``first`` to choose among all three dice."""
    s.first_player, s.picks, s.used = first, 0, [-1, -1, -1]
    if dice is not None:
        s.dice = list(dice)
    s.triggers, s.over = [], False
    s.events.clear()
    s.seen = [0, 0]
    s.round_start_event = 0
    s.continue_draft()


def act(s: TokaidoState, seat: int, die: str, value: int) -> TokaidoState:
    """``seat`` takes ``die`` showing ``value`` as the round's first pick."""
    dice = list(s.dice)
    dice[CHARACTERS.index(die)] = value
    reset_round(s, seat, dice)
    pick(s, die)
    return s


def until_choose_die(s: TokaidoState) -> TokaidoState:
    """Answer every open question with its first option until a die is to be chosen."""
    while s.pending() and decision(s).kind != "choose_die":
        pick(s, ids(s)[0])
    return s


def events(s: TokaidoState, kind: str) -> list[tuple[Any, ...]]:
    """The raw events of one type (tuples, see the views module for their fields)."""
    return [e for e in s.events if e[0] == kind]


def decision(s: TokaidoState) -> Decision:
    pending = s.pending()
    assert pending, "the game is over"
    return pending[0]


def ids(s: TokaidoState) -> list[str]:
    """The open decision's option ids ([] when the game is over)."""
    pending = s.pending()
    return [o.id for o in pending[0].options] if pending else []


def pick(s: TokaidoState, option_id: str) -> TokaidoState:
    """Answer the open decision with ``option_id`` (for whichever seat is asked)."""
    d = decision(s)
    s.apply({d.seat: option_id})
    return s


class ScriptedRandom(random.Random):
    """A generator whose ``random()`` answers come from a script first (to force bag draws:
    the engine draws ware number ``int(random() * wares_in_bag)`` in bag order)."""

    def __init__(self, script: list[float], seed: int = 0) -> None:
        super().__init__(seed)
        self.script = script

    def random(self) -> float:
        if self.script:
            return self.script.pop(0)
        return super().random()


def script_draws(s: TokaidoState, wares: Sequence[str]) -> None:
    """Make the next bag draws give exactly ``wares`` in that order."""
    b = s.board
    bag = list(s.bag)
    script = []
    for name in wares:
        w = b.wares.index(name)
        assert bag[w] > 0, f"no {name} left in the bag"
        script.append((sum(bag[:w]) + 0.5) / sum(bag))
        bag[w] -= 1
    s.rng = ScriptedRandom(script)


def scramble_hidden(s: TokaidoState, rng: random.Random) -> TokaidoState:
    """A clone with everything no seat may see changed: both seats' face-down painting tiles
    reshuffled (the owner's too) and another generator (future dice, the bag's draw order)."""
    c = s.clone()
    for seat in (0, 1):
        face_down = c.tiles[seat][c.revealed[seat]:]
        rng.shuffle(face_down)
        c.tiles[seat][c.revealed[seat]:] = face_down
    c.rng = random.Random(rng.random())
    return c


def play_random(s: TokaidoState, rng: random.Random) -> TokaidoState:
    """Play ``s`` to the end with uniformly random choices."""
    while s.pending():
        pick(s, rng.choice(decision(s).options).id)
    return s
