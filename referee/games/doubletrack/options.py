"""The option lists Doubletrack offers, built once per board and reused.

Options are immutable, so the same tuple serves every decision with the same shape (a bid by a
seat holding $85 always has the same 18 options). Each entry is ``(options, values)``: the
option tuple sent to the seat and a map from option id to the value the engine acts on. Caching
here keeps ``pending()`` and ``apply()`` cheap enough for hundreds of games a second.
"""

from __future__ import annotations

from typing import Any

from referee.core import Option
from referee.games.doubletrack.board import MIN_BID, Board

Built = tuple[tuple[Option, ...], dict[str, Any]]


def _built(board: Board, key: tuple[Any, ...], make: Any) -> Built:
    """Build the entry of ``key`` from ``make()`` (option, value pairs) and cache it. Every
    builder below looks the cache up itself first, so that a hit (nearly every call, once
    warm) costs no closure."""
    pairs = make()
    hit: Built = (tuple(o for o, _ in pairs), {o.id: v for o, v in pairs})
    board.option_cache[key] = hit
    return hit


def bid_options(board: Board, auction: str, money: int) -> Built:
    """``bid:5`` .. ``bid:<money>`` in steps of the money unit (at least $5 for a seat that
    has it); only a seat with less than $5 bids ``bid:0``, the empty fist. Value = the amount."""
    key = ("bid", auction, money)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        amounts = range(MIN_BID, money + 1, board.unit) if money >= MIN_BID else (0,)
        return [(Option(f"bid:{n}", f"bid ${n}", {"amount": n, "auction": auction}), n)
                for n in amounts]
    return _built(board, key, make)


def gate_request_options(board: Board, gate: int, controller: int) -> Built:
    key = ("gate_request", gate, controller)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        colour = board.colours[gate]
        return [
            (Option("around", f"go around the {colour} gate by the corner",
                   {"gate": colour, "controller": controller}), False),
            (Option("ask", f"ask seat {controller} to open the {colour} gate",
                   {"gate": colour, "controller": controller}), True),
        ]
    return _built(board, key, make)


def gate_offer_options(board: Board, gate: int, requester: int, max_fee: int) -> Built:
    """``refuse``, ``free`` or ``fee:<n>`` for n = unit .. max_fee; value: None, 0 or n."""
    key = ("gate_offer", gate, requester, max_fee)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        colour = board.colours[gate]
        base = {"gate": colour, "requester": requester}
        opts = [(Option("free", "let them through free", {**base, "fee": 0}), 0),
                (Option("refuse", "refuse", {**base, "fee": None}), None)]
        opts += [(Option(f"fee:{n}", f"charge ${n}", {**base, "fee": n}), n)
                 for n in range(board.unit, max_fee + 1, board.unit)]
        return opts
    return _built(board, key, make)


def gate_accept_options(board: Board, gate: int, fee: int) -> Built:
    key = ("gate_accept", gate, fee)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        colour = board.colours[gate]
        return [
            (Option("around", "go around by the corner",
                   {"gate": colour, "fee": fee}), False),
            (Option("pay", f"pay ${fee} if the pawn enters the shortcut",
                   {"gate": colour, "fee": fee}), True),
        ]
    return _built(board, key, make)


def take_pass_options(board: Board, gate: int, holder: int) -> Built:
    """TAKE THE (colour) GATE PASS is optional: ``take`` or ``leave``; value: True or False."""
    key = ("take_pass", gate, holder)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        colour = board.colours[gate]
        data = {"gate": colour, "holder": None if holder < 0 else holder}
        return [(Option("take", f"take control of the {colour} gate", data), True),
                (Option("leave", f"leave the {colour} gate where it is", data), False)]
    return _built(board, key, make)


def number_options(board: Board, lo: int, hi: int) -> Built:
    key = ("number", lo, hi)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        return [(Option(f"number:{n}", f"move the small pawn {n}", {"number": n}), n)
                for n in range(lo, hi + 1)]
    return _built(board, key, make)


def inner_route_options(board: Board, start: int, target: int, steps: int) -> Built:
    """The first step of a forward move of ``steps`` from a purple circle: path or shortcut."""
    key = ("inner_route", start, target, steps)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        base = {"from": start, "steps": steps}
        return [
            (Option("path", "follow the path", {**base, "first_step": start + 1}), False),
            (Option("shortcut", f"take the purple shortcut to {target}",
                    {**base, "first_step": target}), True),
        ]
    return _built(board, key, make)


def card_options(board: Board, cards: tuple[str, ...]) -> Built:
    """One option per distinct card in hand: ``card:<card id>``."""
    key = ("card", cards)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        return [(Option(f"card:{c}", card_label(c), {"card": c}), c) for c in cards]
    return _built(board, key, make)


def seat_options(board: Board, seats: tuple[int, ...]) -> Built:
    key = ("seat", seats)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        return [(Option(f"seat:{s}", f"seat {s} ({board.colours[s]})",
                       {"seat": s}), s) for s in seats]
    return _built(board, key, make)


def gate_options(board: Board, gates: tuple[tuple[int, int], ...]) -> Built:
    """``gate:<colour>`` for each (gate, controller) pair."""
    key = ("gate", gates)
    hit = board.option_cache.get(key)
    if hit is not None:
        return hit

    def make() -> list[tuple[Option, Any]]:
        return [(Option(f"gate:{board.colours[g]}", f"the {board.colours[g]} gate",
                       {"gate": board.colours[g], "controller": c}), g)
                for g, c in gates]
    return _built(board, key, make)


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
