"""What happens in a Doubletrack turn: one small function per step.

A turn: ``turn`` -> ``route`` (gate questions) -> ``roll`` -> ``square`` -> (a move, a card, an
auction) -> ``end_turn``. A step that follows at once is a plain call; one that must wait for a
question is pushed on the state's stack (the kinds are in :mod:`.steps`): the questions
themselves, the end of the turn, a played card going under the pile. An ``ask_*`` step builds
its question with :meth:`~.state.DoubletrackState.ask` (which answers it at once when there is
one option); its *answer* function acts on the answer. The functions work on the state through
its public methods (``ask``, ``pay``, ``draw``, ``place``, ...) and fields (they record events
by appending to ``events``); the state
runs the stack from the tables ``STEPS`` and ``ANSWER``. Every step quotes the rule it
implements (the project's Doubletrack rules page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from referee.core import EndReason
from referee.games.doubletrack import options as opt
from referee.games.doubletrack.board import (
    BACK_STEPS, NO_ONE, NUMBER, TAKE_AMOUNT, TAKE_PASS, TURN_LIMIT, RouteNode,
)
from referee.games.doubletrack.steps import (
    ASK_PLAY_CARD, ASK_SELL_CARD, ASK_SELL_PASS, ASK_TAKE25, END_TURN, Agreed, AskBids,
    AskGateAccept, AskGateOffer, AskGateRequest, AskInnerRoute, AskNumber, AskPlayCard, AskSellCard,
    AskSellPass, AskStealTarget, AskTake25, AskTakePass, AskTradeTarget, FinishCard, Route,
)

if TYPE_CHECKING:  # the state imports this module: its class is named for annotations only
    from referee.games.doubletrack.state import DoubletrackState as S

Answers = dict[int, Any]
"""Sealed bids: seat -> the value of the option it chose (see :mod:`.options`). A question to
one seat is answered with the value alone."""
F = TypeVar("F", bound=Callable[..., Any])

STEPS: dict[str, Callable[[S, Any], bool | None]] = {}
"""Step name -> what the step does: for an ``ask_*`` kind, the function putting its question
(True when the question is now open); for the others, the step itself (returning None)."""
ANSWER: dict[str, Callable[[S, Any, Any], None]] = {}
"""Step name -> the function acting on the answer to its question (the value chosen; for sealed
bids, :data:`Answers`)."""


def asks(name: str, answer: Callable[..., None]) -> Callable[[F], F]:
    """Register the decorated function as the question of step kind ``name``, and ``answer``
    as what acts on the answers to it."""
    def register(fn: F) -> F:
        STEPS[name] = fn
        ANSWER[name] = answer
        return fn
    return register


# -- turn and route -------------------------------------------------------------------------------

def turn(st: S, _: object = None) -> None:
    """The active seat's turn: route, roll, resolve the square; the end of the turn waits.
    (As a step, it takes the step as well: so do ``end_turn`` and ``square``.)"""
    st.turns += 1
    st.events.append({"type": "turn", "seat": st.active, "turn": st.turns})
    st.stack.append(END_TURN)
    route(st, ())


def end_turn(st: S, _: object = None) -> None:
    """A game that passes 300 turns ends there; otherwise play goes clockwise."""
    if st.turns >= TURN_LIMIT:
        st.ended = EndReason.TURN_LIMIT
        st.events.append({"type": "turn_limit", "turns": st.turns})
        return
    st.active = (st.active + 1) % st.num_players
    turn(st)


def follow(st: S, agreed: Agreed) -> RouteNode:
    """The active big pawn's route tree past the passages agreed so far (``route`` agrees
    them fork by fork, in the order the pawn meets the forks)."""
    root = node = st.board.routes[st.big[st.active]]
    for g, short, _, _ in agreed:
        if node.gate != g:  # not in the order met (a flow built by hand): match by gate
            return follow_by_gate(root, agreed)
        node = node.short if short else node.corner
    return node


def follow_by_gate(node: RouteNode, agreed: Agreed) -> RouteNode:
    shortcut = {gate: short for gate, short, _, _ in agreed}
    while node.gate in shortcut:
        node = node.short if shortcut[node.gate] else node.corner
    return node


def route(st: S, agreed: Agreed) -> None:
    """Route, fork by fork (each fork the big pawn may pass this move: its TAKE_PASS square
    is 0..max_roll-1 squares ahead along the route agreed so far): own gate, the shortcut
    (forced); a gate nobody controls, the corner (forced); another seat's gate: A asks or goes
    around. Then roll."""
    a, gates = st.active, st.gates
    node = follow(st, agreed) if agreed else st.board.routes[st.big[a]]
    while (g := node.gate) >= 0:
        controller = gates[g]
        if controller == a:
            agreed += ((g, 1, 0, NO_ONE),)
            node = node.short
        elif controller == NO_ONE:
            agreed += ((g, 0, 0, NO_ONE),)
            node = node.corner
        else:
            st.stack.append(AskGateRequest("ask_gate_request", agreed, g))
            return
    roll(st, agreed, node)


def answer_gate_request(st: S, step: AskGateRequest, asked: bool) -> None:
    agreed, g = step.agreed, step.gate
    st.events.append({"type": "gate_request", "seat": st.active, "gate": st.board.colours[g],
                      "ask": asked})
    if asked:
        st.stack.append(AskGateOffer("ask_gate_offer", agreed, g))
    else:
        route(st, agreed + ((g, 0, 0, NO_ONE),))


@asks("ask_gate_request", answer_gate_request)
def ask_gate_request(st: S, step: AskGateRequest) -> bool:
    g = step.gate
    return st.ask(step, st.active, "gate_request",
                  f"the {st.board.colours[g]} gate is ahead: ask its controller or go around?",
                  opt.gate_request_options(st.board, g, st.gates[g]))


def max_fee(st: S, agreed: Agreed) -> int:
    """A fee is at most A's money, less fees A already agreed for this move (so A can pay all)."""
    return st.money[st.active] - sum(fee for _, _, fee, _ in agreed)


