"""The Doubletrack engine: a game in progress, as a stack of small named steps.

A turn is route -> roll -> square -> (auction) -> end of turn; cards, bumps and auctions push
further steps. Steps are plain tuples ``(name, *args)`` holding only public, JSON-able values,
so a state clones by copying lists and a view can show the flow (which ``determinize`` rebuilds).
A step named ``ask_*`` puts a question to one or more seats (several: sealed simultaneous bids)
unless only one answer is possible, in which case it answers itself: ``pending()`` never holds a
decision with a single option.

Hidden information lives outside the steps: hands, the draw pile, and the card on sale.
Public knowledge about cards is tracked so that views and ``determinize`` agree with what a seat
with perfect memory knows: played cards go under the pile in the open (``pile_known`` of them sit
at the bottom), and a seat that draws one of them holds a card everyone knows (``known``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from referee.core import (
    Decision, EndReason, GameOverError, IllegalChoiceError, Result, SeatResult, State,
    ranks_from_keys,
)
from referee.games.doubletrack import options as opt
from referee.games.doubletrack.board import BACK_STEPS, NUMBER, TAKE_AMOUNT, Board

TURN_LIMIT = 300
"""A game that passes 300 turns ends there (rules page, 'End and ranking')."""
NO_ONE = -1

Step = tuple[Any, ...]
Route = tuple[tuple[int, int, int, int], ...]
"""Agreed route for the coming move: (gate, takes shortcut 0/1, fee, payee) per fork in reach."""


class DoubletrackState(State):
    """A Doubletrack game. Seats are 0..n-1, seat i plays colour i; gates are colour indexes."""

    def __init__(self, board: Board, num_players: int, seed: int, deal: bool = True) -> None:
        self.board = board
        self.num_players = num_players
        self.rng = random.Random(seed)
        n = num_players
        self.big = [board.start_square(s) for s in range(n)]
        self.small = [0] * n
        self.money = [board.start_money] * n
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.known: list[list[str]] = [[] for _ in range(n)]
        self.pile: list[str] = []
        """Draw pile, top at the end: drawing pops, a card put under is inserted at 0."""
        self.pile_known = 0
        """How many cards at the bottom of the pile (pile[:k]) are public knowledge."""
        self.gates = [s if s < n else NO_ONE for s in range(len(board.colours))]
        self.played: list[tuple[int, str]] = []
        self.on_sale: str | None = None
        self.seller = NO_ONE
        self.active = 0
        self.turns = 0
        """Turns begun so far (the current turn's number)."""
        self.winner = NO_ONE
        self.ended: EndReason | None = None
        self.events: list[dict[str, Any]] = []
        self.seen = [0] * n
        self.stack: list[Step] = []
        self.wait: Step | None = None
        self._pending: list[Decision] = []
        self._values: list[dict[str, Any]] = []
        self._result: Result | None = None
        if deal:
            self._setup()

    def _setup(self) -> None:
        """Shuffle, deal ``hand_size`` each, draw the first player; then run to the first question."""
        self.pile = list(self.board.deck)
        self.rng.shuffle(self.pile)
        for _ in range(self.board.hand_size):
            for s in range(self.num_players):
                self.hands[s].append(self.pile.pop())
        self.active = self.rng.randrange(self.num_players)
        self.events.append({"type": "start", "first": self.active})
        self.stack.append(("turn",))
        self._run()

    # -- the State interface ------------------------------------------------------------------

    def pending(self) -> list[Decision]:
        return list(self._pending)

    def apply(self, choices: Mapping[int, str]) -> None:
        pend = self._pending
        if not pend:
            raise GameOverError("the game is over")
        values: dict[int, Any] = {}
        for d, vals in zip(pend, self._values):
            choice = choices.get(d.seat)
            try:
                values[d.seat] = vals[choice]  # type: ignore[index]
            except (KeyError, TypeError):
                detail = "no answer given" if choice is None else ""
                raise IllegalChoiceError(d.seat, choice, d.kind, detail) from None
        if len(choices) != len(pend):
            extra = next(s for s in choices if s not in values)
            raise IllegalChoiceError(extra, choices[extra], pend[0].kind,
                                     "this seat is not asked now")
        n_events = len(self.events)
        for d in pend:
            self.seen[d.seat] = n_events
        step = self.wait
        assert step is not None
        self._pending, self._values, self.wait = [], [], None
        _HANDLERS[step[0]](self, step, values)
        self._run()

    def view(self, seat: int | None) -> dict[str, Any]:
        from referee.games.doubletrack.views import build_view
        return build_view(self, seat)

    def result(self) -> Result | None:
        if self.ended is None:
            return None
        if self._result is None:
            self._result = self._make_result()
        return self._result

    def clone(self) -> DoubletrackState:
        other = DoubletrackState.__new__(DoubletrackState)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random.__new__(random.Random)  # no OS seeding: the state follows
        other.rng.setstate(self.rng.getstate())
        for name in ("big", "small", "money", "pile", "gates", "played", "events", "seen",
                     "stack", "_pending", "_values"):
            setattr(other, name, list(getattr(self, name)))
        other.hands = [list(h) for h in self.hands]
        other.known = [list(k) for k in self.known]
        return other

    # -- the step machine -----------------------------------------------------------------------

    def _run(self) -> None:
        """Run steps until a question is due or the game ends."""
        stack = self.stack
        while stack and self.ended is None:
            step = stack.pop()
            name = step[0]
            ask = _ASKS.get(name)
            if ask is None:
                _STEPS[name](self, step)
            elif ask(self, step):
                self.wait = step
                return

    def _ask(self, step: Step, seat: int, kind: str, prompt: str, built: opt.Built) -> bool:
        """Put one question; answer it at once when there is only one option."""
        options, values = built
        if len(options) == 1:
            _HANDLERS[step[0]](self, step, {seat: values[options[0].id]})
            return False
        self._pending = [Decision(seat, kind, prompt, options)]
        self._values = [values]
        return True

    def _log(self, **event: Any) -> None:
        self.events.append(event)

    def _roll(self) -> list[int]:
        r, sides = self.rng.random, self.board.dice_sides
        return [int(r() * sides) + 1 for _ in range(self.board.dice_count)]

    # -- money, gates, cards ------------------------------------------------------------------

    def _pay(self, payer: int, payee: int, amount: int) -> None:
        self.money[payer] -= amount
        self.money[payee] += amount

    def _draw(self, seat: int) -> None:
        card = self.pile.pop()
        if len(self.pile) < self.pile_known:  # the card came from the public bottom part
            self.pile_known = len(self.pile)
            self.known[seat].append(card)
            self._log(type="draw", seat=seat, card=card)
        else:
            self._log(type="draw", seat=seat)
        self.hands[seat].append(card)

    def _reveal(self, owner: int, card: str) -> None:
        """A card leaves ``owner``'s hand face up: public knowledge of that hand shrinks."""
        if card in self.known[owner]:
            self.known[owner].remove(card)

    def _opponent_gates(self, seat: int) -> tuple[tuple[int, int], ...]:
        return tuple((g, c) for g, c in enumerate(self.gates) if c != NO_ONE and c != seat)

    def _opponents(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.num_players) if s != seat)

    # -- the inner track ----------------------------------------------------------------------

    def _place(self, seat: int, to: int) -> None:
        """Put ``seat``'s small pawn on circle ``to`` and apply the bump rule (then HOME)."""
        home = self.board.home
        if 0 < to < home:
            small = self.small
            taken = {small[s] for s in range(self.num_players) if s != seat}
            while to in taken:  # one pawn per circle: move on, again until free
                to += 1
        if to >= home:
            self.small[seat] = home
            self._log(type="small", seat=seat, to=home)
            self._win(seat)
            return
        self.small[seat] = to
        self._log(type="small", seat=seat, to=to)

    def _to_lead(self, seat: int) -> None:
        """Take The Lead / SELL THE LEAD: to the circle just ahead of the leader, unless alone ahead."""
        lead = max(self.small[s] for s in self._opponents(seat))
        if self.small[seat] > lead:
            self._log(type="small", seat=seat, to=self.small[seat], stays=True)
            return
        self._place(seat, lead + 1)

    def _win(self, seat: int) -> None:
        self.winner = seat
        self.ended = EndReason.NORMAL  # at once: the steps left on the stack never run
        self._log(type="home", seat=seat)

    # -- result ---------------------------------------------------------------------------------

    def _make_result(self) -> Result:
        """Winner first, then small-pawn position, then money; equal on both share a rank."""
        n = self.num_players
        keys = [(s == self.winner, self.small[s], self.money[s]) for s in range(n)]
        ranks = ranks_from_keys(keys)
        seats = tuple(SeatResult(s, self.small[s], {"position": self.small[s]}, ranks[s])
                      for s in range(n))
        winners = tuple(s for s in range(n) if ranks[s] == 1)
        colours = self.board.colours
        if self.ended is EndReason.TURN_LIMIT:
            reason = f"{TURN_LIMIT} turns played without a pawn reaching HOME"
        else:
            reason = f"seat {self.winner} ({colours[self.winner]}) reached HOME"
        extra = {"money": list(self.money)}
        return Result(seats, winners, self.ended or EndReason.NORMAL, self.turns // n, reason,
                      extra, turns=self.turns)


# The step functions live in flow.py; they register themselves into these tables.
_STEPS: dict[str, Callable[[DoubletrackState, Step], None]] = {}
_ASKS: dict[str, Callable[[DoubletrackState, Step], bool]] = {}
_HANDLERS: dict[str, Callable[[DoubletrackState, Step, dict[int, Any]], None]] = {}

__all__ = ["DoubletrackState", "TURN_LIMIT", "NO_ONE", "NUMBER", "TAKE_AMOUNT", "BACK_STEPS"]
