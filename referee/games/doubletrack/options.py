"""The option lists Doubletrack offers, built once per board and reused.

A question's answers are a :class:`Menu`: the values the engine acts on, by option index, and
the :class:`~referee.core.Option` tuple sent to a seat. A random playout (``choice_counts`` and
``apply_index``) needs only the values, so the options are built the first time ``pending()``
shows them, not when the question is asked. Menus are immutable once built, so the same one
serves every question of the same shape (a bid by a seat holding $85 always has the same 18
options): the builders below cache them on the board by shape, which also hands the runner the
same options tuple whenever a question recurs (it caches their encoding by identity).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.core import Option
from referee.games.doubletrack.board import MIN_BID, Board

Make = Callable[[], list[Option]]
"""Builds a menu's options, in the order of its values."""


class Menu:
    """The answers to one shape of question: ``values[i]`` is what the engine receives for the
    option of index ``i``; :attr:`options` are built on first use."""

    __slots__ = ("values", "_make", "_options", "_by_id")

    def __init__(self, values: tuple[Any, ...], make: Make) -> None:
        self.values = values
        self._make = make
        self._options: tuple[Option, ...] | None = None
        self._by_id: dict[str, Any] | None = None

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
        of range (negative ones too) and ``TypeError`` for one that is not an integer."""
        if index < 0:
            raise IndexError(index)
        return self.values[index]

    def value_of(self, option_id: Any) -> Any:
        """The value of the option whose id is ``option_id``. Raises ``KeyError`` for an id not
        offered and ``TypeError`` for one that cannot be an id (unhashable)."""
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {o.id: v for o, v in zip(self.options, self.values)}
        return by_id[option_id]


def _cached(board: Board, key: tuple[Any, ...], values: tuple[Any, ...], make: Make) -> Menu:
    """Cache and return the menu of ``key``. Every builder below looks the cache up itself
    first, so that a hit (nearly every call, once warm) costs no closure."""
    menu = board.option_cache[key] = Menu(values, make)
    return menu


def bid_options(board: Board, auction: str, money: int) -> Menu:
    """``bid:5`` .. ``bid:<money>`` in steps of the money unit (at least $5 for a seat that
    has it); only a seat with less than $5 bids ``bid:0``, the empty fist. Value = the amount."""
    key = ("bid", auction, money)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    amounts = tuple(range(MIN_BID, money + 1, board.unit)) if money >= MIN_BID else (0,)
    return _cached(board, key, amounts, lambda: [
        Option(f"bid:{n}", f"bid ${n}", {"amount": n, "auction": auction}) for n in amounts])


NO_YES = (False, True)
YES_NO = (True, False)


def gate_request_options(board: Board, gate: int, controller: int) -> Menu:
    key = ("gate_request", gate, controller)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[Option]:
        colour = board.colours[gate]
        return [
            Option("around", f"go around the {colour} gate by the corner",
                   {"gate": colour, "controller": controller}),
            Option("ask", f"ask seat {controller} to open the {colour} gate",
                   {"gate": colour, "controller": controller}),
        ]
    return _cached(board, key, NO_YES, make)


def gate_offer_options(board: Board, gate: int, requester: int, max_fee: int) -> Menu:
    """``free``, ``refuse`` or ``fee:<n>`` for n = unit .. max_fee; value: 0, None or n."""
    key = ("gate_offer", gate, requester, max_fee)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    fees = tuple(range(board.unit, max_fee + 1, board.unit))

    def make() -> list[Option]:
        colour = board.colours[gate]
        base = {"gate": colour, "requester": requester}
        return [Option("free", "let them through free", {**base, "fee": 0}),
                Option("refuse", "refuse", {**base, "fee": None}),
                *[Option(f"fee:{n}", f"charge ${n}", {**base, "fee": n}) for n in fees]]
    return _cached(board, key, (0, None, *fees), make)


def gate_accept_options(board: Board, gate: int, fee: int) -> Menu:
    key = ("gate_accept", gate, fee)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[Option]:
        colour = board.colours[gate]
        return [
            Option("around", "go around by the corner", {"gate": colour, "fee": fee}),
            Option("pay", f"pay ${fee} if the pawn enters the shortcut",
                   {"gate": colour, "fee": fee}),
        ]
    return _cached(board, key, NO_YES, make)


def take_pass_options(board: Board, gate: int, holder: int) -> Menu:
    """TAKE THE (colour) GATE PASS is optional: ``take`` or ``leave``; value: True or False."""
    key = ("take_pass", gate, holder)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[Option]:
        colour = board.colours[gate]
        data = {"gate": colour, "holder": None if holder < 0 else holder}
        return [Option("take", f"take control of the {colour} gate", data),
                Option("leave", f"leave the {colour} gate where it is", data)]
    return _cached(board, key, YES_NO, make)


def number_options(board: Board, lo: int, hi: int) -> Menu:
    key = ("number", lo, hi)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    numbers = tuple(range(lo, hi + 1))
    return _cached(board, key, numbers, lambda: [
        Option(f"number:{n}", f"move the small pawn {n}", {"number": n}) for n in numbers])


def inner_route_options(board: Board, start: int, target: int, steps: int) -> Menu:
    """The first step of a forward move of ``steps`` from a purple circle: path or shortcut."""
    key = ("inner_route", start, target, steps)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[Option]:
        base = {"from": start, "steps": steps}
        return [
            Option("path", "follow the path", {**base, "first_step": start + 1}),
            Option("shortcut", f"take the purple shortcut to {target}",
                   {**base, "first_step": target}),
        ]
    return _cached(board, key, NO_YES, make)


def card_options(board: Board, cards: tuple[str, ...]) -> Menu:
    """One option per distinct card in hand: ``card:<card id>``."""
    key = ("card", cards)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    return _cached(board, key, cards, lambda: [
        Option(f"card:{c}", card_label(c), {"card": c}) for c in cards])


def seat_options(board: Board, seats: tuple[int, ...]) -> Menu:
    key = ("seat", seats)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    return _cached(board, key, seats, lambda: [
        Option(f"seat:{s}", f"seat {s} ({board.colours[s]})", {"seat": s}) for s in seats])


def gate_options(board: Board, gates: tuple[tuple[int, int], ...]) -> Menu:
    """``gate:<colour>`` for each (gate, controller) pair; value: the gate."""
    key = ("gate", gates)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit
    colours = board.colours
    return _cached(board, key, tuple(g for g, _ in gates), lambda: [
        Option(f"gate:{colours[g]}", f"the {colours[g]} gate",
               {"gate": colours[g], "controller": c}) for g, c in gates])


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
