"""``greedy`` for Doubletrack: one-step judgement of every option, from the view alone.

It values things in inner-track circles: a card by where it would put its own small pawn (bumps
and purple shortcuts included), a HOME within reach above everything. Money is worth spending
only where the rules pay it back: the lead when far behind (or to stop a rival reaching HOME),
a cheap gate fee, never much on a face-down card. Selling, it offers the card worst for itself,
since the buyer must play it. Of the effects the rules make optional it declines a Trade Places
that would move it back and a Steal A Gate Pass whose gate's forced shortcut would make its next
move worse than the corner. Like a remote bot it reads only the decision, its view and the
board data in play (public).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bots.boards import match_board
from referee.core import Decision, Option
from referee.games import find_game
from referee.games.doubletrack.board import NUMBER, TAKE_AMOUNT, Board, RouteNode
from referee.players import Bot, MatchInfo

WIN = 1000.0
"""Value of reaching HOME: more than any number of circles."""
GATE_VALUE = 3.0
"""A gate pass in circles: it earns fees and opens the two-square shortcut (Number 6 + a card)."""
CIRCLE_DOLLARS = 10.0
"""What one circle of lead-auction gain is worth in dollars (money has few other uses)."""
DEFEND_DOLLARS = 30.0
"""Bid per circle of margin to keep the lead, once past half way: a rival who wins the lead
auction lands just ahead of me."""


class Track:
    """The inner track as the view shows it, with the engine's move rules (bump, shortcut)."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.home: int = view["inner"]["home"]
        self.purple = {int(k): v for k, v in view["inner"]["purple_shortcuts"].items()}
        self.small: list[int] = [s["small"] for s in view["seats"]]

    def settle(self, seat: int, to: int) -> int:
        """Where a pawn ends on ``to``: bumped on past occupied circles; HOME caps."""
        taken = {p for i, p in enumerate(self.small) if i != seat}
        while 0 < to < self.home and to in taken:
            to += 1
        return min(to, self.home)

    def forward(self, seat: int, n: int) -> int:
        pos = self.small[seat]
        best = self.settle(seat, pos + n)
        if pos in self.purple:
            best = max(best, self.settle(seat, self.purple[pos] + n - 1))
        return best

    def others(self, seat: int) -> list[int]:
        return [p for i, p in enumerate(self.small) if i != seat]

    def gain(self, seat: int, to: int) -> float:
        return WIN if to >= self.home else float(to - self.small[seat])


def card_value(card: str, seat: int, track: Track) -> float:
    """The card's worth to ``seat`` if it played it now, in circles."""
    pos = track.small[seat]
    others = track.others(seat)
    if card.startswith("number-"):
        return track.gain(seat, track.forward(seat, int(card[7:])))
    if card == "take_the_lead":
        lead = max(others)
        return 0.0 if pos > lead else track.gain(seat, track.settle(seat, lead + 1))
    if card == "trade_places":  # also pulls the best rival back; declined when behind no one
        gap = max(others) - pos
        return float(gap) + 1.0 if gap > 0 else 0.0
    if card == "back_10":
        return float(track.settle(seat, max(0, pos - 10)) - pos)
    if card == "go_farthest_back":
        last = min(others)
        return 0.0 if pos <= last else float(track.settle(seat, max(0, last - 1)) - pos)
    if card == "steal_a_gate_pass":
        return GATE_VALUE
    return 0.0


def square_value(square: tuple[str, int, int], seat: int, track: Track,
                 hand: Sequence[str]) -> float:
    """What stopping on ``square`` is worth to ``seat`` now, in circles: a Number's move, the
    best card of ``hand`` on PLAY A CARD, $25 on TAKE $25; the auctions count nothing."""
    kind, lo, hi = square
    if kind == NUMBER:
        return max(track.gain(seat, track.forward(seat, n)) for n in range(lo, hi + 1))
    if kind == "PLAY_A_CARD":
        return max((card_value(c, seat, track) for c in hand), default=0.0)
    if kind == "TAKE_25":
        return TAKE_AMOUNT / CIRCLE_DOLLARS
    return 0.0


class Outer:
    """The outer track of the board in play, to judge a gate: holding one forces its shortcut
    (rules: 'A's own gate: the shortcut is taken'), where a seat without it may go round."""

    def __init__(self, board: Board) -> None:
        self.board = board
        odds = {0: 1.0}
        for _ in range(board.dice_count):
            rolled: dict[int, float] = {}
            for total, p in odds.items():
                for face in range(1, board.dice_sides + 1):
                    rolled[total + face] = rolled.get(total + face, 0.0) + p / board.dice_sides
            odds = rolled
        self.odds = odds
        """Roll -> its probability."""

    def forced_route_is_worse(self, colour: str, seat: int, view: Mapping[str, Any],
                              track: Track) -> bool:
        """Whether holding the ``colour`` gate makes ``seat``'s next move worth less than going
        round by the corner (which it can always do without the gate). A gate whose fork the
        next move cannot reach costs nothing now; a view of another board is not judged."""
        b = self.board
        if view["board_version"] != b.version or colour not in b.colours:
            return False
        gate = b.colours.index(colour)
        me = view["seats"][seat]
        held = {b.colours.index(c) for c in me["gates"]}
        start = b.routes[me["big"]["pos"]]
        short, corner = self._leaf(start, gate, True, held), self._leaf(start, gate, False, held)
        if short is corner:
            return False
        hand = view["hand"] or ()

        def expected(leaf: RouteNode) -> float:
            return sum(p * square_value(b.squares[leaf.to[roll]], seat, track, hand)
                       for roll, p in self.odds.items())
        return expected(short) < expected(corner)

    @staticmethod
    def _leaf(node: RouteNode, gate: int, short: bool, held: set[int]) -> RouteNode:
        """The move's route past every fork in reach: ``gate`` the way given, the gates held
        by their shortcut (forced), any other by the corner (always open)."""
        while node.gate >= 0:
            g = node.gate
            node = node.short if (short if g == gate else g in held) else node.corner
        return node


