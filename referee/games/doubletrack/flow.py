"""The steps of a Doubletrack turn, each a small function registered by name.

A turn: ``turn`` -> ``route`` (gate questions) -> ``roll`` -> ``square`` -> ``end_turn``. Squares,
cards and auctions push further steps. ``ask_*`` steps build a question (or answer it themselves
when forced); the matching handler acts on the answer. Every step quotes the rule it implements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.core import Decision, EndReason
from referee.games.doubletrack import options as opt
from referee.games.doubletrack.board import BACK_STEPS, NUMBER, TAKE_AMOUNT, TAKE_PASS
from referee.games.doubletrack.state import (
    _ASKS, _HANDLERS, _STEPS, NO_ONE, TURN_LIMIT, DoubletrackState, Route, Step,
)

S = DoubletrackState
Values = dict[int, Any]


def step(name: str) -> Callable[[Callable[[S, Step], None]], Callable[[S, Step], None]]:
    def register(fn: Callable[[S, Step], None]) -> Callable[[S, Step], None]:
        _STEPS[name] = fn
        return fn
    return register


def asks(name: str, handler: Callable[[S, Step, Values], None]
         ) -> Callable[[Callable[[S, Step], bool]], Callable[[S, Step], bool]]:
    def register(fn: Callable[[S, Step], bool]) -> Callable[[S, Step], bool]:
        _ASKS[name] = fn
        _HANDLERS[name] = handler
        return fn
    return register


# -- turn and route -------------------------------------------------------------------------------

@step("turn")
def turn(st: S, _: Step) -> None:
    st.turns += 1
    st._log(type="turn", seat=st.active, turn=st.turns)
    st.stack.append(("end_turn",))
    st.stack.append(("route", ()))


@step("end_turn")
def end_turn(st: S, _: Step) -> None:
    """A game that passes 300 turns ends there; otherwise play goes clockwise."""
    if st.turns >= TURN_LIMIT:
        st.ended = EndReason.TURN_LIMIT
        st._log(type="turn_limit", turns=st.turns)
        return
    st.active = (st.active + 1) % st.num_players
    st.stack.append(("turn",))


def next_fork(st: S, route: Route) -> int:
    """The first gate whose fork the big pawn may pass this move and has no route yet, or -1.

    A fork may be passed when its TAKE_PASS square is 0..max_roll-1 squares ahead along the route
    already agreed (on the default board a pawn taking one shortcut can reach a second fork).
    """
    b = st.board
    p = st.big[st.active]
    if not route:
        return b.fork_ahead[p]
    agreed = {g: short for g, short, _, _ in route}
    for _ in range(b.max_roll):
        g = b.fork_of[p]
        if g >= 0:
            if g not in agreed:
                return g
            p = b.next_short[p] if agreed[g] else b.next_corner[p]
        else:
            p = b.next_corner[p]
    return -1


@step("route")
def route(st: S, s: Step) -> None:
    """Own gate: shortcut (forced). Nobody's gate: corner (forced). Another seat's: A asks."""
    agreed: Route = s[1]
    g = next_fork(st, agreed)
    if g < 0:
        st.stack.append(("roll", agreed))
        return
    controller = st.gates[g]
    if controller == st.active:
        st.stack.append(("route", agreed + ((g, 1, 0, NO_ONE),)))
    elif controller == NO_ONE:
        st.stack.append(("route", agreed + ((g, 0, 0, NO_ONE),)))
    else:
        st.stack.append(("ask_gate_request", agreed, g))


def _on_gate_request(st: S, s: Step, v: Values) -> None:
    agreed, g = s[1], s[2]
    asked = v[st.active]
    st._log(type="gate_request", seat=st.active, gate=st.board.colours[g], ask=asked)
    if asked:
        st.stack.append(("ask_gate_offer", agreed, g))
    else:
        st.stack.append(("route", agreed + ((g, 0, 0, NO_ONE),)))


@asks("ask_gate_request", _on_gate_request)
def ask_gate_request(st: S, s: Step) -> bool:
    g = s[2]
    return st._ask(s, st.active, "gate_request",
                   f"the {st.board.colours[g]} gate is ahead: ask its controller or go around?",
                   opt.gate_request_options(st.board, g, st.gates[g]))


def _max_fee(st: S, agreed: Route) -> int:
    """A fee is at most A's money, less fees A already agreed for this move (so A can pay all)."""
    return st.money[st.active] - sum(fee for _, _, fee, _ in agreed)


