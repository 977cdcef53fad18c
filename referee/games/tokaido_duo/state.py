"""The Tokaido Duo game state: the round's 1-2-1 draft and every step of using a die.

The state is a handful of flat lists (cheap to clone) plus a *phase*: which question is open
(``choose_die``, ``move``, ``keep_wares``, ``wave_tile``, ``hot_spring``, ``return_ware``), for
whom, and the option keys answering it (see :mod:`.options`).  Every transition ends by opening
the next question with :meth:`TokaidoState._ask`; :meth:`_settle` then applies forced questions
(one option) until a real choice or the end, so :meth:`pending` never offers a single option.

Chance (dice, bag draws, setup shuffles) comes only from ``self.rng``.  Events are appended as
small tuples and rendered to dicts only by :mod:`.views`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from referee.core import Decision, GameOverError, IllegalChoiceError, Result, State

from . import automa as automa_mod
from . import moves, scoring
from .board import CHARACTERS, Board

DUO_COLOURS = (0, 1)
"""Two seats: seat 0 purple, seat 1 green."""
SOLO_COLOURS = (1, 0)
"""Solo: the human (seat 0) green, the Automa (seat 1) purple (seed 002: 「オートマは紫を担当し」)."""
from .moves import MERCHANT, Key
from .options import PROMPTS, option_for

_COPY_LISTS = ("pil", "mer", "art", "temple", "garden", "coins", "slabs", "revealed", "gifts",
               "wave_holder", "wave_side", "boutique", "bag", "dice", "used", "die_order",
               "triggers", "events", "seen", "keys")


class TokaidoState(State):
    """A Tokaido Duo game (two seats; in solo play seat 1 is the engine's Automa)."""

    def __init__(self, board: Board, seed: int, num_players: int = 2,
                 level: int | None = None, setup: bool = True) -> None:
        self.b = board
        self.num_players = num_players
        self.rng = random.Random(seed)
        self.automa = automa_mod.AutomaTracks(board, level) if level is not None else None
        self.colours = SOLO_COLOURS if level is not None else DUO_COLOURS
        """Each seat's colour (an index into :data:`COLOURS`): it decides the painting set."""
        self.events: list[tuple[Any, ...]] = []
        self.seen = [0, 0]
        self.triggers: list[str] = []
        self.over = False
        self.pool: list[int] | None = None
        self.ret_seat = -1
        self.gained = False
        self._pending: list[Decision] = []
        self.phase, self.seat = "setup", 0
        self.keys: list[Key] = []
        self.actor = self.char = self.value = self.picks = self.round_event = 0
        self.dice, self.used, self.die_order = [1, 1, 1], [-1, -1, -1], [0, 1, 2]
        self._setup()
        if setup:
            self._start_round()
            self._settle()

    # ----------------------------------------------------------------- setup
    def _setup(self) -> None:
        """Rules page, Components and setup; seat 0 starts (solo: drawn, seed 002)."""
        b, rng = self.b, self.rng
        self.pil = [s[0] for s in b.start]
        self.mer = [s[1] for s in b.start]
        self.art = [s[2] for s in b.start]
        self.temple, self.garden = [1, 1], [1, 1]
        self.coins, self.slabs = [0, 0], [0, 0]
        self.wares = [[0] * len(b.wares), [0] * len(b.wares)]
        self.bag = list(b.ware_counts)
        self.boutique = list(range(8))
        rng.shuffle(self.boutique)
        self.tiles = [list(b.paintings[self.colours[0]]), list(b.paintings[self.colours[1]])]
        rng.shuffle(self.tiles[0])
        rng.shuffle(self.tiles[1])
        self.revealed, self.gifts = [0, 0], [0, 0]
        self.wave_holder = [-1, -1, -1]
        self.wave_side = [b.waves[c][rng.randrange(2)] for c in range(3)]
        self.spring = -1
        self.round = 0
        self.first = rng.randrange(2) if self.automa else 1  # flipped to the starter below

    # ---------------------------------------------------------------- interface
    def pending(self) -> list[Decision]:
        return list(self._pending)

    def apply(self, choices: Mapping[int, str]) -> None:
        if self.over:
            raise GameOverError("the game is over")
        d = self._pending[0]
        choice = choices.get(d.seat)
        if len(choices) != 1 or choice is None:
            raise IllegalChoiceError(d.seat, dict(choices), d.kind,
                                     f"expected an answer from seat {d.seat} only")
        i = 0
        for o in d.options:
            if o.id == choice:
                break
            i += 1
        else:
            raise IllegalChoiceError(d.seat, choice, d.kind)
        self.seen[d.seat] = len(self.events)
        key = self.keys[i]
        _HANDLERS[key[0]](self, key)
        self._settle()

    def view(self, seat: int | None) -> dict[str, Any]:
        from .views import build_view
        return build_view(self, seat)

    def result(self) -> Result | None:
        return scoring.result(self) if self.over else None

    def clone(self) -> TokaidoState:
        c = TokaidoState.__new__(TokaidoState)
        c.__dict__.update(self.__dict__)
        for name in _COPY_LISTS:
            setattr(c, name, list(getattr(self, name)))
        c.wares = [list(self.wares[0]), list(self.wares[1])]
        c.tiles = [list(self.tiles[0]), list(self.tiles[1])]
        c.pool = list(self.pool) if self.pool is not None else None
        c.automa = self.automa.clone() if self.automa else None
        # __new__ skips seeding from the OS (most of a clone's cost); setstate sets it all
        c.rng = random.Random.__new__(random.Random)
        c.rng.setstate(self.rng.getstate())
        return c

    @property
    def is_over(self) -> bool:
        return self.over

    # ------------------------------------------------------------- the machine
    def _ask(self, seat: int, phase: str, keys: list[Key]) -> None:
        self.phase, self.seat, self.keys = phase, seat, keys

    def _settle(self) -> None:
        """Apply forced steps until a real choice (2+ options) or the end of the game."""
        while not self.over:
            if len(self.keys) > 1:
                try:
                    cache = self.b.opt_cache
                    opts = tuple([cache[k] for k in self.keys])
                except KeyError:
                    opts = tuple([option_for(self.b, k) for k in self.keys])
                self._pending = [Decision(self.seat, self.phase, PROMPTS[self.phase], opts)]
                return
            key = self.keys[0]
            _HANDLERS[key[0]](self, key)
        self._pending = []

    def is_automa(self, seat: int) -> bool:
        return self.automa is not None and seat == 1

    # ------------------------------------------------------------ round / draft
    def _start_round(self) -> None:
        """Roll the three dice; the first player alternates every round (1-2-1 draft)."""
        self.round += 1
        self.round_event = len(self.events)
        self.first = 1 - self.first
        rnd = self.rng.random
        self.dice = [f[int(rnd() * len(f))] for f in self.b.dice]
        self.used = [-1, -1, -1]
        self.picks = 0
        self.die_order = [0, 1, 2]
        if self.automa:
            self.rng.shuffle(self.die_order)  # the Automa's tie order, random per roll
        self.events.append(("round", self.round, self.first, tuple(self.dice),
                            tuple(self.die_order) if self.automa else None))
        self._next_pick()

    def _next_pick(self) -> None:
        """A picks, B picks, A uses the last die; after the third, the round (or game) ends."""
        if self.picks == 3:
            if self.triggers:
                self.over = True
                self.phase, self.keys = "over", []
                self.events.append(("end", "; ".join(self.triggers)))
                return
            self._start_round()
            return
        seat = 1 - self.first if self.picks == 1 else self.first
        avail = [c for c in range(3) if self.used[c] < 0]
        if self.is_automa(seat):
            automa_mod.take_turn(self, avail)
            return
        self._ask(seat, "choose_die", [("die", c, self.dice[c]) for c in avail])

    def _k_die(self, key: Key) -> None:
        self.use_die(self.seat, key[1])
        self._begin_move()

    def use_die(self, seat: int, char: int) -> None:
        self.used[char] = seat
        self.picks += 1
        self.actor, self.char, self.value, self.gained = seat, char, self.dice[char], False
        self.events.append(("die", seat, CHARACTERS[char], self.value))

    def _begin_move(self) -> None:
        keys = moves.MOVE_KEYS[self.char](self, self.actor, self.value)
        if not keys:  # cannot move exactly the value: the die is spent, no effect
            self.events.append(("no_move", self.actor, CHARACTERS[self.char], self.value))
            self._end_action()
            return
        self._ask(self.actor, "move", keys)

    def _end_action(self) -> None:
        """Offer the hot spring (same die again) when it is held, was not gained by this action,
        and a repeat can move; otherwise go on with the draft."""
        a = self.actor
        if (self.spring == a and not self.gained and not self.is_automa(a)
                and moves.move_keys(self, a, self.char, self.value)):
            self._ask(a, "hot_spring", [("spring", 0), ("spring", 1)])
            return
        self._next_pick()

    def _k_spring(self, key: Key) -> None:
        if key[1]:
            self.spring = -1
            self.events.append(("spring_used", self.actor, CHARACTERS[self.char], self.value))
            self._begin_move()
        else:
            self._next_pick()

    # ---------------------------------------------------------------- pilgrim
    def _k_mp(self, key: Key) -> None:
        _, dest, eff = key
        a = self.actor
        self.events.append(("move", a, "pilgrim", self.pil[a], dest))
        self.pil[a] = dest
        if eff == 1 and self.pilgrim_effect(a, dest):
            return
        self._end_action()

    def pilgrim_effect(self, seat: int, space: int) -> bool:
        """Apply the space's effect; True when a question (wave tile) is now open."""
        kind = self.b.ring[space]
        if kind == "C":
            town = self.b.ring_town[space]
            self.gain_coins(seat, self.b.boutiques[self.boutique[town]][1], "coastal")
        elif kind == "T":
            self._track(seat, self.temple, "temple", "temple_end")
        elif kind == "G":
            self._track(seat, self.garden, "garden", "garden_end")
        elif kind == "H":
            self.take_spring(seat)
        else:
            self._ask(seat, "wave_tile", moves.seashore_choices(self, seat))
            return True
        return False

    def _track(self, seat: int, track: list[int], name: str, limit: str) -> None:
        end = self.b.limits[limit]
        if track[seat] < end:
            track[seat] += 1
            self.events.append(("track", seat, name, track[seat]))
            if track[seat] == end:
                self.trigger(f"{name} {end} reached by seat {seat}")

    def take_spring(self, seat: int) -> None:
        """Take the token from the board or the opponent; it cannot pay for this action."""
        if self.spring != seat:
            self.events.append(("spring", seat, None if self.spring < 0 else self.spring))
            self.spring = seat
            if seat == self.actor:
                self.gained = True

    def _k_wave(self, key: Key) -> None:
        _, char, source = key
        if self.take_wave(self.seat, char, source):
            return
        self._end_action()

    def take_wave(self, seat: int, char: int, source: int) -> bool:
        """Move a wave tile to ``seat``; True when its loser must now return a ware (Robust)."""
        self.wave_holder[char] = seat
        self.events.append(("wave", seat, CHARACTERS[char], self.wave_side[char], source))
        if self.automa:
            automa_mod.wave_moved(self, char, seat, source)
        if (source >= 0 and char == MERCHANT and self.wave_side[char] == "robust"
                and sum(self.wares[source]) > self.b.limits["wares"]):
            self.ret_seat = source
            self._ask(source, "return_ware",
                      [("ret", w) for w, n in enumerate(self.wares[source]) if n])
            return True
        return False

    def _k_ret(self, key: Key) -> None:
        w = key[1]
        self.wares[self.ret_seat][w] -= 1
        self.bag[w] += 1
        self.events.append(("return", self.ret_seat, self.b.wares[w]))
        self.ret_seat = -1
        self._end_action()

    # ---------------------------------------------------------------- merchant
    def _k_mm(self, key: Key) -> None:
        _, dest, mode, count, coins, ware = key
        a = self.actor
        self.events.append(("move", a, "merchant", self.b.towns[self.mer[a]], self.b.towns[dest]))
        self.mer[a] = dest
        if mode.startswith("draw"):
            if self._draw(a, count):
                return
        elif mode.startswith("sell"):
            self.wares[a][ware] -= count
            self.bag[ware] += count
            self.events.append(("sell", a, self.b.wares[ware], count, coins))
            self.gain_coins(a, coins, "sale")
        self._end_action()

    def ware_cap(self, seat: int) -> int:
        robust = self.wave_holder[MERCHANT] == seat and self.wave_side[MERCHANT] == "robust"
        return self.b.limits["wares_robust" if robust else "wares"]

    def _draw(self, seat: int, count: int) -> bool:
        """Draw from the bag; True when the seat must now choose which wares to keep."""
        pool = list(self.wares[seat])
        drawn = []
        bag, rng = self.bag, self.rng
        for _ in range(count):
            r = int(rng.random() * sum(bag))
            w = 0
            while r >= bag[w]:
                r -= bag[w]
                w += 1
            bag[w] -= 1
            pool[w] += 1
            drawn.append(self.b.wares[w])
        self.events.append(("draw", seat, tuple(drawn)))
        cap = self.ware_cap(seat)
        if sum(pool) <= cap:
            self.wares[seat] = pool
            return False
        self.pool = pool
        self._ask(seat, "keep_wares", moves.keep_keys_cached(self.b, pool, cap))
        return True

    def _k_keep(self, key: Key) -> None:
        kept, pool, a = key[1], self.pool, self.actor
        assert pool is not None
        back = []
        for w, n in enumerate(kept):
            self.bag[w] += pool[w] - n
            back += [self.b.wares[w]] * (pool[w] - n)
        self.wares[a] = list(kept)
        self.pool = None
        self.events.append(("returned", a, tuple(back)))
        self._end_action()

    def gain_coins(self, seat: int, amount: int, source: str) -> None:
        """Coins from the pilgrim or a sale; every 10 become a gold slab at once."""
        self.coins[seat] += amount
        self.events.append(("coins", seat, amount, source))
        per, top = self.b.limits["coins_per_slab"], self.b.limits["slabs"]
        while self.coins[seat] >= per:
            self.coins[seat] -= per
            self.slabs[seat] += 1
            self.events.append(("slab", seat, self.slabs[seat]))
            if self.slabs[seat] == top:
                self.trigger(f"gold slab {top} gained by seat {seat}")

    # ----------------------------------------------------------------- artist
    def _k_ma(self, key: Key) -> None:
        _, dest, mode, reveal = key
        a = self.actor
        self.events.append(("move", a, "artist", self.b.zones[self.art[a]], self.b.zones[dest]))
        self.art[a] = dest
        if mode.startswith("paint"):
            start = self.revealed[a]
            self.revealed[a] = start + reveal
            icons = tuple(self.b.icons[t] for t in self.tiles[a][start:start + reveal])
            self.events.append(("paint", a, icons))
        elif mode == "gift":
            icon = self.b.icons[self.tiles[a][self.gifts[a]]]
            self.gifts[a] += 1
            self.events.append(("gift", a, icon, self.gifts[a]))
            if self.gifts[a] == self.b.limits["paintings"]:
                self.trigger(f"painting {self.gifts[a]} gifted by seat {a}")
        self._end_action()

    # -------------------------------------------------------------------- end
    def trigger(self, reason: str) -> None:
        """An end trigger: the round is played out, then the game ends."""
        self.triggers.append(reason)
        self.events.append(("trigger", reason))


_HANDLERS: dict[str, Callable[[TokaidoState, Key], None]] = {
    "die": TokaidoState._k_die, "mp": TokaidoState._k_mp, "mm": TokaidoState._k_mm,
    "ma": TokaidoState._k_ma, "keep": TokaidoState._k_keep, "wave": TokaidoState._k_wave,
    "spring": TokaidoState._k_spring, "ret": TokaidoState._k_ret}
"""Option key tag -> the transition applying it."""