def answer_gate_offer(st: S, step: AskGateOffer, fee: int | None) -> None:
    """C refuses (None), lets A through free (0) or names a fee A then accepts or not."""
    agreed, g = step.agreed, step.gate
    controller = st.gates[g]
    st.events.append({"type": "gate_offer", "seat": controller, "gate": st.board.colours[g],
                      "offer": "refuse" if fee is None else fee})
    if fee is None:
        route(st, agreed + ((g, 0, 0, NO_ONE),))
    elif fee == 0:
        route(st, agreed + ((g, 1, 0, controller),))
    else:
        st.stack.append(AskGateAccept("ask_gate_accept", agreed, g, fee))


@asks("ask_gate_offer", answer_gate_offer)
def ask_gate_offer(st: S, step: AskGateOffer) -> bool:
    g = step.gate
    return st.ask(step, st.gates[g], "gate_offer",
                  f"seat {st.active} asks to pass your {st.board.colours[g]} gate",
                  opt.gate_offer_options(st.board, g, st.active, max_fee(st, step.agreed)))


def answer_gate_accept(st: S, step: AskGateAccept, pays: bool) -> None:
    g, fee = step.gate, step.fee
    st.events.append({"type": "gate_accept", "seat": st.active, "gate": st.board.colours[g],
                      "fee": fee, "pay": pays})
    passage = (g, 1, fee, st.gates[g]) if pays else (g, 0, 0, NO_ONE)
    route(st, step.agreed + (passage,))


@asks("ask_gate_accept", answer_gate_accept)
def ask_gate_accept(st: S, step: AskGateAccept) -> bool:
    g, fee = step.gate, step.fee
    return st.ask(step, st.active, "gate_accept",
                  f"the {st.board.colours[g]} gate costs ${fee}: pay or go around?",
                  opt.gate_accept_options(st.board, g, fee))


# -- roll and square ------------------------------------------------------------------------------

def roll(st: S, agreed: Agreed, move: RouteNode) -> None:
    """Roll two dice; the big pawn moves the sum clockwise along the agreed route (``move``,
    the leaf of its route tree). The fee is paid only if the pawn actually enters the
    shortcut. Then the square."""
    a = st.active
    dice = st.roll_dice()
    n = sum(dice)
    p = st.big[a] = move.to[n]
    entered = move.entered[n]
    st.events.append({"type": "roll", "seat": a, "dice": dice, "to": p,
                      "square": st.board.names[p], "shortcuts": list(move.shortcuts[n])})
    if entered:
        for g, _, fee, payee in agreed:
            if fee and g in entered:
                st.pay(a, payee, fee)
                st.events.append({"type": "fee", "seat": a, "to": payee,
                                  "gate": st.board.colours[g], "amount": fee})
    square(st)