def round_to(amount: float, unit: int, cap: int) -> int:
    return max(0, min(cap, int(amount // unit) * unit))


class DoubletrackGreedyBot(Bot):
    name = "greedy"

    def __init__(self, game: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.game = find_game(game)
        self.outer = Outer(self.game.load_board())

    def start(self, info: MatchInfo) -> None:
        if info.board:
            self.outer = Outer(match_board(self.game, info.board))

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        handler = getattr(self, "_" + decision.kind, None)
        if handler is None:
            return self.rng.choice(decision.options).id
        choice: str = handler(decision, view, Track(view))
        return choice

    # -- route ------------------------------------------------------------------------------

    def _gate_request(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        return "ask"  # asking costs nothing

    def _gate_accept(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        money = view["seats"][d.seat]["money"]
        fee = d.options[0].data["fee"]
        return "pay" if fee <= max(15, money // 5) else "around"

    def _gate_offer(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        """Refuse a rival well ahead; otherwise ask a fee a sensible seat would pay."""
        requester = d.options[0].data["requester"]
        if t.small[requester] >= t.small[d.seat] + 10:
            return "refuse"
        ask = max(5, view["seats"][requester]["money"] // 5)
        fees = [o for o in d.options if o.data["fee"]]
        if not fees:
            return "free"
        return min(fees, key=lambda o: abs(o.data["fee"] - min(ask, 15))).id

    # -- small pawn and cards ----------------------------------------------------------------

    def _number_choice(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        return max(d.options, key=lambda o: (t.forward(d.seat, o.data["number"]),
                                             o.data["number"])).id

    def _inner_route(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        def end(o: Option) -> int:
            return t.settle(d.seat, o.data["first_step"] + o.data["steps"] - 1)
        return max(d.options, key=lambda o: (end(o), o.id)).id

    def _play_card(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        return max(d.options, key=lambda o: (card_value(o.data["card"], d.seat, t), o.id)).id

    def _sell_card_choice(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        return min(d.options, key=lambda o: (card_value(o.data["card"], d.seat, t), o.id)).id

    def _card_target(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        """Trade with the pawn furthest ahead, steal the gate of the rival furthest ahead (it
        loses fees and a shortcut); decline where that would cost (when the rules offer it)."""
        targets = [o for o in d.options if o.id != "decline"]
        may_decline = len(targets) < len(d.options)
        if "seat" in targets[0].data:  # Trade Places
            best = max(targets, key=lambda o: (t.small[o.data["seat"]], o.id))
            gains = t.small[best.data["seat"]] > t.small[d.seat]
            return best.id if gains or not may_decline else "decline"
        if may_decline:
            worse = self.outer.forced_route_is_worse
            targets = [o for o in targets if not worse(o.data["gate"], d.seat, view, t)]
            if not targets:
                return "decline"
        return max(targets, key=lambda o: (t.small[o.data["controller"]], o.id)).id

    def _take25_target(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        seats = view["seats"]
        def key(o: Option) -> tuple[int, int, int]:
            seat = o.data["seat"]
            return min(25, seats[seat]["money"]), t.small[seat], seats[seat]["money"]
        return max(d.options, key=key).id

    def _sell_pass_choice(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        return d.options[0].id

    def _take_pass(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        """A gate earns fees and opens a shortcut; taking it also takes it from a rival. Taken
        even where its forced shortcut makes the next move worse: leaving it then lost 48.4%
        to 51.6% of 10,000 four-seat games against this bot (a gate's worth outlasts a move)."""
        return "take"

    # -- sealed bids -------------------------------------------------------------------------

    def _bid(self, d: Decision, view: Mapping[str, Any], t: Track) -> str:
        """The offered amount nearest below what the bid is worth; the lowest offered (the
        $5 minimum) when it is worth less, since a seat with money must bid something."""
        amounts = [o.data["amount"] for o in d.options]
        unit = amounts[1] - amounts[0]
        auction = d.options[0].data["auction"]
        amount = self._bid_amount(auction, d.seat, view, t, amounts[-1], unit)
        return f"bid:{max(amounts[0], round_to(amount, unit, amounts[-1]))}"

    def _bid_amount(self, auction: str, seat: int, view: Mapping[str, Any], t: Track,
                    money: int, unit: int) -> float:
        """All-pay: every bid is lost, so pay only for what is worth it."""
        if auction != "lead":
            return 2 * unit if money >= 150 else 0  # a step over the minimum when rich
        others = t.others(seat)
        lead = max(others)
        if lead + 1 >= t.home:  # whoever wins goes HOME: win it or lose the game
            return money
        if t.small[seat] > lead:  # leading alone: keep a rival from jumping ahead of me
            if t.small[seat] * 2 < t.home:
                return 0
            return (t.small[seat] - lead + 1) * DEFEND_DOLLARS
        gain = t.settle(seat, lead + 1) - t.small[seat]
        return gain * CIRCLE_DOLLARS
