"""The Tokaido Duo game state: the round's 1-2-1 draft and every step of using a die.

The state is a handful of flat lists (cheap to clone) plus a *phase*: which question is open
(``choose_die``, ``move``, ``keep_wares``, ``wave_tile``, ``hot_spring``, ``return_ware``), for
whom, and the option keys answering it (:mod:`.options`; the rule queries producing them are in
:mod:`.moves`).  Every transition ends by opening the next question with :meth:`_ask`;
:meth:`_settle` then applies forced questions (one option) until a real choice or the end, so
:meth:`pending` never offers a single option.  In solo play the Automa's turn is played here
too, from the decisions of :mod:`.automa`.

Chance (dice, bag draws, setup shuffles) comes only from ``self.rng``.  Events are appended as
small tuples and rendered to dicts only by :mod:`.views`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from referee.core import Decision, GameOverError, IllegalChoiceError, Result, State

from . import automa as automa_rules, moves, scoring
from .automa import AUTOMA, AutomaTracks
from .board import CHARACTERS, Board
from .moves import ARTIST, MERCHANT, MOVE_KEYS, PILGRIM
from .options import HOT_SPRING_KEYS, PROMPTS, USE_EFFECT, Key, option_for
from .tables import move_tables
from .views import build_view, render_event

DUO_COLOURS = (0, 1)
"""Two seats: seat 0 purple, seat 1 green."""
SOLO_COLOURS = (1, 0)
"""Solo: the human (seat 0) green, the Automa (seat 1) purple (seed 002: 「オートマは紫を担当し」)."""

_NO_INDEX: dict[str, int] = {}
_DECISION_CACHE_MAX = 50_000
"""Decisions kept per board (a few MB); about 4,000 distinct ones recur in random play."""

_COPY_LISTS = ("pilgrims", "merchants", "artists", "temple", "garden", "coins", "slabs",
               "revealed", "gifts", "wave_holder", "wave_side", "boutiques", "bag", "dice", "used",
               "die_order", "triggers", "events", "seen", "option_keys")
"""Flat lists a clone copies."""
_SHARED = ("board", "tables", "num_players", "colours", "over", "return_seat", "spring_gained",
           "spring_holder", "round", "first_player", "phase", "seat", "actor", "character",
           "value", "picks", "round_start_event", "_pending", "_index")
"""Immutable values (or objects never changed in place) a clone shares."""


class TokaidoState(State):
    """A Tokaido Duo game (two seats; in solo play seat 1 is the engine's Automa).

    Per-seat lists are indexed by seat: ``pilgrims`` (ring spaces), ``merchants`` (towns),
    ``artists`` (zones), ``temple``, ``garden``, ``coins``, ``slabs``, ``wares`` (counts by ware
    type), ``tiles`` (painting icons in slot order), ``revealed`` and ``gifts`` (slots from the
    left). Per character: ``dice``, ``used`` (the seat that took the die, -1), ``wave_side``,
    ``wave_holder`` (-1: on the board). The action in progress: ``actor`` uses ``character``'s
    die showing ``value``.
    """

    # Slots: the engine reads and writes these all the time, and a slot is the fastest
    # attribute there is (an instance dict this size is not).
    __slots__ = _COPY_LISTS + _SHARED + ("wares", "tiles", "keep_pool", "automa", "rng")

    def __init__(self, board: Board, seed: int, num_players: int = 2,
                 level: int | None = None, setup: bool = True) -> None:
        """A new game from ``seed``; ``setup=False`` stops before the first round, for a
        position to be completed by hand (``determinize``) and opened with :meth:`reopen`."""
        self.board = board
        self.num_players = num_players
        self.rng = random.Random(seed)
        self.automa = AutomaTracks(board, level) if level is not None else None
        self.colours = SOLO_COLOURS if level is not None else DUO_COLOURS
        """Each seat's colour (an index into :data:`.board.COLOURS`): it decides the paintings."""
        self.events: list[tuple[Any, ...]] = []
        self.seen = [0, 0]
        """Per seat: how many events it had seen when it last decided (views show the rest)."""
        self.triggers: list[str] = []
        self.over = False
        self.keep_pool: list[int] | None = None
        """Wares held plus drawn, while the drawer chooses which to keep."""
        self.return_seat = -1
        """The seat returning a ware for the Robust tile it lost, else -1."""
        self.spring_gained = False
        """Whether the action in progress gained the hot spring (it cannot pay for itself)."""
        self.tables = move_tables(board)
        self._pending: list[Decision] | None = None
        """The open question's decisions, looked up when first asked (None: not yet)."""
        self._index: dict[str, int] = _NO_INDEX
        """The pending decision's option id -> its index in ``option_keys``."""
        self.phase, self.seat = "setup", 0
        self.option_keys: list[Key] = []
        self.actor = self.character = self.value = self.picks = self.round_start_event = 0
        self.dice, self.used, self.die_order = [1, 1, 1], [-1, -1, -1], [0, 1, 2]
        self._setup()
        if setup:
            self._start_round()
            self._settle()

    def _setup(self) -> None:
        """Rules page, Components and setup; seat 0 starts (solo: drawn, seed 002)."""
        b, rng = self.board, self.rng
        self.pilgrims = [start[0] for start in b.start]
        self.merchants = [start[1] for start in b.start]
        self.artists = [start[2] for start in b.start]
        self.temple, self.garden = [1, 1], [1, 1]
        self.coins, self.slabs = [0, 0], [0, 0]
        self.wares = [[0] * len(b.wares), [0] * len(b.wares)]
        self.bag = list(b.ware_counts)
        self.boutiques = list(range(8))
        """The boutique token (an index into the board's) on each coastal town."""
        rng.shuffle(self.boutiques)
        self.tiles = [list(b.paintings[self.colours[0]]), list(b.paintings[self.colours[1]])]
        rng.shuffle(self.tiles[0])
        rng.shuffle(self.tiles[1])
        self.revealed, self.gifts = [0, 0], [0, 0]
        self.wave_holder = [-1, -1, -1]
        self.wave_side = [b.waves[c][rng.randrange(2)] for c in range(3)]
        self.spring_holder = -1
        self.round = 0
        self.first_player = rng.randrange(2) if self.automa else 1  # flipped by _start_round

    # ---------------------------------------------------------------- interface
    def pending(self) -> list[Decision]:
        pending = self._pending
        return list(pending if pending is not None else self._decide())

    def apply(self, choices: Mapping[int, str]) -> None:
        if self.over:
            raise GameOverError("the game is over")
        pending = self._pending
        d = (pending if pending is not None else self._decide())[0]
        choice = choices.get(d.seat)
        if len(choices) != 1 or choice is None:
            raise IllegalChoiceError(d.seat, dict(choices), d.kind,
                                     f"expected an answer from seat {d.seat} only")
        try:
            i = self._index[choice]
        except (KeyError, TypeError):  # not an offered id, or not even hashable
            raise IllegalChoiceError(d.seat, choice, d.kind) from None
        self.seen[d.seat] = len(self.events)
        key = self.option_keys[i]
        _TRANSITIONS[key[0]](self, key)
        self._settle()

    def choice_counts(self) -> list[tuple[int, int]]:
        return [] if self.over else [(self.seat, len(self.option_keys))]

    def apply_index(self, choices: Mapping[int, int]) -> None:
        """:meth:`apply` by option index: the fast path of a caller that picked an index (a
        random playout), with no id to look up."""
        if self.over:
            raise GameOverError("the game is over")
        seat = self.seat
        keys = self.option_keys
        try:
            i = choices[seat]
            key = keys[i]
        except (KeyError, IndexError, TypeError):
            raise self._refusal(choices) from None
        if type(i) is not int or i < 0 or len(choices) != 1:  # a bool is no index either
            raise self._refusal(choices)
        self.seen[seat] = len(self.events)
        _TRANSITIONS[key[0]](self, key)
        keys = self.option_keys  # _settle, inlined on this path (2% of a random game)
        while len(keys) == 1:
            key = keys[0]
            _TRANSITIONS[key[0]](self, key)
            keys = self.option_keys
        self._pending = None

    def _refusal(self, choices: Mapping[int, int]) -> IllegalChoiceError:
        """Why :meth:`apply_index` refuses ``choices`` (its fast path only tells that)."""
        seat = self.seat
        i = choices.get(seat)
        if len(choices) != 1 or i is None:
            return IllegalChoiceError(seat, dict(choices), self.phase,
                                      f"expected an answer from seat {seat} only")
        return IllegalChoiceError(seat, i, self.phase, "no option of that index")

    def view(self, seat: int | None) -> dict[str, Any]:
        return build_view(self, seat)

    def events_since(self, seat: int) -> list[dict[str, Any]]:
        return [render_event(e) for e in self.events[self.seen[seat]:]]

    def result(self) -> Result | None:
        return scoring.result(self) if self.over else None

    def clone(self) -> TokaidoState:
        c = TokaidoState.__new__(TokaidoState)
        for name in _SHARED:
            setattr(c, name, getattr(self, name))
        for name in _COPY_LISTS:
            setattr(c, name, list(getattr(self, name)))
        c.wares = [list(self.wares[0]), list(self.wares[1])]
        c.tiles = [list(self.tiles[0]), list(self.tiles[1])]
        c.keep_pool = list(self.keep_pool) if self.keep_pool is not None else None
        c.automa = self.automa.clone() if self.automa else None
        # __new__ skips seeding from the OS (most of a clone's cost); setstate sets it all
        c.rng = random.Random.__new__(random.Random)
        c.rng.setstate(self.rng.getstate())
        return c

    @property
    def is_over(self) -> bool:
        return self.over

    def is_automa(self, seat: int) -> bool:
        return self.automa is not None and seat == AUTOMA

    # ------------------------------------------------------------- the machine
    def _ask(self, seat: int, phase: str, keys: list[Key]) -> None:
        self.phase, self.seat, self.option_keys = phase, seat, keys

    def _settle(self) -> None:
        """Apply forced steps until a real choice (2+ options) or the end of the game (no
        options). The decision is looked up only when asked for (:meth:`_decide`): a random
        playout (``choice_counts`` and ``apply_index``) never needs it."""
        keys = self.option_keys
        while len(keys) == 1:
            key = keys[0]
            _TRANSITIONS[key[0]](self, key)
            keys = self.option_keys
        self._pending = None

    def _decide(self) -> list[Decision]:
        """The open question's decisions (none once the game is over), kept until the next
        transition.

        The decision for a choice is looked up by its option keys in the board's cache: a
        question that recurs (it does, all game long and across games) is the same Decision
        object for the same seat, its options the same tuple for either seat, so whoever
        caches by identity (the encoded options of ``referee.protocol``) hits, and no Option
        is built twice."""
        if self.over or not self.option_keys:  # over, or a position not set up yet
            self._pending, self._index = [], _NO_INDEX
            return self._pending
        k = tuple(self.option_keys)
        hit = self.board.decision_cache.get(k)
        if hit is None:
            hit = self._new_entry(k)
        pending = hit[self.seat]
        if pending is None:
            pending = hit[self.seat] = [Decision(self.seat, self.phase,
                                                 PROMPTS[self.phase], hit[3])]
        self._pending, self._index = pending, hit[2]
        return pending

    def _new_entry(self, keys: tuple[Key, ...]) -> list[Any]:
        """The cache entry of ``keys``: ``[seat 0's pending list or None, seat 1's, the id ->
        index map, the options]``. The cache is emptied when full, so a long-lived board
        stays bounded."""
        cache = self.board.decision_cache
        if len(cache) >= _DECISION_CACHE_MAX:
            cache.clear()
        opts = tuple([option_for(self.board, key) for key in keys])
        entry = cache[keys] = [None, None, {o.id: i for i, o in enumerate(opts)}, opts]
        return entry

    def continue_draft(self) -> None:
        """Go on with the round's draft from the dice taken so far: the next pick is asked (or
        played by the Automa), or the round ends. For a position built by hand."""
        self._next_pick()
        self._settle()

    def reopen(self, phase: str, seat: int) -> None:
        """Open the question of ``phase`` for ``seat`` again, its options rebuilt from the
        state as it is now, and apply forced steps: a position rebuilt from a view
        (``determinize``) or built by hand."""
        keys: list[Key]
        if phase == "choose_die":
            keys = self._die_keys()
        elif phase == "move":
            keys = moves.move_keys(self, self.actor, self.character, self.value)
        elif phase == "keep_wares":
            assert self.keep_pool is not None
            keys = moves.keep_keys(self.keep_pool, self.ware_cap(self.actor))
        elif phase == "wave_tile":
            keys = moves.seashore_choices(self, seat)
        elif phase == "hot_spring":
            keys = HOT_SPRING_KEYS
        else:
            keys = [("return", w) for w, n in enumerate(self.wares[seat]) if n]
        self._ask(seat, phase, keys)
        self._settle()

    # ------------------------------------------------------------ round / draft
    def _start_round(self) -> None:
        """Roll the three dice; the first player alternates every round (1-2-1 draft)."""
        self.round += 1
        events = self.events
        self.round_start_event = len(events)
        self.first_player = 1 - self.first_player
        rnd = self.rng.random
        pilgrim, merchant, artist = self.board.dice
        dice = (pilgrim[int(rnd() * len(pilgrim))], merchant[int(rnd() * len(merchant))],
                artist[int(rnd() * len(artist))])
        self.dice = list(dice)
        self.used = [-1, -1, -1]
        self.picks = 0
        self.die_order = [0, 1, 2]
        order = None
        if self.automa:
            self.rng.shuffle(self.die_order)  # the Automa's tie order, random per roll
            order = tuple(self.die_order)
        events.append(("round", self.round, self.first_player, dice, order))
        self._next_pick()

    def _next_pick(self) -> None:
        """A picks, B picks, A uses the last die; after the third, the round (or game) ends."""
        picks = self.picks
        if picks == 3:
            self._end_round()
            return
        seat = 1 - self.first_player if picks == 1 else self.first_player
        if self.automa is not None and seat == AUTOMA:
            used = self.used
            self._automa_turn([c for c in range(3) if used[c] < 0])
            return
        keys = self._die_keys()
        self.phase, self.seat, self.option_keys = "choose_die", seat, keys
        if len(keys) == 1:  # the last die: forced, taken at once (what _settle would do)
            self._take_die(keys[0])

    def _die_keys(self) -> list[Key]:
        """The dice not taken yet, as ``choose_die`` options (unrolled: three per round)."""
        u0, u1, u2 = self.used
        d0, d1, d2 = self.dice
        keys = []
        if u0 < 0:
            keys.append(("die", 0, d0))
        if u1 < 0:
            keys.append(("die", 1, d1))
        if u2 < 0:
            keys.append(("die", 2, d2))
        return keys

    def _end_round(self) -> None:
        """After the third die: the game ends if an end was triggered, else a new round."""
        if self.triggers:
            self.over = True
            self.phase, self.option_keys = "over", []
            self.events.append(("end", "; ".join(self.triggers)))
            return
        self._start_round()

    def _take_die(self, key: Key) -> None:
        """:meth:`_use_die` then :meth:`_begin_move`, in one step (the hot path)."""
        seat = self.seat
        c = key[1]
        self.used[c] = seat
        self.picks += 1
        value = self.dice[c]
        self.actor = seat
        self.character = c
        self.value = value
        self.spring_gained = False
        self.events.append(("die", seat, CHARACTERS[c], value))
        keys = MOVE_KEYS[c](self, seat, value)
        if keys:
            self.phase = "move"  # asked of the same seat
            self.option_keys = keys
            return
        self.events.append(("no_move", seat, CHARACTERS[c], value))
        self._end_action()

    def _use_die(self, seat: int, character: int) -> None:
        self.used[character] = seat
        self.picks += 1
        self.actor, self.character, self.value = seat, character, self.dice[character]
        self.spring_gained = False
        self.events.append(("die", seat, CHARACTERS[character], self.value))

    def _begin_move(self) -> None:
        """Using a die = moving that seat's matching character exactly the value; if it cannot,
        the die is spent with no move and no effect."""
        keys = MOVE_KEYS[self.character](self, self.actor, self.value)
        if not keys:
            self.events.append(("no_move", self.actor, CHARACTERS[self.character], self.value))
            self._end_action()
            return
        self._ask(self.actor, "move", keys)

    def _end_action(self) -> None:
        """Offer the hot spring (same die again) when it is held, was not gained by this action,
        and a repeat can move; otherwise go on with the draft."""
        a = self.actor
        if (self.spring_holder == a and not self.spring_gained and not self.is_automa(a)
                and moves.can_move(self, a, self.character, self.value)):
            self._ask(a, "hot_spring", HOT_SPRING_KEYS)
            return
        self._next_pick()

    def _answer_hot_spring(self, key: Key) -> None:
        """Spend the token: the same die again at once (same character, same value); the token
        returns to the board."""
        if key[1]:
            self.spring_holder = -1
            self.events.append(("spring_used", self.actor, CHARACTERS[self.character],
                                self.value))
            self._begin_move()
        else:
            self._next_pick()

    def _move_meeple(self, seat: int, character: int, dest: int) -> None:
        """Move ``seat``'s ``character`` to ``dest`` (a ring space, a town or a zone)."""
        b = self.board
        if character == PILGRIM:
            self.events.append(("move", seat, "pilgrim", self.pilgrims[seat], dest))
            self.pilgrims[seat] = dest
        elif character == MERCHANT:
            self.events.append(("move", seat, "merchant", b.towns[self.merchants[seat]],
                                b.towns[dest]))
            self.merchants[seat] = dest
        else:
            self.events.append(("move", seat, "artist", b.zones[self.artists[seat]],
                                b.zones[dest]))
            self.artists[seat] = dest

    # ---------------------------------------------------------------- pilgrim
    def _move_pilgrim(self, key: Key) -> None:
        _, dest, effect = key
        a = self.actor
        pilgrims = self.pilgrims  # _move_meeple, inlined on this hot path
        self.events.append(("move", a, "pilgrim", pilgrims[a], dest))
        pilgrims[a] = dest
        if effect == USE_EFFECT and self._space_effect(a, dest):
            return
        self._end_action()

    def _space_effect(self, seat: int, space: int) -> bool:
        """Apply the space's effect; True when a question (wave tile) is now open."""
        kind = self.board.ring[space]
        if kind == "C":  # the town's boutique value in coins (Crafty does not apply)
            town = self.board.ring_town[space]
            self._gain_coins(seat, self.board.boutiques[self.boutiques[town]][1], "coastal")
        elif kind == "T":
            self._track(seat, self.temple, "temple", "temple_end")
        elif kind == "G":
            self._track(seat, self.garden, "garden", "garden_end")
        elif kind == "H":
            self._take_spring(seat)
        else:
            self._ask(seat, "wave_tile", moves.seashore_choices(self, seat))
            return True
        return False

    def _track(self, seat: int, track: list[int], name: str, limit: str) -> None:
        """Temple / garden: that marker +1; reaching the end triggers the end of the game; past
        the end nothing happens."""
        end = self.board.limits[limit]
        if track[seat] < end:
            track[seat] += 1
            self.events.append(("track", seat, name, track[seat]))
            if track[seat] == end:
                self._trigger(f"{name} {end} reached by seat {seat}")

    def _take_spring(self, seat: int) -> None:
        """Take the token from the board or the opponent; it cannot pay for this action."""
        if self.spring_holder != seat:
            self.events.append(("spring", seat,
                                None if self.spring_holder < 0 else self.spring_holder))
            self.spring_holder = seat
            if seat == self.actor:
                self.spring_gained = True

    def _answer_wave_tile(self, key: Key) -> None:
        _, character, source = key
        if self._take_wave(self.seat, character, source):
            return
        self._end_action()

    def _take_wave(self, seat: int, character: int, source: int) -> bool:
        """Move a wave tile to ``seat`` (it is never flipped); True when its loser must now
        return a ware (Robust lost with more wares than the plain cap)."""
        self.wave_holder[character] = seat
        self.events.append(("wave", seat, CHARACTERS[character], self.wave_side[character],
                            source))
        if self.automa:
            self.automa.wave_moved(character, seat == AUTOMA, source == AUTOMA)
        if (source >= 0 and character == MERCHANT and self.wave_side[character] == "robust"
                and sum(self.wares[source]) > self.board.limits["wares"]):
            self.return_seat = source
            self._ask(source, "return_ware",
                      [("return", w) for w, n in enumerate(self.wares[source]) if n])
            return True
        return False

    def _return_ware(self, key: Key) -> None:
        """Losing Robust with 6 wares: return one at once (the owner's choice)."""
        w = key[1]
        self.wares[self.return_seat][w] -= 1
        self.bag[w] += 1
        self.events.append(("return", self.return_seat, self.board.wares[w]))
        self.return_seat = -1
        self._end_action()

    # ---------------------------------------------------------------- merchant
    def _move_merchant(self, key: Key) -> None:
        _, dest, _mode, count, coins, ware = key
        a = self.actor
        merchants, towns = self.merchants, self.board.towns  # _move_meeple, inlined
        self.events.append(("move", a, "merchant", towns[merchants[a]], towns[dest]))
        merchants[a] = dest
        if not count:  # plain, nothing
            pass
        elif ware < 0:  # draw, draw+1
            if self._draw(a, count):
                return
        else:  # sell, sell+crafty: sold wares return to the bag
            self.wares[a][ware] -= count
            self.bag[ware] += count
            self.events.append(("sell", a, self.board.wares[ware], count, coins))
            self._gain_coins(a, coins, "sale")
        self._end_action()

    def ware_cap(self, seat: int) -> int:
        """At most 5 wares kept (Robust: 6)."""
        robust = self.wave_holder[MERCHANT] == seat and self.wave_side[MERCHANT] == "robust"
        return self.board.limits["wares_robust" if robust else "wares"]

    def _draw(self, seat: int, count: int) -> bool:
        """Draw from the bag; True when the seat must now choose which wares to keep."""
        pool = list(self.wares[seat])
        drawn = []
        bag, rnd, names = self.bag, self.rng.random, self.board.wares
        for _ in range(count):
            r = int(rnd() * sum(bag))
            w = 0
            while r >= bag[w]:
                r -= bag[w]
                w += 1
            bag[w] -= 1
            pool[w] += 1
            drawn.append(names[w])
        self.events.append(("draw", seat, tuple(drawn)))
        cap = self.ware_cap(seat)
        if sum(pool) <= cap:
            self.wares[seat] = pool
            return False
        self.keep_pool = pool
        self._ask(seat, "keep_wares", moves.keep_keys_cached(self.board, pool, cap))
        return True

    def _keep_wares(self, key: Key) -> None:
        """Keep any mix of old and new up to the cap; the rest return to the bag."""
        kept, pool, a = key[1], self.keep_pool, self.actor
        assert pool is not None
        back = []
        for w, n in enumerate(kept):
            self.bag[w] += pool[w] - n
            back += [self.board.wares[w]] * (pool[w] - n)
        self.wares[a] = list(kept)
        self.keep_pool = None
        self.events.append(("returned", a, tuple(back)))
        self._end_action()

    def _gain_coins(self, seat: int, amount: int, source: str) -> None:
        """Coins from the pilgrim or a sale; every 10 become a gold slab at once."""
        self.coins[seat] += amount
        self.events.append(("coins", seat, amount, source))
        per, top = self.board.limits["coins_per_slab"], self.board.limits["slabs"]
        while self.coins[seat] >= per:
            self.coins[seat] -= per
            self.slabs[seat] += 1
            self.events.append(("slab", seat, self.slabs[seat]))
            if self.slabs[seat] == top:
                self._trigger(f"gold slab {top} gained by seat {seat}")

    # ----------------------------------------------------------------- artist
    def _move_artist(self, key: Key) -> None:
        """Paint: reveal tiles in slot order; gift: remove the first revealed tile (one per
        action); the 10th gift triggers the end."""
        _, dest, mode, reveal = key
        a = self.actor
        artists, zones = self.artists, self.board.zones  # _move_meeple, inlined
        self.events.append(("move", a, "artist", zones[artists[a]], zones[dest]))
        artists[a] = dest
        if mode == "gift":
            icon = self.board.icons[self.tiles[a][self.gifts[a]]]
            self.gifts[a] += 1
            self.events.append(("gift", a, icon, self.gifts[a]))
            if self.gifts[a] == self.board.limits["paintings"]:
                self._trigger(f"painting {self.gifts[a]} gifted by seat {a}")
        elif reveal:  # paint, paint+1 (nothing and plain reveal none)
            start = self.revealed[a]
            self.revealed[a] = start + reveal
            tiles = self.tiles[a][start:start + reveal]
            self.events.append(("paint", a, tuple(map(self.board.icons.__getitem__, tiles))))
        self._end_action()

    # ----------------------------------------------------------------- automa
    def _automa_turn(self, available: list[int]) -> None:
        """The Automa picks a die by its procedure, moves, and takes what the procedure lists
        (a wave tile on a seashore, a rank where the move raises it); then the draft goes on,
        unless the human must first return a ware because the Automa took Robust."""
        c = automa_rules.choose_die(self, available) if len(available) > 1 else available[0]
        self._use_die(AUTOMA, c)
        dest = automa_rules.landing(self, c, self.value)
        if dest is None:
            self.events.append(("no_move", AUTOMA, CHARACTERS[c], self.value))
        else:
            self._move_meeple(AUTOMA, c, dest)
            # A hot spring gives it nothing: the Automa receives only what its procedure lists
            # (seed 002: 「オートマが受け取るのは、ここに書かれたものだけ」), and the token is not listed.
            if c == PILGRIM and self.board.ring[dest] == "S" and automa_rules.wants_wave(self):
                if self._take_wave(AUTOMA, *automa_rules.wave_to_take(self)):
                    return
            elif automa_rules.rank_rises(self, c, dest):
                self._raise_automa_rank(c)
        self._next_pick()

    def _raise_automa_rank(self, c: int) -> None:
        """The rank token moves on; reaching the end of its track is an end trigger."""
        t = self.automa
        assert t is not None
        ended = t.advance(c)
        self.events.append(("automa_rank", CHARACTERS[c], t.pos[c], t.rank(c)))
        if ended:
            self._trigger(f"the Automa's {CHARACTERS[c]} rank token reached the end of its track")

    # -------------------------------------------------------------------- end
    def _trigger(self, reason: str) -> None:
        """An end trigger: the round is played out, then the game ends."""
        self.triggers.append(reason)
        self.events.append(("trigger", reason))


_TRANSITIONS: dict[str, Callable[[TokaidoState, Key], None]] = {
    "die": TokaidoState._take_die, "move_pilgrim": TokaidoState._move_pilgrim,
    "move_merchant": TokaidoState._move_merchant, "move_artist": TokaidoState._move_artist,
    "keep": TokaidoState._keep_wares, "wave": TokaidoState._answer_wave_tile,
    "spring": TokaidoState._answer_hot_spring, "return": TokaidoState._return_ware}
"""Option key tag -> the transition applying it."""