def _on_gate_offer(st: S, s: Step, v: Values) -> None:
    agreed, g = s[1], s[2]
    controller = st.gates[g]
    fee = v[controller]
    st._log(type="gate_offer", seat=controller, gate=st.board.colours[g],
            offer="refuse" if fee is None else fee)
    if fee is None:
        st.stack.append(("route", agreed + ((g, 0, 0, NO_ONE),)))
    elif fee == 0:
        st.stack.append(("route", agreed + ((g, 1, 0, controller),)))
    else:
        st.stack.append(("ask_gate_accept", agreed, g, fee))


@asks("ask_gate_offer", _on_gate_offer)
def ask_gate_offer(st: S, s: Step) -> bool:
    agreed, g = s[1], s[2]
    return st._ask(s, st.gates[g], "gate_offer",
                   f"seat {st.active} asks to pass your {st.board.colours[g]} gate",
                   opt.gate_offer_options(st.board, g, st.active, _max_fee(st, agreed)))


def _on_gate_accept(st: S, s: Step, v: Values) -> None:
    agreed, g, fee = s[1], s[2], s[3]
    pays = v[st.active]
    st._log(type="gate_accept", seat=st.active, gate=st.board.colours[g], fee=fee, pay=pays)
    entry = (g, 1, fee, st.gates[g]) if pays else (g, 0, 0, NO_ONE)
    st.stack.append(("route", agreed + (entry,)))


@asks("ask_gate_accept", _on_gate_accept)
def ask_gate_accept(st: S, s: Step) -> bool:
    g, fee = s[2], s[3]
    return st._ask(s, st.active, "gate_accept",
                   f"the {st.board.colours[g]} gate costs ${fee}: pay or go around?",
                   opt.gate_accept_options(st.board, g, fee))


# -- roll and square ------------------------------------------------------------------------------

@step("roll")
def roll(st: S, s: Step) -> None:
    """Two dice; the big pawn moves the sum along the agreed route; fees only for shortcuts entered."""
    b, a = st.board, st.active
    agreed: Route = s[1]
    dice = st._roll()
    p = st.big[a]
    entered: list[int] = []
    if not agreed:  # no fork in reach: the corner route, from a table
        p = b.corner_after[p][sum(dice)]
    else:
        terms = {g: short for g, short, _, _ in agreed}
        for _ in range(sum(dice)):
            g = b.fork_of[p]
            if g >= 0 and terms.get(g):
                entered.append(g)
                p = b.next_short[p]
            else:
                p = b.next_corner[p]
    st.big[a] = p
    st._log(type="roll", seat=a, dice=dice, to=p, square=b.names[p],
            shortcuts=[b.colours[g] for g in entered])
    for g, _, fee, payee in agreed:
        if fee and g in entered:
            st._pay(a, payee, fee)
            st._log(type="fee", seat=a, to=payee, gate=b.colours[g], amount=fee)
    st.stack.append(("square",))


