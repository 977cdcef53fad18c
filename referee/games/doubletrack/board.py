"""Doubletrack board, deck and money data: loading, validation, and the tables the engine uses.

The board is data (``board.yaml`` beside this module, or any file given with ``--board``), so
everything the rules leave to the physical game (track layout, card counts, money) is read here and
checked once; the engine then works on plain precomputed lists for speed. Every invariant the
engine relies on is checked, and a :class:`~referee.core.BoardError` names the exact problem.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from referee.core import BoardError

# Square kinds on the outer track (a NUMBER square is stored as ("NUMBER", lo, hi)).
NUMBER = "NUMBER"
TAKE_PASS = "TAKE_PASS"
SIMPLE_SQUARES = ("PLAY_A_CARD", "SELL_A_CARD", "SELL_A_PASS", "SELL_THE_LEAD", "TAKE_25", TAKE_PASS)
RULES_PLAYERS = (3, 4)
"""The rules allow 3 or 4 seats; a board may narrow this, never widen it."""

# Card ids; Number cards are "number-<n>".
CARD_KINDS = ("trade_places", "take_the_lead", "back_10", "go_farthest_back",
              "steal_a_gate_pass", "worthless")
DECK_SIZE = 30
TAKE_AMOUNT = 25
"""TAKE $25 FROM AN OPPONENT: the amount is in the square's name, so it is a rule, not data."""
BACK_STEPS = 10
"""Back 10: likewise fixed by the card's name."""
MIN_BID = 5
"""Every sealed bid is at least $5 for a seat that has it (seed 003: 「將欲出價的金錢標記(至少5元)秘密
握於手中」); a rule stated in dollars, so not board data. Only a seat with less bids $0."""

TURN_LIMIT = 300
"""A game that passes 300 turns ends there (rules page, 'End and ranking')."""
NO_ONE = -1
"""The seat of nobody: a gate nobody controls, no winner yet, no seller."""

Square = tuple[str, int, int]
"""(kind, lo, hi): lo/hi are the NUMBER range (lo == hi for a fixed number), 0 otherwise."""


class RouteNode:
    """A fork a big pawn's move may pass, or (``gate`` is NO_ONE) the whole move once every
    fork in reach has its way.

    A fork: ``gate`` and the rest of the route by the ``corner`` and by the ``short`` cut. A
    leaf, for a move of k steps (0..max_roll): where it ends, ``to[k]``, and the shortcuts it
    enters on the way, ``entered[k]`` (gates) and ``shortcuts[k]`` (their colours); a leaf's
    ``corner`` and ``short`` are itself. The tree of each square is built with the board, so a
    move is a few lookups.
    """

    __slots__ = ("gate", "corner", "short", "to", "entered", "shortcuts")

    def __init__(self, gate: int, corner: RouteNode | None, short: RouteNode | None,
                 to: list[int] | None = None, entered: list[tuple[int, ...]] | None = None,
                 shortcuts: list[tuple[str, ...]] | None = None) -> None:
        self.gate = gate
        self.corner: RouteNode = corner or self
        self.short: RouteNode = short or self
        self.to: list[int] = to or []
        self.entered: list[tuple[int, ...]] = entered or []
        self.shortcuts: list[tuple[str, ...]] = shortcuts or []


