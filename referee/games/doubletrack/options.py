"""The option lists Doubletrack offers, built once per board and reused.

A question's answers are a :class:`Menu`: the values the engine acts on, by option index, and
the :class:`~referee.core.Option` tuple sent to a seat. A random playout (``choice_counts`` and
``apply_index``) needs only the values, so the options are built the first time ``pending()``
shows them, not when the question is asked. Menus are immutable once built, so the same one
serves every question of the same shape (a bid by a seat holding $85 always has the same 18
options): the builders below are cached on the board by shape (:func:`_by_shape`), which also
hands the runner the same options tuple whenever a question recurs (it caches their encoding by
identity).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from referee.core import Option, option_index
from referee.games.doubletrack.board import MIN_BID, Board

Builder = TypeVar("Builder", bound=Callable[..., "Menu"])
Make = Callable[[], list[Option]]
"""Builds a menu's options, in the order of its values."""


class Menu:
    """The answers to one shape of question: ``values[i]`` is what the engine receives for the
    option of index ``i``; :attr:`options` are built on first use."""

    __slots__ = ("values", "_make", "_options")

    def __init__(self, values: tuple[Any, ...], make: Make) -> None:
        self.values = values
        self._make = make
        self._options: tuple[Option, ...] | None = None

    @property
    def options(self) -> tuple[Option, ...]:
        """The options offered, one per value, in the same order (one tuple, built once; two
        threads racing to build it first may each get their own, equal, tuple)."""
        options = self._options
        if options is None:
            options = self._options = tuple(self._make())
        return options

    def value_at(self, index: int) -> Any:
        """The value of the option of index ``index``. Raises ``IndexError`` for an index out
        of range (negative ones too) and ``TypeError`` for one that is not an integer (a bool
        neither, as on the fast path)."""
        if type(index) is not int:
            raise TypeError(f"option index {index!r} is not an integer")
        if index < 0:
            raise IndexError(index)
        return self.values[index]

    def value_of(self, option_id: Any) -> Any:
        """The value of the option whose id is ``option_id``. Raises ``KeyError`` for anything
        not an offered id (the runner's cached lookup, :func:`referee.core.option_index`)."""
        i = option_index(self.options, option_id)
        if i is None:
            raise KeyError(option_id)
        return self.values[i]


def _by_shape(build: Builder) -> Builder:
    """Keep the menus ``build`` makes on the board, by the question's shape (the builder's name
    and its arguments, all positional): a hit (nearly every call, once warm) builds nothing,
    not even the closure that would build the options."""
    name = build.__name__

    @functools.wraps(build)
    def menu(board: Board, /, *shape: Any) -> Menu:
        hit = board.option_cache.get((name, *shape))
        if hit is None:
            hit = board.option_cache[(name, *shape)] = build(board, *shape)
        return hit
    return cast(Builder, menu)


@_by_shape
def bid_options(board: Board, auction: str, money: int, /) -> Menu:
    """``bid:5`` .. ``bid:<money>`` in steps of the money unit (at least $5 for a seat that
    has it); only a seat with less than $5 bids ``bid:0``, the empty fist. Value = the amount."""
    amounts = tuple(range(MIN_BID, money + 1, board.unit)) if money >= MIN_BID else (0,)
    return Menu(amounts, lambda: [
        Option(f"bid:{n}", f"bid ${n}", {"amount": n, "auction": auction}) for n in amounts])


NO_YES = (False, True)
YES_NO = (True, False)


@_by_shape
def gate_request_options(board: Board, gate: int, controller: int, /) -> Menu:
    def make() -> list[Option]:
        colour = board.colours[gate]
        return [
            Option("around", f"go around the {colour} gate by the corner",
                   {"gate": colour, "controller": controller}),
            Option("ask", f"ask seat {controller} to open the {colour} gate",
                   {"gate": colour, "controller": controller}),
        ]
    return Menu(NO_YES, make)


@_by_shape
def gate_offer_options(board: Board, gate: int, requester: int, max_fee: int, /) -> Menu:
    """``free``, ``refuse`` or ``fee:<n>`` for n = unit .. max_fee; value: 0, None or n."""
    fees = tuple(range(board.unit, max_fee + 1, board.unit))

    def make() -> list[Option]:
        colour = board.colours[gate]
        base = {"gate": colour, "requester": requester}
        return [Option("free", "let them through free", {**base, "fee": 0}),
                Option("refuse", "refuse", {**base, "fee": None}),
                *[Option(f"fee:{n}", f"charge ${n}", {**base, "fee": n}) for n in fees]]
    return Menu((0, None, *fees), make)