def square(st: S, _: object = None) -> None:
    """Only the square the big pawn stops on counts."""
    a, b = st.active, st.board
    kind, lo, hi = b.squares[st.big[a]]
    if kind == NUMBER:
        if lo == hi:
            move(st, a, lo)
        else:
            st.stack.append(AskNumber("ask_number", lo, hi))
        return
    push = st.stack.append
    if kind == "PLAY_A_CARD":
        push(ASK_PLAY_CARD)
    elif kind == "SELL_A_CARD":
        push(ASK_SELL_CARD)
    elif kind == "SELL_A_PASS":
        sell_a_pass(st)
    elif kind == "SELL_THE_LEAD":
        push(AskBids("ask_bids", "lead", NO_ONE))
    elif kind == TAKE_PASS:
        g = b.take_pass_of[st.big[a]]
        if st.gates[g] != a:  # holding it already: nothing to decide
            push(AskTakePass("ask_take_pass", g))
    else:  # TAKE_25
        push(ASK_TAKE25)


def sell_a_pass(st: S) -> None:
    """SELL A PASS: if A controls no gate, nothing; otherwise A picks one (when several)."""
    a = st.active
    owned = [g for g, c in enumerate(st.gates) if c == a]
    if not owned:
        st.events.append({"type": "no_pass_to_sell", "seat": a})
    elif len(owned) == 1:
        st.stack.append(AskBids("ask_bids", "pass", owned[0]))
    else:
        st.stack.append(ASK_SELL_PASS)


def answer_take_pass(st: S, step: AskTakePass, take: bool) -> None:
    """A *may* take control of the gate (seed 003: 可); declining leaves it with its holder."""
    a, g = st.active, step.gate
    holder = st.gates[g]
    if take:
        st.events.append({"type": "gate_taken", "seat": a, "gate": st.board.colours[g],
                          "was": holder})
        st.gates[g] = a
    else:
        st.events.append({"type": "pass_left", "seat": a, "gate": st.board.colours[g],
                          "holder": None if holder == NO_ONE else holder})


@asks("ask_take_pass", answer_take_pass)
def ask_take_pass(st: S, step: AskTakePass) -> bool:
    g = step.gate
    holder = st.gates[g]
    held = "nobody holds it" if holder == NO_ONE else f"seat {holder} holds it"
    return st.ask(step, st.active, "take_pass",
                  f"take the {st.board.colours[g]} gate pass? ({held})",
                  opt.take_pass_options(st.board, g, holder))


def answer_number(st: S, _: AskNumber, number: int) -> None:
    move(st, st.active, number)


@asks("ask_number", answer_number)
def ask_number(st: S, step: AskNumber) -> bool:
    """NUMBER n: A's small pawn moves forward n. On a range (1-5), A picks n."""
    return st.ask(step, st.active, "number_choice", "how far should the small pawn move?",
                  opt.number_options(st.board, step.lo, step.hi))


def answer_take25(st: S, _: AskTake25, victim: int) -> None:
    """The chosen opponent pays $25 (everything, if less)."""
    a = st.active
    amount = min(TAKE_AMOUNT, st.money[victim])
    st.pay(victim, a, amount)
    st.events.append({"type": "take", "seat": a, "victim": victim, "amount": amount})


@asks("ask_take25", answer_take25)
def ask_take25(st: S, step: AskTake25) -> bool:
    return st.ask(step, st.active, "take25_target", f"take ${TAKE_AMOUNT} from which opponent?",
                  opt.seat_options(st.board, st.opponents(st.active)))


# -- small-pawn moves -----------------------------------------------------------------------------

def move(st: S, seat: int, steps: int) -> None:
    """Forward n. Starting on a purple circle, the owner may take its shortcut as the first step."""
    pos = st.small[seat]
    if st.board.purple_to[pos]:
        st.stack.append(AskInnerRoute("ask_inner_route", seat, steps))
    else:
        st.place(seat, pos + steps)


def answer_inner_route(st: S, step: AskInnerRoute, shortcut: bool) -> None:
    seat = step.seat
    pos = st.small[seat]
    first = st.board.purple_to[pos] if shortcut else pos + 1
    st.place(seat, first + step.steps - 1)


@asks("ask_inner_route", answer_inner_route)
def ask_inner_route(st: S, step: AskInnerRoute) -> bool:
    seat = step.seat
    pos = st.small[seat]
    return st.ask(step, seat, "inner_route",
                  f"move {step.steps} from purple circle {pos}: shortcut?",
                  opt.inner_route_options(st.board, pos, st.board.purple_to[pos], step.steps))


# -- cards ----------------------------------------------------------------------------------------

def hand_options(st: S, seat: int) -> opt.Menu:
    return opt.card_options(st.board, tuple(sorted(set(st.hands[seat]))))


def answer_play_card(st: S, _: AskPlayCard, card: str) -> None:
    """PLAY A CARD: resolve it, then it goes under the draw pile and A draws one."""
    a = st.active
    st.hands[a].remove(card)
    st.reveal(a, card)
    st.stack.append(FinishCard("finish_card", card, a))
    play(st, a, card)