@step("square")
def square(st: S, _: Step) -> None:
    """Only the square the big pawn stops on counts."""
    a, b = st.active, st.board
    kind, lo, hi = b.squares[st.big[a]]
    push = st.stack.append
    if kind == NUMBER:
        push(("move", a, lo) if lo == hi else ("ask_number", lo, hi))
    elif kind == "PLAY_A_CARD":
        push(("ask_play_card",))
    elif kind == "SELL_A_CARD":
        push(("ask_sell_card",))
    elif kind == "SELL_A_PASS":
        owned = [g for g, c in enumerate(st.gates) if c == a]
        if not owned:
            st._log(type="no_pass_to_sell", seat=a)
        elif len(owned) == 1:
            push(("ask_bids", "pass", owned[0]))
        else:
            push(("ask_sell_pass",))
    elif kind == "SELL_THE_LEAD":
        push(("ask_bids", "lead", NO_ONE))
    elif kind == TAKE_PASS:
        g = b.take_pass_of[st.big[a]]
        if st.gates[g] != a:  # holding it already: nothing to decide
            push(("ask_take_pass", g))
    else:  # TAKE_25
        push(("ask_take25",))


def _on_take_pass(st: S, s: Step, v: Values) -> None:
    """A *may* take control of the gate (seed 003: 可); declining leaves it with its holder."""
    a, g = st.active, s[1]
    holder = st.gates[g]
    if v[a]:
        st._log(type="gate_taken", seat=a, gate=st.board.colours[g], was=holder)
        st.gates[g] = a
    else:
        st._log(type="pass_left", seat=a, gate=st.board.colours[g],
                holder=None if holder == NO_ONE else holder)


@asks("ask_take_pass", _on_take_pass)
def ask_take_pass(st: S, s: Step) -> bool:
    g = s[1]
    holder = st.gates[g]
    held = "nobody holds it" if holder == NO_ONE else f"seat {holder} holds it"
    return st._ask(s, st.active, "take_pass",
                   f"take the {st.board.colours[g]} gate pass? ({held})",
                   opt.take_pass_options(st.board, g, holder))


def _on_number(st: S, s: Step, v: Values) -> None:
    st.stack.append(("move", st.active, v[st.active]))


@asks("ask_number", _on_number)
def ask_number(st: S, s: Step) -> bool:
    return st._ask(s, st.active, "number_choice", "how far should the small pawn move?",
                   opt.number_options(st.board, s[1], s[2]))


def _on_take25(st: S, s: Step, v: Values) -> None:
    a = st.active
    victim = v[a]
    amount = min(TAKE_AMOUNT, st.money[victim])
    st._pay(victim, a, amount)
    st._log(type="take", seat=a, victim=victim, amount=amount)


@asks("ask_take25", _on_take25)
def ask_take25(st: S, s: Step) -> bool:
    return st._ask(s, st.active, "take25_target", f"take ${TAKE_AMOUNT} from which opponent?",
                   opt.seat_options(st.board, st._opponents(st.active)))


# -- small-pawn moves -----------------------------------------------------------------------------

@step("move")
def move(st: S, s: Step) -> None:
    """Forward n. Starting on a purple circle, the owner may take its shortcut as the first step."""
    seat, n = s[1], s[2]
    pos = st.small[seat]
    if pos < st.board.home and st.board.purple_to[pos]:
        st.stack.append(("ask_inner_route", seat, n))
    else:
        st._place(seat, pos + n)


def _on_inner_route(st: S, s: Step, v: Values) -> None:
    seat, n = s[1], s[2]
    pos = st.small[seat]
    first = st.board.purple_to[pos] if v[seat] else pos + 1
    st._place(seat, first + n - 1)


@asks("ask_inner_route", _on_inner_route)
def ask_inner_route(st: S, s: Step) -> bool:
    seat = s[1]
    pos = st.small[seat]
    return st._ask(s, seat, "inner_route", f"move {s[2]} from purple circle {pos}: shortcut?",
                   opt.inner_route_options(st.board, pos, st.board.purple_to[pos], s[2]))


# -- cards ----------------------------------------------------------------------------------------

def _hand_options(st: S, seat: int) -> opt.Built:
    return opt.card_options(st.board, tuple(sorted(set(st.hands[seat]))))


