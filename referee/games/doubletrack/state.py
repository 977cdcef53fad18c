"""The Doubletrack engine: a game in progress, as a stack of small named steps.

A turn is route -> roll -> square -> (auction) -> end of turn; cards, bumps and auctions push
further steps. Steps (:mod:`.steps`) hold only public, JSON-able values, so a state clones by
copying lists and a view can show the flow (which ``determinize`` rebuilds). What each step does
is in :mod:`.flow`; this module is the machine that runs them and the small public API they use
(``ask``, ``roll_dice``, ``pay``, ``draw``, ``place``, ...). A step named ``ask_*`` puts a
question to one or more seats (several: sealed simultaneous bids) unless only one answer is
possible, in which case it answers itself: ``pending()`` never holds a decision with a single
option.

Hidden information lives outside the steps: hands, the draw pile, and the card on sale.
Public knowledge about cards is tracked so that views and ``determinize`` agree with what a seat
with perfect memory knows: played cards go under the pile in the open (``pile_known`` of them sit
at the bottom), and a seat that draws one of them holds a card everyone knows (``known``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from referee.core import (
    Decision, EndReason, GameOverError, IllegalChoiceError, Result, SeatResult, State,
    ranks_from_keys,
)
from referee.games.doubletrack import options as opt
from referee.games.doubletrack.board import (
    BACK_STEPS, NO_ONE, NUMBER, RULES_PLAYERS, TAKE_AMOUNT, TURN_LIMIT, Board,
)
from referee.games.doubletrack.flow import ANSWER, STEPS
from referee.games.doubletrack.steps import TURN, Step
from referee.games.doubletrack.views import build_view

OPPONENTS = {n: [tuple(s for s in range(n) if s != seat) for seat in range(n)]
             for n in RULES_PLAYERS}
"""Seats -> seat -> the other seats, in order."""

Asked = tuple[int, str, str, opt.Menu]
"""A pending question: (seat, kind, prompt, menu)."""


class DoubletrackState(State):
    """A Doubletrack game. Seats are 0..n-1, seat i plays colour i; gates are colour indexes."""

    def __init__(self, board: Board, num_players: int, seed: int, deal: bool = True,
                 may_decline: bool = True) -> None:
        """A new game from ``seed``; ``deal=False`` leaves an empty table for a position to be
        built by hand (``determinize``, tests), to be started with :meth:`resume`.
        ``may_decline=False`` plays rules version 2 (to replay its logs): Trade Places and
        Steal A Gate Pass offer no ``decline``."""
        self.board = board
        self.may_decline = may_decline
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
        """What happened, in order: JSON-able dicts with a ``type``, shown to every seat. The
        steps append them as dict literals (a few hundred a game: no call each)."""
        self.seen = [0] * n
        self.stack: list[Step] = []
        """Steps still to run, the next one at the end."""
        self.wait: Step | None = None
        """The ``ask_*`` step whose question is pending."""
        self._asked: list[Asked] = []
        """The pending questions: (seat, kind, prompt, menu); several: sealed bids."""
        self._counts: tuple[tuple[int, int], ...] = ()
        """(seat, number of options) of each pending question: :meth:`choice_counts`."""
        self._alone = NO_ONE
        """The seat of the pending question when it is one seat's alone (not sealed bids;
        NO_ONE: sealed bids, or nothing pending), and its menu's values: both derived from
        ``_asked``, kept apart so that the fast paths answer with two lookups."""
        self._values: tuple[Any, ...] = ()
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
        self.stack.append(TURN)
        self._run()

    # -- the State interface ------------------------------------------------------------------

    def pending(self) -> list[Decision]:
        return [Decision(seat, kind, prompt, menu.options)
                for seat, kind, prompt, menu in self._asked]

    def choice_counts(self) -> Sequence[tuple[int, int]]:
        """Without building a ``Decision`` or an ``Option`` (the options of a question are
        built only when :meth:`pending` shows them); a tuple, which no caller can change."""
        return self._counts

    def apply(self, choices: Mapping[int, str]) -> None:
        seat = self._alone
        if seat >= 0 and len(choices) == 1:  # one seat asked: most questions
            try:
                value = self._asked[0][3].value_of(choices.get(seat))
            except (KeyError, TypeError):
                pass  # the full check below names the fault
            else:
                self._answer((seat,), value)
                return
        self._answer_all(self._checked(choices, opt.Menu.value_of))

    def apply_index(self, choices: Mapping[int, int]) -> None:
        seat = self._alone
        if seat >= 0 and len(choices) == 1:  # one seat asked: most questions
            i = choices.get(seat)
            values = self._values
            if type(i) is int and 0 <= i < len(values):  # what _answer does, inline
                self.seen[seat] = len(self.events)
                step = self.wait
                self._clear()
                ANSWER[step[0]](self, step, values[i])  # type: ignore[index]
                self._run()
                return
        self._answer_all(self._checked(choices, opt.Menu.value_at, "no option of that index"))

    def _checked(self, choices: Mapping[int, Any], pick: Callable[[opt.Menu, Any], Any],
                 refused: str = "") -> dict[int, Any]:
        """Seat -> value of the choice ``pick`` finds in its menu, for every pending question.

        Raises :class:`GameOverError` once over, :class:`IllegalChoiceError` for a choice
        ``pick`` refuses (``LookupError``, ``TypeError``; ``refused`` says why), an asked seat
        left out or a seat not asked.
        """
        asked = self._asked
        if not asked:
            raise GameOverError("the game is over")
        answers: dict[int, Any] = {}
        for seat, kind, _, menu in asked:
            choice = choices.get(seat)
            try:
                answers[seat] = pick(menu, choice)
            except (LookupError, TypeError):
                detail = "no answer given" if choice is None else refused
                raise IllegalChoiceError(seat, choice, kind, detail) from None
        if len(choices) != len(asked):
            extra = next(s for s in choices if s not in answers)
            raise IllegalChoiceError(extra, choices[extra], asked[0][1],
                                     "this seat is not asked now")
        return answers

    def _answer_all(self, answers: dict[int, Any]) -> None:
        """Sealed bids take the answers as a dict; a question to one seat, the value alone."""
        self._answer(answers, answers if self._alone == NO_ONE else next(iter(answers.values())))

    def _answer(self, seats: Iterable[int], answer: Any) -> None:
        """Act on the (checked) answer of ``seats`` to the pending questions, then run to the
        next question."""
        n_events = len(self.events)
        seen = self.seen
        for seat in seats:
            seen[seat] = n_events
        step = self.wait
        assert step is not None
        self._clear()
        ANSWER[step[0]](self, step, answer)
        self._run()

    def view(self, seat: int | None) -> dict[str, Any]:
        return build_view(self, seat)

    def events_since(self, seat: int) -> list[dict[str, Any]]:
        return self.events[self.seen[seat]:]

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
                     "stack", "_asked"):
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
            if STEPS[step[0]](self, step):
                self.wait = step
                return

    def resume(self) -> None:
        """Ask the waiting question again (its options rebuilt from the state as it is now),
        or start the steps on the stack; run until the next question.

        For a position built or changed by hand: ``determinize``, tests, analysis tools.
        """
        if self.wait is not None:
            self.stack.append(self.wait)
            self._clear()
        self._run()

    def _clear(self) -> None:
        """Nothing pending (the question was answered, or is to be asked again)."""
        self._asked, self._counts, self.wait, self._alone = [], (), None, NO_ONE

    def ask(self, step: Step, seat: int, kind: str, prompt: str, menu: opt.Menu) -> bool:
        """Put one question to ``seat`` for ``step``; with a single option, answer it at once.
        True when the question is now pending. The step's answer function receives the value
        of the option chosen."""
        values = menu.values
        if len(values) == 1:
            ANSWER[step[0]](self, step, values[0])
            return False
        self._asked = [(seat, kind, prompt, menu)]
        self._counts = ((seat, len(values)),)
        self._alone, self._values = seat, values
        return True

    def ask_sealed(self, asked: list[Asked]) -> None:
        """Put several questions at once (sealed, simultaneous bids): (seat, kind, prompt,
        menu) each. The step's answer function receives a dict, seat -> value chosen."""
        self._asked = asked
        self._counts = tuple([(q[0], len(q[3].values)) for q in asked])

    def roll_dice(self) -> list[int]:
        """The board's dice (two six-sided on the default board), from the state's generator."""
        r, sides = self.rng.random, self.board.dice_sides
        if self.board.dice_count == 2:  # the default board, every turn: no comprehension
            return [int(r() * sides) + 1, int(r() * sides) + 1]
        return [int(r() * sides) + 1 for _ in range(self.board.dice_count)]

    # -- money, gates, cards ------------------------------------------------------------------

    def pay(self, payer: int, payee: int, amount: int) -> None:
        """All payments are made in the open (so balances are public knowledge)."""
        self.money[payer] -= amount
        self.money[payee] += amount

    def draw(self, seat: int) -> None:
        """``seat`` draws the top card; one that came from the public bottom part is known."""
        card = self.pile.pop()
        if len(self.pile) < self.pile_known:  # the card came from the public bottom part
            self.pile_known = len(self.pile)
            self.known[seat].append(card)
            self.events.append({"type": "draw", "seat": seat, "card": card})
        else:
            self.events.append({"type": "draw", "seat": seat})
        self.hands[seat].append(card)

    def reveal(self, owner: int, card: str) -> None:
        """A card leaves ``owner``'s hand face up: public knowledge of that hand shrinks."""
        if card in self.known[owner]:
            self.known[owner].remove(card)

    def opponent_gates(self, seat: int) -> tuple[tuple[int, int], ...]:
        """(gate, controller) of every gate another seat controls."""
        return tuple((g, c) for g, c in enumerate(self.gates) if c != NO_ONE and c != seat)

    def opponents(self, seat: int) -> tuple[int, ...]:
        return OPPONENTS[self.num_players][seat]

    # -- the inner track ----------------------------------------------------------------------

    def place(self, seat: int, to: int) -> None:
        """Put ``seat``'s small pawn on circle ``to`` and apply the bump rule (one small pawn per
        circle, START holds any number: move on one circle, again until free); reaching or
        passing HOME wins at once."""
        home = self.board.home
        if 0 < to < home:
            small = self.small
            small[seat] = NO_ONE  # off the track while it moves: only the others' pawns bump
            while to in small:
                to += 1
        if to >= home:
            self.small[seat] = home
            self.events.append({"type": "small", "seat": seat, "to": home})
            self._win(seat)
            return
        self.small[seat] = to
        self.events.append({"type": "small", "seat": seat, "to": to})

    def to_lead(self, seat: int) -> None:
        """Take The Lead / SELL THE LEAD: to the circle just ahead of the leader, unless alone ahead."""
        lead = max(self.small[s] for s in self.opponents(seat))
        if self.small[seat] > lead:
            self.events.append({"type": "small", "seat": seat, "to": self.small[seat],
                                "stays": True})
            return
        self.place(seat, lead + 1)

    def _win(self, seat: int) -> None:
        """The first small pawn to reach HOME wins at once: the steps left never run."""
        self.winner = seat
        self.ended = EndReason.NORMAL
        self.events.append({"type": "home", "seat": seat})

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


__all__ = ["DoubletrackState", "TURN_LIMIT", "NO_ONE", "NUMBER", "TAKE_AMOUNT", "BACK_STEPS"]