@asks("ask_play_card", answer_play_card)
def ask_play_card(st: S, step: AskPlayCard) -> bool:
    return st.ask(step, st.active, "play_card", "which card do you play?",
                  hand_options(st, st.active))


def finish_card(st: S, step: FinishCard) -> None:
    """The card goes under the draw pile, face up (public knowledge); then a card is drawn."""
    st.pile.insert(0, step.card)
    st.pile_known += 1
    st.draw(step.drawer)


def play(st: S, seat: int, card: str) -> None:
    """Cards always act on the seat that plays them."""
    st.played.append((seat, card))
    st.events.append({"type": "card", "seat": seat, "card": card})
    if card.startswith("number-"):
        move(st, seat, int(card[7:]))
    elif card == "trade_places":
        st.stack.append(AskTradeTarget("ask_trade_target", seat))
    elif card == "take_the_lead":
        st.to_lead(seat)
    elif card == "back_10":
        st.place(seat, max(0, st.small[seat] - BACK_STEPS))
    elif card == "go_farthest_back":
        go_farthest_back(st, seat)
    elif card == "steal_a_gate_pass":
        if not st.opponent_gates(seat):
            st.events.append({"type": "no_effect", "seat": seat, "card": card})
        else:
            st.stack.append(AskStealTarget("ask_steal_target", seat))
    # worthless: nothing


def go_farthest_back(st: S, seat: int) -> None:
    """Oh No! Go Farthest Back: to the circle just behind the last pawn (not below START);
    already last: stays."""
    last = min(st.small[o] for o in st.opponents(seat))
    if st.small[seat] <= last:
        st.events.append({"type": "small", "seat": seat, "to": st.small[seat], "stays": True})
    else:
        st.place(seat, max(0, last - 1))


def answer_trade_target(st: S, step: AskTradeTarget, other: int | None) -> None:
    """Swap small pawns with the chosen opponent (no bump), or decline: the seed says *may*
    (「可將自家小棋子與其他任一玩家的小棋子交換位置」), and a swap with a pawn behind moves back."""
    seat = step.seat
    if other is opt.DECLINE:
        st.events.append({"type": "card_declined", "seat": seat, "card": "trade_places"})
        return
    small = st.small
    small[seat], small[other] = small[other], small[seat]
    st.events.append({"type": "trade", "seat": seat, "other": other})


@asks("ask_trade_target", answer_trade_target)
def ask_trade_target(st: S, step: AskTradeTarget) -> bool:
    seat = step.seat
    return st.ask(step, seat, "card_target", "trade places with which opponent?",
                  opt.trade_options(st.board, st.opponents(seat), st.may_decline))


def answer_steal_target(st: S, step: AskStealTarget, g: int | None) -> None:
    """Steal A Gate Pass: take control of the chosen opponent's gate, or decline: the seed says
    *may* (「可取得其他任一玩家的匣門通道」), and a gate held forces its shortcut."""
    seat = step.seat
    if g is opt.DECLINE:
        st.events.append({"type": "card_declined", "seat": seat, "card": "steal_a_gate_pass"})
        return
    st.events.append({"type": "gate_stolen", "seat": seat, "gate": st.board.colours[g],
                      "was": st.gates[g]})
    st.gates[g] = seat


@asks("ask_steal_target", answer_steal_target)
def ask_steal_target(st: S, step: AskStealTarget) -> bool:
    seat = step.seat
    return st.ask(step, seat, "card_target", "steal which opponent's gate pass?",
                  opt.steal_options(st.board, st.opponent_gates(seat), st.may_decline))


# -- SELL A CARD, SELL A PASS, SELL THE LEAD ------------------------------------------------------

def answer_sell_card(st: S, _: AskSellCard, card: str) -> None:
    """SELL A CARD: A puts one hand card face down (unseen by the others); every other seat bids."""
    a = st.active
    st.hands[a].remove(card)
    st.on_sale, st.seller = card, a
    st.events.append({"type": "card_on_sale", "seat": a})
    st.stack.append(AskBids("ask_bids", "card", NO_ONE))


@asks("ask_sell_card", answer_sell_card)
def ask_sell_card(st: S, step: AskSellCard) -> bool:
    return st.ask(step, st.active, "sell_card_choice", "which card goes face down for sale?",
                  hand_options(st, st.active))


def answer_sell_pass(st: S, _: AskSellPass, gate: int) -> None:
    st.stack.append(AskBids("ask_bids", "pass", gate))