class Board:
    """A validated Doubletrack board. ``data`` is the raw mapping it was built from (for logs).

    Outer-track positions are integers: ``0 .. main_len-1`` are the main squares clockwise from
    the first colour's TAKE_PASS square; ``main_len + q*shortcut_len + k`` is square ``k`` of
    colour ``q``'s gate shortcut.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data: dict[str, Any] = copy.deepcopy(dict(data))
        d = self.data
        self.version = _text(d, "version")
        self.colours: tuple[str, ...] = _colours(d)
        self.players: tuple[int, ...] = _players(d, len(self.colours))
        self.dice_count, self.dice_sides = _dice(d)
        self.max_roll = self.dice_count * self.dice_sides
        self.hand_size = _int(d, "hand_size", 1)
        self.unit, self.start_money = _money(d)
        self.quadrant, self.shortcut, self.rejoin = _outer(d)
        self.home, self.purple = _inner(d)
        self.deck: tuple[str, ...] = _deck(d)
        if max(self.players) * self.hand_size >= len(self.deck):
            raise BoardError(
                f"deck: {len(self.deck)} cards cannot deal {self.hand_size} to "
                f"{max(self.players)} players and leave a draw pile"
            )
        self._build_tables()
        self.option_cache: dict[tuple[Any, ...], Any] = {}
        """Option tuples by shape, filled by the options module (immutable, so shareable)."""

    # -- derived tables -------------------------------------------------------------------

    def _build_tables(self) -> None:
        """Flatten the track into lists indexed by position (the engine's hot paths use these)."""
        n_col, q_len, s_len = len(self.colours), len(self.quadrant), len(self.shortcut)
        self.quadrant_len = q_len
        self.main_len = n_col * q_len
        self.squares: list[Square] = [self.quadrant[i % q_len] for i in range(self.main_len)]
        self.squares += [self.shortcut[k] for _ in range(n_col) for k in range(s_len)]
        self.size = len(self.squares)
        # next position along the corner route / into the shortcut at a fork
        self.next_corner = [(p + 1) % self.main_len for p in range(self.main_len)]
        self.next_short = list(self.next_corner)
        for q in range(n_col):
            base = self.main_len + q * s_len
            self.next_short[q * q_len] = base
            for k in range(s_len):
                after = base + k + 1 if k + 1 < s_len else q * q_len + self.rejoin
                self.next_corner.append(after)
                self.next_short.append(after)
        self.fork_of = [p // q_len if p < self.main_len and p % q_len == 0 else -1
                        for p in range(self.size)]
        """Colour index of the gate whose fork is right after position p, else -1."""
        self.routes = [self._route_from([p], [()]) for p in range(self.size)]
        """routes[p]: the forks a move from p may pass, as a tree of :class:`RouteNode`."""
        self.purple_to = [self.purple.get(c, 0) for c in range(self.home + 1)]
        """The purple shortcut's end from each circle, START to HOME; 0: none."""
        self.take_pass_of = [p // q_len for p in range(self.main_len)]
        self.names = [self.square_name(p) for p in range(self.size)]
        self.square_infos = [self._describe(p) for p in range(self.size)]

    def _route_from(self, path: list[int], entered: list[tuple[int, ...]]) -> RouteNode:
        """The route tree of a move that has gone ``len(path) - 1`` steps along ``path`` so
        far, having entered the shortcuts ``entered[-1]``: on along the corner route to the
        next fork it may pass (0..max_roll-1 squares ahead: one node, a subtree per way), or
        to ``max_roll`` steps (a leaf)."""
        path, entered = list(path), list(entered)
        while len(path) <= self.max_roll:
            p = path[-1]
            g = self.fork_of[p]
            if g >= 0:
                return RouteNode(
                    g,
                    self._route_from(path + [self.next_corner[p]], entered + [entered[-1]]),
                    self._route_from(path + [self.next_short[p]], entered + [entered[-1] + (g,)]),
                )
            path.append(self.next_corner[p])
            entered.append(entered[-1])
        return RouteNode(NO_ONE, None, None, path, entered,
                         [tuple(self.colours[g] for g in gates) for gates in entered])

    def start_square(self, colour: int) -> int:
        """Each big pawn starts on its own colour's TAKE_PASS square."""
        return colour * self.quadrant_len

    def square_name(self, pos: int) -> str:
        kind, lo, hi = self.squares[pos]
        if kind == NUMBER:
            return f"NUMBER {lo}" if lo == hi else f"NUMBER {lo}-{hi}"
        if kind == TAKE_PASS:
            return f"TAKE THE {self.colours[pos // self.quadrant_len].upper()} GATE PASS"
        return kind

    def square_info(self, pos: int) -> dict[str, Any]:
        """JSON description of an outer position, as views show it: a copy of the one made
        with the tables (every view shows every big pawn; a bot may alter its view)."""
        info = dict(self.square_infos[pos])
        if "shortcut" in info:
            info["shortcut"] = dict(info["shortcut"])
        return info

    def _describe(self, pos: int) -> dict[str, Any]:
        on_shortcut = pos >= self.main_len
        info: dict[str, Any] = {"pos": pos, "square": self.square_name(pos)}
        if on_shortcut:
            q, k = divmod(pos - self.main_len, len(self.shortcut))
            info["shortcut"] = {"gate": self.colours[q], "index": k}
        return info


# -- validation helpers (each raises BoardError naming the field) -----------------------------

def _get(d: Mapping[str, Any], key: str, where: str = "") -> Any:
    if key not in d:
        raise BoardError(f"{where}{key}: missing")
    return d[key]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int(d: Mapping[str, Any], key: str, low: int, where: str = "") -> int:
    v = _get(d, key, where)
    name = f"{where}{key}"
    if not _is_int(v):
        raise BoardError(f"{name}: expected an integer, got {v!r}")
    if v < low:
        raise BoardError(f"{name}: must be at least {low}, got {v}")
    return int(v)


def _text(d: Mapping[str, Any], key: str) -> str:
    v = _get(d, key)
    if not isinstance(v, (str, int, float)) or isinstance(v, bool) or str(v) == "":
        raise BoardError(f"{key}: expected a non-empty string, got {v!r}")
    return str(v)


def _mapping(d: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = _get(d, key)  # only used for top-level keys
    if not isinstance(v, Mapping):
        raise BoardError(f"{key}: expected a mapping, got {v!r}")
    return v


def _colours(d: Mapping[str, Any]) -> tuple[str, ...]:
    v = _get(d, "colours")
    if not isinstance(v, list) or not all(isinstance(c, str) and c for c in v):
        raise BoardError(f"colours: expected a list of names, got {v!r}")
    if len(v) != 4:
        raise BoardError(f"colours: expected 4 colours (one per gate and quadrant), got {len(v)}")
    if len(set(v)) != len(v):
        raise BoardError(f"colours: names must be distinct, got {v!r}")
    return tuple(v)


def _players(d: Mapping[str, Any], n_colours: int) -> tuple[int, ...]:
    v = _get(d, "players")
    if not isinstance(v, list) or not v or not all(_is_int(n) for n in v):
        raise BoardError(f"players: expected a list of seat counts, got {v!r}")
    for n in v:
        if n not in RULES_PLAYERS:
            raise BoardError(f"players: {n} seats; the rules allow 3 or 4")
    if len(set(v)) != len(v):
        raise BoardError(f"players: repeated seat count in {v!r}")
    return tuple(sorted(v))


def _dice(d: Mapping[str, Any]) -> tuple[int, int]:
    dice = _mapping(d, "dice")
    return _int(dice, "count", 1, "dice."), _int(dice, "sides", 2, "dice.")


def _money(d: Mapping[str, Any]) -> tuple[int, int]:
    money = _mapping(d, "money")
    unit = _int(money, "unit", 1, "money.")
    start = _int(money, "start", unit, "money.")
    if start % unit:
        raise BoardError(f"money.start: {start} is not a multiple of the unit {unit}")
    if TAKE_AMOUNT % unit:
        raise BoardError(f"money.unit: {unit} does not divide the ${TAKE_AMOUNT} of TAKE_25")
    if MIN_BID % unit:
        raise BoardError(f"money.unit: {unit} does not divide the ${MIN_BID} minimum bid")
    return unit, start


def _square(raw: Any, where: str) -> Square:
    if isinstance(raw, str):
        if raw not in SIMPLE_SQUARES:
            raise BoardError(f"{where}: unknown square {raw!r}; known: "
                             f"{', '.join(SIMPLE_SQUARES)}, {{number: n}}, {{number: [lo, hi]}}")
        return (raw, 0, 0)
    if isinstance(raw, Mapping) and list(raw) == ["number"]:
        n = raw["number"]
        if _is_int(n) and n >= 1:
            return (NUMBER, n, n)
        if (isinstance(n, list) and len(n) == 2 and all(_is_int(x) for x in n)
                and 1 <= n[0] < n[1]):
            return (NUMBER, n[0], n[1])
        raise BoardError(f"{where}: number must be a positive integer or [lo, hi] with "
                         f"1 <= lo < hi, got {n!r}")
    raise BoardError(f"{where}: expected a square name or {{number: ...}}, got {raw!r}")


def _outer(d: Mapping[str, Any]) -> tuple[list[Square], list[Square], int]:
    outer = _mapping(d, "outer")
    quad_raw, short_raw = _get(outer, "quadrant", "outer."), _get(outer, "shortcut", "outer.")
    if not isinstance(quad_raw, list) or not isinstance(short_raw, list):
        raise BoardError("outer.quadrant and outer.shortcut: expected lists of squares")
    quadrant = [_square(s, f"outer.quadrant[{i}]") for i, s in enumerate(quad_raw)]
    shortcut = [_square(s, f"outer.shortcut[{i}]") for i, s in enumerate(short_raw)]
    if not quadrant or quadrant[0][0] != TAKE_PASS:
        raise BoardError("outer.quadrant[0]: must be TAKE_PASS (the gate fork follows it)")
    for i, sq in enumerate(quadrant[1:], 1):
        if sq[0] == TAKE_PASS:
            raise BoardError(f"outer.quadrant[{i}]: TAKE_PASS only at offset 0 (one per colour)")
    if not shortcut:
        raise BoardError("outer.shortcut: needs at least one square")
    for i, sq in enumerate(shortcut):
        if sq[0] == TAKE_PASS:
            raise BoardError(f"outer.shortcut[{i}]: TAKE_PASS cannot be on a shortcut")
    rejoin = _int(outer, "rejoin_offset", 2, "outer.")
    if rejoin >= len(quadrant):
        raise BoardError(f"outer.rejoin_offset: {rejoin} is past the quadrant's "
                         f"{len(quadrant)} squares")
    max_roll = _dice(d)[0] * _dice(d)[1]
    if len(quadrant) <= max_roll:
        raise BoardError(f"outer.quadrant: {len(quadrant)} squares; needs more than the "
                         f"largest roll {max_roll}")
    lap = 4 * (len(shortcut) + len(quadrant) - rejoin)
    if lap <= max_roll:
        raise BoardError(f"outer: a lap by the shortcuts is {lap} squares; needs more than "
                         f"the largest roll {max_roll}")
    return quadrant, shortcut, rejoin


def _inner(d: Mapping[str, Any]) -> tuple[int, dict[int, int]]:
    inner = _mapping(d, "inner")
    home = _int(inner, "home", 2, "inner.")
    raw = _get(inner, "purple_shortcuts", "inner.")
    if not isinstance(raw, Mapping):
        raise BoardError(f"inner.purple_shortcuts: expected a mapping from circle to circle, "
                         f"got {raw!r}")
    purple: dict[int, int] = {}
    for a, b in raw.items():
        if isinstance(a, str) and a.isdigit():
            a = int(a)  # JSON (a match log) turns integer keys into strings
        if not (_is_int(a) and _is_int(b)):
            raise BoardError(f"inner.purple_shortcuts: {a!r}: {b!r} must be circle numbers")
        if not 0 < a < home or not 0 < b < home:
            raise BoardError(f"inner.purple_shortcuts: {a}: {b} is outside the circles "
                             f"1..{home - 1}")
        if b <= a + 1:
            raise BoardError(f"inner.purple_shortcuts: {a}: {b} must lead forward past the "
                             f"next circle (shortcuts are forward only)")
        purple[a] = b
    return home, purple


def _deck(d: Mapping[str, Any]) -> tuple[str, ...]:
    deck = _mapping(d, "deck")
    known = {"number", *CARD_KINDS}
    for key in deck:
        if key not in known:
            raise BoardError(f"deck.{key}: unknown card kind; known: {', '.join(sorted(known))}")
    cards: list[str] = []
    number = deck.get("number")
    if not isinstance(number, Mapping):
        raise BoardError(f"deck.number: expected a mapping with values and copies, got {number!r}")
    values = _get(number, "values", "deck.number.")
    if not isinstance(values, list) or not values or not all(
            _is_int(v) and v >= 1 for v in values) or len(set(values)) != len(values):
        raise BoardError(f"deck.number.values: expected distinct positive integers, got {values!r}")
    copies = _int(number, "copies", 1, "deck.number.")
    for v in values:
        cards += [f"number-{v}"] * copies
    for kind in CARD_KINDS:
        cards += [kind] * _int(deck, kind, 0, "deck.")
    if len(cards) != DECK_SIZE:
        raise BoardError(f"deck: expected {DECK_SIZE} cards, got {len(cards)}")
    return tuple(cards)
