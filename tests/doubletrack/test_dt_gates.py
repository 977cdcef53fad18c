"""Scenario tests for the route step before the roll (rules page: 'A turn', step 1) and the roll."""

from __future__ import annotations

import copy

from referee.games.doubletrack.state import DoubletrackState
from referee.games.doubletrack.steps import ROUTE_START

from dt_support import (
    BOARD, GAME, NO_ONE, RED, YELLOW, ScriptedDice, answer, ids, make_state, only, shortcut_square,
)

BEFORE_YELLOW = 10  # four squares before the yellow TAKE_PASS square (14)


def at_yellow_gate(dice: list[int], money: list[int] | None = None) -> DoubletrackState:
    return make_state(big=[BEFORE_YELLOW, 14, 28, 42], small=[20, 0, 0, 0], dice=dice,
                      money=money, at="turn")


def test_own_gate_shortcut_is_forced():
    st = make_state(big=[0, 14, 28, 42], dice=[1, 2], at="turn")  # red on its own TAKE_PASS
    assert st.pending() == []
    roll = next(e for e in st.events if e["type"] == "roll")
    assert roll["shortcuts"] == ["red"] and st.big[0] == 5  # S0, S1, rejoin at offset 5
    assert st.small[0] == 3


def test_only_the_square_stopped_on_counts():
    # passes NUMBER 1, SELL_THE_LEAD, NUMBER 2, SELL_A_PASS on the way; stops on NUMBER 3
    st = make_state(big=[0, 14, 28, 42], gates=[1, 1, 2, 3], dice=[1, 4], at="turn")
    answer(st, s0="around")
    assert st.big[0] == 5 and st.small[0] == 3 and st.money == [125] * 4
    assert st.gates == [1, 1, 2, 3]


def test_uncontrolled_gate_corner_route_is_forced_in_a_three_player_game():
    st = make_state(3, active=2, big=[0, 14, 40], dice=[1, 2], at="turn")
    assert st.gates[3] == NO_ONE and st.pending() == []
    assert st.big[2] == 43


def test_three_player_gate_after_someone_took_it_the_others_must_ask():
    st = make_state(3, active=2, big=[0, 14, 40], gates=[RED, YELLOW, 2, RED], dice=[1, 2],
                    at="turn")
    d = only(st)
    assert (d.kind, d.seat) == ("gate_request", 2) and d.options[0].data["gate"] == "green"


def test_going_around_without_asking():
    st = at_yellow_gate([2, 3])
    d = only(st)
    assert (d.kind, d.seat, ids(st)) == ("gate_request", 0, ["around", "ask"])
    answer(st, s0="around")
    assert st.big[0] == 15


def test_the_controller_not_on_turn_answers_refuse_free_or_a_fee():
    st = at_yellow_gate([2, 3], money=[35, 125, 125, 125])
    answer(st, s0="ask")
    d = only(st)
    assert (d.kind, d.seat) == ("gate_offer", 1)
    assert ids(st) == ["free", "refuse"] + [f"fee:{n}" for n in range(5, 40, 5)]


def test_refused_goes_around():
    st = at_yellow_gate([2, 3])
    answer(st, s0="ask")
    answer(st, s1="refuse")
    assert st.big[0] == 15


def test_let_through_free():
    st = at_yellow_gate([2, 3])
    answer(st, s0="ask")
    answer(st, s1="free")
    assert st.big[0] == shortcut_square(YELLOW, 0) and st.small[0] == 26
    assert st.money == [125] * 4


def test_fee_paid_when_the_pawn_enters_the_shortcut():
    st = at_yellow_gate([2, 3])
    answer(st, s0="ask")
    answer(st, s1="fee:20")
    d = only(st)
    assert (d.kind, d.seat, ids(st)) == ("gate_accept", 0, ["around", "pay"])
    answer(st, s0="pay")
    assert st.big[0] == shortcut_square(YELLOW, 0)
    assert st.money == [105, 145, 125, 125]


def test_fee_not_paid_when_the_roll_stops_short_of_the_fork():
    st = at_yellow_gate([1, 2])
    answer(st, s0="ask")
    answer(st, s1="fee:20")
    answer(st, s0="pay")
    assert st.big[0] == 13 and st.money == [125] * 4


def test_fee_not_paid_when_the_roll_stops_on_the_take_pass_square():
    st = at_yellow_gate([2, 2])
    answer(st, s0="ask")
    answer(st, s1="fee:20")
    answer(st, s0="pay")
    assert st.big[0] == 14 and st.money == [125] * 4
    answer(st, s0="take")  # and the square offers seat 0 the yellow gate
    assert st.gates[YELLOW] == 0


def test_fee_declined_goes_around():
    st = at_yellow_gate([2, 3])
    answer(st, s0="ask")
    answer(st, s1="fee:20")
    answer(st, s0="around")
    assert st.big[0] == 15 and st.money == [125] * 4


def test_a_penniless_requester_can_only_be_refused_or_let_through():
    st = at_yellow_gate([2, 3], money=[0, 250, 125, 125])
    answer(st, s0="ask")
    assert ids(st) == ["free", "refuse"]


def test_no_route_question_when_no_fork_is_within_reach():
    st = make_state(big=[1, 14, 28, 42], dice=[6, 6], at="turn")  # 13 squares to yellow's
    assert st.big[0] == 13 and st.pending() == []


def short_board():
    """Quadrants of 13 and a one-square shortcut: a move through one shortcut may reach the next
    fork, so two forks can need a route before one roll."""
    data = copy.deepcopy(BOARD.data)
    data["outer"]["quadrant"] = data["outer"]["quadrant"][:13]
    data["outer"]["shortcut"] = data["outer"]["shortcut"][:1]
    return GAME.board_from_data(data)


def test_two_forks_in_reach_each_get_a_route_and_fees_are_capped_by_what_is_agreed():
    board = short_board()
    st = DoubletrackState(board, 4, 0, deal=False)
    st.hands = [["worthless", "number-1", "number-2"]] * 4
    st.pile = ["number-3"] * 10
    st.money = [40, 125, 125, 125]
    st.gates = [1, 2, 2, 3]  # red held by seat 1, yellow by seat 2
    st.active, st.turns, st.rng = 0, 1, ScriptedDice([5, 6])
    st.stack = [ROUTE_START]
    st.resume()
    answer(st, s0="ask")
    answer(st, s1="fee:25")
    answer(st, s0="pay")
    assert only(st).kind == "gate_request" and only(st).options[0].data["gate"] == "yellow"
    answer(st, s0="ask")
    assert ids(st)[-1] == "fee:15"  # $40 less the $25 already agreed
    answer(st, s2="fee:15")
    answer(st, s0="pay")
    roll = next(e for e in st.events if e["type"] == "roll")
    assert roll["shortcuts"] == ["red", "yellow"]
    assert st.money == [0, 150, 140, 125]
