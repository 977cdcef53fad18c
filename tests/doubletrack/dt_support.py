"""Helpers for Doubletrack tests: explicit positions, forced dice, random play.

``make_state`` builds a position from keyword arguments (anything not given is a neutral
default) and runs it to its first question; ``ScriptedDice`` replaces the state's generator so
that the rolls are the ones the test names.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from referee.games import find_game
from referee.games.doubletrack.state import NO_ONE, DoubletrackState
from referee.games.doubletrack.steps import ROUTE_START, SQUARE

GAME = find_game("doubletrack")
BOARD = GAME.load_board()
Q = BOARD.quadrant_len  # 14 on the default board
RED, YELLOW, BLUE, GREEN = range(4)


def shortcut_square(gate: int, k: int) -> int:
    return BOARD.main_len + gate * len(BOARD.shortcut) + k


def square_at(kind: str, quadrant: int = 0) -> int:
    """The first main square of ``kind`` (e.g. "SELL_A_CARD", "NUMBER 3") in a quadrant."""
    for off in range(Q):
        pos = quadrant * Q + off
        if BOARD.square_name(pos) == kind or BOARD.squares[pos][0] == kind:
            return pos
    raise LookupError(kind)


DEFAULT_HANDS = [["number-1", "number-2", "number-3"], ["number-4", "number-5", "number-6"],
                 ["number-7", "number-8", "number-1"], ["number-2", "number-3", "number-4"]]


class ScriptedDice(random.Random):
    """A generator whose ``random()`` yields the named die faces, in order; nothing else."""

    def __init__(self, faces: Sequence[int], sides: int = 6) -> None:
        super().__init__(0)
        self.faces, self.sides = list(faces), sides

    def random(self) -> float:
        if not self.faces:
            raise AssertionError("the test ran out of scripted dice")
        return (self.faces.pop(0) - 0.5) / self.sides


def make_state(
    n: int = 4, *, active: int = 0, small: Sequence[int] | None = None,
    big: Sequence[int] | None = None, money: Sequence[int] | None = None,
    hands: Sequence[Sequence[str]] | None = None, gates: Sequence[int] | None = None,
    dice: Sequence[int] = (), at: str = "turn", turns: int = 0, may_decline: bool = True,
) -> DoubletrackState:
    """A position, run to its first question. ``at="turn"`` plays one turn of ``active`` from
    the route step; ``at="square"`` only resolves the square its big pawn stands on. Either way
    the engine stops after that turn (no end of turn), so tests see the turn's outcome alone.
    Hands default to Number cards; the pile holds the rest of the deck (30 cards conserved).
    ``may_decline=False``: rules version 2 (no ``decline`` for Trade Places and Steal)."""
    st = DoubletrackState(BOARD, n, 0, deal=False, may_decline=may_decline)
    st.active, st.turns = active, turns
    if small is not None:
        st.small = list(small)
    if big is not None:
        st.big = list(big)
    if money is not None:
        st.money = list(money)
    if gates is not None:
        st.gates = list(gates)
    st.hands = [list(h) for h in (hands or DEFAULT_HANDS[:n])]
    rest = Counter(BOARD.deck)
    for h in st.hands:
        rest.subtract(h)
    assert all(v >= 0 for v in rest.values()), "hands use more cards than the deck has"
    st.pile = sorted(rest.elements())
    st.rng = ScriptedDice(dice)
    st.turns = max(1, turns)
    st.stack = [ROUTE_START] if at == "turn" else [SQUARE]
    st.resume()
    return st


def hands_with(*cards: str, n: int = 4, seat: int = 0) -> list[list[str]]:
    """Hands where ``seat`` holds ``cards`` (padded with worthless ones) and the other seats hold
    Number cards left in the deck, so the 30 cards stay consistent."""
    mine = list(cards) + ["worthless"] * (3 - len(cards))
    rest = Counter(BOARD.deck)
    rest.subtract(mine)
    spare = [c for c in sorted(rest.elements(), reverse=True) if c.startswith("number-")]
    hands = [spare[3 * i: 3 * i + 3] for i in range(n)]
    hands[seat] = mine
    return hands


def answer(st: DoubletrackState, **choices: str) -> None:
    """Answer the pending decisions: ``answer(st, s0="bid:5", s2="bid:10")``."""
    st.apply({int(k[1:]): v for k, v in choices.items()})


def only(st: DoubletrackState) -> Any:
    """The single pending decision (fails if there are none or several)."""
    pending = st.pending()
    assert len(pending) == 1, pending
    return pending[0]


def ids(st: DoubletrackState) -> list[str]:
    return list(only(st).option_ids())


def play_random(n: int, seed: int, board: Any = None) -> tuple[DoubletrackState, list[dict[int, str]]]:
    """A whole random game; returns the final state and the choices made."""
    st = GAME.new_state(n, seed, board)
    rng = random.Random(seed)
    choices: list[dict[int, str]] = []
    while st.pending():
        c = {d.seat: rng.choice(d.options).id for d in st.pending()}
        choices.append(c)
        st.apply(c)
    return st, choices


def random_positions(n: int, seed: int, every: int = 7) -> Iterator[DoubletrackState]:
    """States met along a random game, every few steps (clones, so they can be altered)."""
    st = GAME.new_state(n, seed)
    rng = random.Random(seed)
    step = 0
    while st.pending():
        if step % every == 0:
            yield st.clone()
        st.apply({d.seat: rng.choice(d.options).id for d in st.pending()})
        step += 1


def scramble_hidden(st: DoubletrackState, seat: int, rng: random.Random) -> None:
    """Re-deal everything ``seat`` cannot see: other seats' unknown cards, the unknown part of
    the pile, the card on sale (unless ``seat`` sells it), and the generator."""
    slots: list[tuple[list[str], int]] = []
    for other in range(st.num_players):
        if other == seat:
            continue
        known = Counter(st.known[other])
        for i, card in enumerate(st.hands[other]):
            if known[card] > 0:
                known[card] -= 1
            else:
                slots.append((st.hands[other], i))
    slots += [(st.pile, i) for i in range(st.pile_known, len(st.pile))]
    sale = st.on_sale is not None and st.seller != seat
    cards = [lst[i] for lst, i in slots] + ([st.on_sale] if sale else [])
    rng.shuffle(cards)
    if sale:
        st.on_sale = cards.pop()
    for (lst, i), card in zip(slots, cards):
        lst[i] = card
    st.rng = random.Random(rng.random())


__all__ = ["BOARD", "GAME", "NO_ONE", "Q", "RED", "YELLOW", "BLUE", "GREEN", "ScriptedDice",
           "answer", "hands_with", "ids", "make_state", "only", "play_random", "random_positions",
           "scramble_hidden", "shortcut_square", "square_at"]