def _on_play_card(st: S, s: Step, v: Values) -> None:
    """PLAY A CARD: resolve it, then it goes under the draw pile and A draws one."""
    a = st.active
    card = v[a]
    st.hands[a].remove(card)
    st._reveal(a, card)
    st.stack.append(("finish_card", card, a))
    st.stack.append(("play", a, card))


@asks("ask_play_card", _on_play_card)
def ask_play_card(st: S, s: Step) -> bool:
    return st._ask(s, st.active, "play_card", "which card do you play?",
                   _hand_options(st, st.active))


@step("finish_card")
def finish_card(st: S, s: Step) -> None:
    card, drawer = s[1], s[2]
    st.pile.insert(0, card)
    st.pile_known += 1
    st._draw(drawer)


@step("play")
def play(st: S, s: Step) -> None:
    """Cards always act on the seat that plays them."""
    seat, card = s[1], s[2]
    st.played.append((seat, card))
    st._log(type="card", seat=seat, card=card)
    small = st.small
    if card.startswith("number-"):
        st.stack.append(("move", seat, int(card[7:])))
    elif card == "trade_places":
        st.stack.append(("ask_trade_target", seat))
    elif card == "take_the_lead":
        st._to_lead(seat)
    elif card == "back_10":
        st._place(seat, max(0, small[seat] - BACK_STEPS))
    elif card == "go_farthest_back":
        last = min(small[o] for o in st._opponents(seat))
        if small[seat] <= last:
            st._log(type="small", seat=seat, to=small[seat], stays=True)
        else:
            st._place(seat, max(0, last - 1))
    elif card == "steal_a_gate_pass":
        gates = st._opponent_gates(seat)
        if not gates:
            st._log(type="no_effect", seat=seat, card=card)
        else:
            st.stack.append(("ask_steal_target", seat))
    # worthless: nothing


def _on_trade_target(st: S, s: Step, v: Values) -> None:
    """Swap small pawns with the chosen opponent (no bump)."""
    seat = s[1]
    other = v[seat]
    small = st.small
    small[seat], small[other] = small[other], small[seat]
    st._log(type="trade", seat=seat, other=other)


@asks("ask_trade_target", _on_trade_target)
def ask_trade_target(st: S, s: Step) -> bool:
    seat = s[1]
    return st._ask(s, seat, "card_target", "trade places with which opponent?",
                   opt.seat_options(st.board, st._opponents(seat)))


def _on_steal_target(st: S, s: Step, v: Values) -> None:
    seat = s[1]
    g = v[seat]
    st._log(type="gate_stolen", seat=seat, gate=st.board.colours[g], was=st.gates[g])
    st.gates[g] = seat


@asks("ask_steal_target", _on_steal_target)
def ask_steal_target(st: S, s: Step) -> bool:
    seat = s[1]
    return st._ask(s, seat, "card_target", "steal which opponent's gate pass?",
                   opt.gate_options(st.board, st._opponent_gates(seat)))


# -- SELL A CARD, SELL A PASS, SELL THE LEAD --------------------------------------------------------

def _on_sell_card(st: S, s: Step, v: Values) -> None:
    a = st.active
    st.hands[a].remove(v[a])
    st.on_sale, st.seller = v[a], a
    st._log(type="card_on_sale", seat=a)
    st.stack.append(("ask_bids", "card", NO_ONE))


@asks("ask_sell_card", _on_sell_card)
def ask_sell_card(st: S, s: Step) -> bool:
    return st._ask(s, st.active, "sell_card_choice", "which card goes face down for sale?",
                   _hand_options(st, st.active))


def _on_sell_pass(st: S, s: Step, v: Values) -> None:
    st.stack.append(("ask_bids", "pass", v[st.active]))


@asks("ask_sell_pass", _on_sell_pass)
def ask_sell_pass(st: S, s: Step) -> bool:
    a = st.active
    owned = tuple((g, a) for g, c in enumerate(st.gates) if c == a)
    return st._ask(s, a, "sell_pass_choice", "which gate pass do you auction?",
                   opt.gate_options(st.board, owned))