@_by_shape
def gate_accept_options(board: Board, gate: int, fee: int, /) -> Menu:
    def make() -> list[Option]:
        colour = board.colours[gate]
        return [
            Option("around", "go around by the corner", {"gate": colour, "fee": fee}),
            Option("pay", f"pay ${fee} if the pawn enters the shortcut",
                   {"gate": colour, "fee": fee}),
        ]
    return Menu(NO_YES, make)


@_by_shape
def take_pass_options(board: Board, gate: int, holder: int, /) -> Menu:
    """TAKE THE (colour) GATE PASS is optional: ``take`` or ``leave``; value: True or False."""

    def make() -> list[Option]:
        colour = board.colours[gate]
        data = {"gate": colour, "holder": None if holder < 0 else holder}
        return [Option("take", f"take control of the {colour} gate", data),
                Option("leave", f"leave the {colour} gate where it is", data)]
    return Menu(YES_NO, make)


@_by_shape
def number_options(board: Board, lo: int, hi: int, /) -> Menu:
    numbers = tuple(range(lo, hi + 1))
    return Menu(numbers, lambda: [
        Option(f"number:{n}", f"move the small pawn {n}", {"number": n}) for n in numbers])


@_by_shape
def inner_route_options(board: Board, start: int, target: int, steps: int, /) -> Menu:
    """The first step of a forward move of ``steps`` from a purple circle: path or shortcut."""

    def make() -> list[Option]:
        base = {"from": start, "steps": steps}
        return [
            Option("path", "follow the path", {**base, "first_step": start + 1}),
            Option("shortcut", f"take the purple shortcut to {target}",
                   {**base, "first_step": target}),
        ]
    return Menu(NO_YES, make)


@_by_shape
def card_options(board: Board, cards: tuple[str, ...], /) -> Menu:
    """One option per distinct card in hand: ``card:<card id>``."""
    return Menu(cards, lambda: [
        Option(f"card:{c}", card_label(c), {"card": c}) for c in cards])


@_by_shape
def seat_options(board: Board, seats: tuple[int, ...], /) -> Menu:
    return Menu(seats, lambda: [
        Option(f"seat:{s}", f"seat {s} ({board.colours[s]})", {"seat": s}) for s in seats])


@_by_shape
def gate_options(board: Board, gates: tuple[tuple[int, int], ...], /) -> Menu:
    """``gate:<colour>`` for each (gate, controller) pair; value: the gate."""
    colours = board.colours
    return Menu(tuple(g for g, _ in gates), lambda: [
        Option(f"gate:{colours[g]}", f"the {colours[g]} gate",
               {"gate": colours[g], "controller": c}) for g, c in gates])


DECLINE = None
"""The value of ``decline``: the card's effect is not applied."""
DECLINED = {"trade_places": "keep both small pawns where they are",
            "steal_a_gate_pass": "leave every gate with its holder"}


@_by_shape
def trade_options(board: Board, seats: tuple[int, ...], may_decline: bool, /) -> Menu:
    """Trade Places: ``seat:<n>`` per opponent, then ``decline`` (value None) where the rules
    offer it (seed 003: 可, *may* swap)."""
    return _declinable(seat_options(board, seats), "trade_places", may_decline)


@_by_shape
def steal_options(board: Board, gates: tuple[tuple[int, int], ...], may_decline: bool, /
                  ) -> Menu:
    """Steal A Gate Pass: ``gate:<colour>`` per opponent gate, then ``decline`` (value None)
    where the rules offer it (seed 003: 可, *may* take)."""
    return _declinable(gate_options(board, gates), "steal_a_gate_pass", may_decline)


def _declinable(menu: Menu, card: str, may_decline: bool) -> Menu:
    """``menu`` with ``decline`` last (data: the card whose effect is declined)."""
    if not may_decline:
        return menu
    return Menu((*menu.values, DECLINE), lambda: [
        *menu.options, Option("decline", f"decline: {DECLINED[card]}", {"card": card})])


def card_label(card: str) -> str:
    if card.startswith("number-"):
        return f"Number {card[7:]}"
    return {
        "trade_places": "Trade Places With Any Player",
        "take_the_lead": "Take The Lead",
        "back_10": "Back 10",
        "go_farthest_back": "Oh No! Go Farthest Back",
        "steal_a_gate_pass": "Steal A Gate Pass",
        "worthless": "This Is A Worthless Card",
    }[card]
