"""The greedy bot's judgement on hand-built positions (it reads only the decision and view)."""

from __future__ import annotations

import pytest

from bots.doubletrack_greedy import DoubletrackGreedyBot

from dt_support import BLUE, GREEN, RED, YELLOW, answer, hands_with, make_state, only, square_at


def decide(st, seat: int) -> str:  # type: ignore[no-untyped-def]
    d = next(x for x in st.pending() if x.seat == seat)
    return DoubletrackGreedyBot("doubletrack", 1).decide(d, st.view(seat))


def test_picks_the_number_that_goes_furthest_after_bumps():
    st = make_state(big=[square_at("NUMBER 1-5"), 14, 28, 42], small=[20, 25, 0, 0],
                    at="square")
    assert decide(st, 0) == "number:5"


def test_takes_the_purple_shortcut_and_plays_its_best_card():
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[8, 40, 0, 0],
                    hands=hands_with("back_10", "number-3", "take_the_lead"), at="square")
    assert decide(st, 0) == "card:take_the_lead"
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[8, 4, 0, 0],
                    hands=hands_with("back_10", "number-3"), at="square")
    answer(st, s0="card:number-3")
    assert only(st).kind == "inner_route" and decide(st, 0) == "shortcut"


def test_sells_the_card_worst_for_itself_and_trades_with_the_leader():
    st = make_state(big=[square_at("SELL_A_CARD"), 14, 28, 42], small=[30, 5, 0, 0],
                    hands=hands_with("back_10", "number-3", "number-8"), at="square")
    assert decide(st, 0) == "card:back_10"
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[3, 40, 10, 20],
                    hands=hands_with("trade_places"), at="square")
    answer(st, s0="card:trade_places")
    assert decide(st, 0) == "seat:1"


def test_bids_everything_when_the_lead_auction_decides_the_game():
    st = make_state(big=[square_at("SELL_THE_LEAD"), 14, 28, 42], small=[30, 59, 10, 0],
                    money=[125, 125, 80, 125], at="square")
    assert decide(st, 2) == "bid:80"


def test_bids_for_the_lead_in_proportion_to_the_gain_and_not_alone_ahead_early():
    st = make_state(big=[square_at("SELL_THE_LEAD"), 14, 28, 42], small=[20, 25, 3, 0],
                    at="square")
    assert decide(st, 3) == "bid:125"  # 26 circles at $10 each, capped by its money
    assert decide(st, 0) == "bid:60"  # 6 circles
    assert decide(st, 1) == "bid:5"   # alone ahead, not yet half way: the $5 minimum


def test_bids_the_minimum_for_a_face_down_card_and_a_step_more_when_rich():
    st = make_state(big=[square_at("SELL_A_PASS"), 14, 28, 42], money=[125, 125, 200, 5],
                    at="square")
    assert decide(st, 1) == "bid:5" and decide(st, 2) == "bid:10"
    assert {d.seat for d in st.pending()} == {1, 2}  # $5 exactly: the only bid, not asked


def test_takes_a_gate_pass_it_stops_on():
    st = make_state(big=[28, 14, 28, 42], gates=[RED, YELLOW, YELLOW, GREEN], at="square")
    assert only(st).kind == "take_pass" and decide(st, 0) == "take"


def test_takes_25_from_the_richest_and_refuses_a_gate_to_a_runaway_leader():
    st = make_state(big=[square_at("TAKE_25"), 14, 28, 42], money=[125, 20, 200, 125],
                    at="square")
    assert decide(st, 0) == "seat:2"
    st = make_state(big=[10, 14, 28, 42], small=[30, 5, 0, 0], dice=[2, 3], at="turn")
    assert decide(st, 0) == "ask"
    answer(st, s0="ask")
    assert decide(st, 1) == "refuse"


def test_declines_a_trade_that_would_move_it_back():
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[40, 3, 10, 20],
                    hands=hands_with("trade_places", "back_10", "back_10"), at="square")
    assert decide(st, 0) == "card:trade_places"  # worth nothing now, the Back 10s cost 10
    answer(st, s0="card:trade_places")
    assert decide(st, 0) == "decline"


def steal_from_play_a_card(hand: tuple[str, ...], gates: list[int]):  # type: ignore[no-untyped-def]
    """Seat 0 plays Steal A Gate Pass on red's PLAY A CARD (square 6): its next move reaches
    the yellow fork (square 14, 8 ahead), the blue one (28) is out of reach."""
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[30, 0, 0, 0],
                    hands=hands_with("steal_a_gate_pass", *hand), gates=gates, at="square")
    answer(st, s0="card:steal_a_gate_pass")
    return st


@pytest.mark.parametrize("hand, gates, choice", [
    # Holding yellow forces its shortcut, whose PLAY A CARD would make it play a Back 10:
    (("back_10", "back_10"), [RED, YELLOW, RED, RED], "decline"),
    (("back_10", "back_10"), [RED, YELLOW, BLUE, RED], "gate:blue"),  # out of reach: no cost
    # With a Number 8 in hand the shortcut (Number 6, PLAY A CARD) beats the corner:
    (("number-8", "number-7"), [RED, YELLOW, RED, RED], "gate:yellow"),
])
def test_declines_a_steal_whose_forced_shortcut_makes_the_next_move_worse(hand, gates, choice):
    st = steal_from_play_a_card(hand, gates)
    assert only(st).kind == "card_target" and decide(st, 0) == choice