_PROMPTS = {"card": "sealed bid for the card on sale", "pass": "sealed bid for the {} gate pass",
            "lead": "sealed bid for the lead"}


def _bidders(st: S, auction: str) -> range | tuple[int, ...]:
    """SELL THE LEAD: every seat bids; a card or a pass: every seat but A."""
    return range(st.num_players) if auction == "lead" else st._opponents(st.active)


@asks("ask_bids", lambda st, s, v: _on_bids(st, s, v))
def ask_bids(st: S, s: Step) -> bool:
    """Sealed, simultaneous: every bidder with a choice is asked at once. A seat whose bid is
    forced (less than $5: the empty fist; exactly the minimum: that) is not asked."""
    auction, g = s[1], s[2]
    prompt = _PROMPTS[auction].format(st.board.colours[g] if g >= 0 else "")
    pend, vals = [], []
    for b in _bidders(st, auction):
        options, values = opt.bid_options(st.board, auction, st.money[b])
        if len(options) > 1:
            pend.append(Decision(b, "bid", prompt, options))
            vals.append(values)
    if not pend:
        _on_bids(st, s, {})
        return False
    st._pending, st._values = pend, vals
    return True


def _on_bids(st: S, s: Step, v: Values) -> None:
    """Reveal; the single highest bidder wins, a tie for the top goes to A; every bid is paid."""
    auction, g = s[1], s[2]
    a = st.active
    bids = {b: v[b] if b in v else _forced_bid(st, auction, b) for b in _bidders(st, auction)}
    top = max(bids.values())
    tops = [b for b, x in bids.items() if x == top]
    winner = tops[0] if len(tops) == 1 else a
    shown = [bids.get(seat) for seat in range(st.num_players)]
    st._log(type="bids", auction=auction, bids=shown, winner=winner)
    if auction == "lead":
        _lead_won(st, winner, bids, tied=len(tops) > 1)
        return
    for b, x in bids.items():
        st._pay(b, a, x)
    if auction == "pass":
        st._log(type="pass_sold", gate=st.board.colours[g], winner=winner, was=a)
        st.gates[g] = winner
    else:
        card = st.on_sale
        assert card is not None
        st.on_sale, st.seller = None, NO_ONE
        st._reveal(a, card)
        st.stack.append(("finish_card", card, a))
        st.stack.append(("play", winner, card))


def _forced_bid(st: S, auction: str, seat: int) -> int:
    """The bid of a seat that was not asked: its only option."""
    options, values = opt.bid_options(st.board, auction, st.money[seat])
    amount: int = values[options[0].id]
    return amount


def _lead_won(st: S, winner: int, bids: dict[int, int], tied: bool) -> None:
    """The winner goes just ahead of the leader. A clear win: the bids go to whoever is last
    after the move (a roll-off among seats tied for last). A tie for the top: A takes the lead
    and all the money (seed 003: 「若出現最高出價相同情況，則由行動玩家同時取得排頭資格及所有金錢標記」).
    HOME reached by the move ends the game at once, before any payment."""
    st._to_lead(winner)
    if st.ended is not None:
        return
    payee = winner if tied else _last_after_roll_off(st)
    total = sum(bids.values())
    for b, x in bids.items():
        st._pay(b, payee, x)
    st._log(type="lead_paid", to=payee, amount=total)


def _last_after_roll_off(st: S) -> int:
    """The seat that is last; seats tied for last roll two dice, lowest takes, ties roll again."""
    low = min(st.small)
    contenders = [s for s in range(st.num_players) if st.small[s] == low]
    while len(contenders) > 1:
        rolls = [sum(st._roll()) for _ in contenders]
        st._log(type="roll_off", seats=list(contenders), rolls=rolls)
        least = min(rolls)
        contenders = [c for c, r in zip(contenders, rolls) if r == least]
    return contenders[0]