@asks("ask_sell_pass", answer_sell_pass)
def ask_sell_pass(st: S, step: AskSellPass) -> bool:
    a = st.active
    owned = tuple((g, a) for g, c in enumerate(st.gates) if c == a)
    return st.ask(step, a, "sell_pass_choice", "which gate pass do you auction?",
                  opt.gate_options(st.board, owned))


PROMPTS = {"card": "sealed bid for the card on sale", "pass": "sealed bid for the {} gate pass",
           "lead": "sealed bid for the lead"}


def bidders(st: S, auction: str) -> range | tuple[int, ...]:
    """SELL THE LEAD: every seat bids; a card or a pass: every seat but A."""
    return range(st.num_players) if auction == "lead" else st.opponents(st.active)


def answer_bids(st: S, step: AskBids, answers: Answers) -> None:
    """Reveal; the single highest bidder wins, a tie for the top goes to A; every bid is paid."""
    auction, a = step.auction, st.active
    bids = {b: answers[b] if b in answers else forced_bid(st, auction, b)
            for b in bidders(st, auction)}
    top = max(bids.values())
    tops = [b for b, x in bids.items() if x == top]
    winner = tops[0] if len(tops) == 1 else a
    shown = [bids.get(seat) for seat in range(st.num_players)]
    st.events.append({"type": "bids", "auction": auction, "bids": shown, "winner": winner})
    if auction == "lead":
        lead_won(st, winner, bids, tied=len(tops) > 1)
        return
    for b, x in bids.items():
        st.pay(b, a, x)
    if auction == "pass":
        st.events.append({"type": "pass_sold", "gate": st.board.colours[step.gate],
                          "winner": winner, "was": a})
        st.gates[step.gate] = winner
    else:
        card_sold(st, winner)


@asks("ask_bids", answer_bids)
def ask_bids(st: S, step: AskBids) -> bool:
    """Sealed, simultaneous: every bidder with a choice is asked at once. A seat whose bid is
    forced (less than $5: the empty fist; exactly the minimum: that) is not asked."""
    g = step.gate
    prompt = PROMPTS[step.auction].format(st.board.colours[g] if g >= 0 else "")
    asked = []
    for b in bidders(st, step.auction):
        menu = opt.bid_options(st.board, step.auction, st.money[b])
        if len(menu.values) > 1:
            asked.append((b, "bid", prompt, menu))
    if not asked:
        answer_bids(st, step, {})
        return False
    st.ask_sealed(asked)
    return True


def forced_bid(st: S, auction: str, seat: int) -> int:
    """The bid of a seat that was not asked: its only option."""
    amount: int = opt.bid_options(st.board, auction, st.money[seat]).values[0]
    return amount


def card_sold(st: S, winner: int) -> None:
    """The highest bidder takes the card and must play it at once (on a tie, A plays it); then
    it goes under the pile and A draws one."""
    card, a = st.on_sale, st.active
    assert card is not None
    st.on_sale, st.seller = None, NO_ONE
    st.reveal(a, card)
    st.stack.append(FinishCard("finish_card", card, a))
    play(st, winner, card)


def lead_won(st: S, winner: int, bids: dict[int, int], tied: bool) -> None:
    """The winner goes just ahead of the leader. A clear win: the bids go to whoever is last
    after the move (a roll-off among seats tied for last). A tie for the top: A takes the lead
    and all the money (seed 003: 「若出現最高出價相同情況，則由行動玩家同時取得排頭資格及所有金錢標記」).
    HOME reached by the move ends the game at once, before any payment."""
    st.to_lead(winner)
    if st.ended is not None:
        return
    payee = winner if tied else last_after_roll_off(st)
    total = sum(bids.values())
    for b, x in bids.items():
        st.pay(b, payee, x)
    st.events.append({"type": "lead_paid", "to": payee, "amount": total})


def last_after_roll_off(st: S) -> int:
    """The seat that is last; seats tied for last roll two dice, lowest takes, ties roll again."""
    low = min(st.small)
    contenders = [s for s in range(st.num_players) if st.small[s] == low]
    while len(contenders) > 1:
        rolls = [sum(st.roll_dice()) for _ in contenders]
        st.events.append({"type": "roll_off", "seats": list(contenders), "rolls": rolls})
        least = min(rolls)
        contenders = [c for c, r in zip(contenders, rolls) if r == least]
    return contenders[0]


def run_route(st: S, step: Route) -> None:
    route(st, step.agreed)


STEPS.update({"turn": turn, "end_turn": end_turn, "route": run_route, "square": square,
              "finish_card": finish_card})
