"""Scenario tests, one per outer-track square and auction rule (rules page: 'Resolve the square')."""

from __future__ import annotations

from dt_support import (
    BLUE, GAME, GREEN, NO_ONE, RED, YELLOW, answer, ids, make_state, only, square_at,
)

CARD, PASS, LEAD = square_at("SELL_A_CARD"), square_at("SELL_A_PASS"), square_at("SELL_THE_LEAD")


def test_number_square_moves_the_small_pawn_forward_n():
    st = make_state(big=[square_at("NUMBER 3"), 14, 28, 42], small=[4, 0, 0, 0], at="square")
    assert st.pending() == [] and st.small[0] == 7


def test_number_range_square_lets_the_mover_pick_1_to_5():
    st = make_state(big=[square_at("NUMBER 1-5"), 14, 28, 42], small=[4, 0, 0, 0], at="square")
    d = only(st)
    assert d.kind == "number_choice" and d.seat == 0
    assert ids(st) == [f"number:{n}" for n in range(1, 6)]
    answer(st, s0="number:4")
    assert st.small[0] == 8


def test_play_a_card_plays_it_puts_it_under_the_pile_and_draws():
    hands = [["number-2", "back_10", "number-2"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-8"], ["number-1"] * 2 + ["number-8"]]
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], hands=hands, at="square")
    d = only(st)
    assert d.kind == "play_card" and ids(st) == ["card:back_10", "card:number-2"]
    top = st.pile[-1]
    answer(st, s0="card:number-2")
    assert st.small[0] == 2
    assert st.pile[0] == "number-2" and st.pile_known == 1
    assert sorted(st.hands[0]) == sorted(["number-2", "back_10", top])


def test_play_a_card_with_identical_cards_is_not_asked():
    hands = [["back_10"] * 3, ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-8"], ["number-1"] * 2 + ["number-8"]]
    st = make_state(big=[square_at("PLAY_A_CARD"), 14, 28, 42], small=[15, 0, 0, 0],
                    hands=hands, at="square")
    assert st.pending() == [] and st.small[0] == 5 and st.played == [(0, "back_10")]


def test_sell_a_card_other_seats_bid_highest_plays_it_every_bid_paid_to_seller():
    hands = [["take_the_lead", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-8"], ["number-1"] * 2 + ["number-8"]]
    st = make_state(big=[CARD, 14, 28, 42], small=[5, 20, 3, 9], hands=hands, at="square")
    assert only(st).kind == "sell_card_choice"
    answer(st, s0="card:take_the_lead")
    pending = st.pending()
    assert [(d.seat, d.kind) for d in pending] == [(1, "bid"), (2, "bid"), (3, "bid")]
    assert all(d.options[0].data["auction"] == "card" for d in pending)
    assert pending[0].option_ids()[-1] == "bid:125"
    answer(st, s1="bid:10", s2="bid:15", s3="bid:5")
    assert st.money == [155, 115, 110, 120]
    assert st.small[2] == 21  # the buyer plays Take The Lead at once
    assert st.played[-1] == (2, "take_the_lead")
    assert len(st.hands[0]) == 3 and st.pile[0] == "take_the_lead"


def test_sell_a_card_tie_for_the_top_seller_plays_it_and_takes_every_bid():
    hands = [["number-8", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-6"], ["number-1"] * 2 + ["number-6"]]
    st = make_state(big=[CARD, 14, 28, 42], small=[5, 20, 3, 9], hands=hands, at="square")
    answer(st, s0="card:number-8")
    answer(st, s1="bid:20", s2="bid:20", s3="bid:0")
    assert st.money == [165, 105, 105, 125]
    assert st.small[0] == 13


def test_sell_a_card_all_zero_seller_plays_it_and_penniless_seats_are_not_asked():
    hands = [["number-8", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-6"], ["number-1"] * 2 + ["number-6"]]
    st = make_state(big=[CARD, 14, 28, 42], small=[5, 20, 3, 9], money=[100, 0, 50, 0],
                    hands=hands, at="square")
    answer(st, s0="card:back_10")
    assert [d.seat for d in st.pending()] == [2]
    answer(st, s2="bid:0")
    assert st.small[0] == 0 and st.played[-1] == (0, "back_10")


def test_sell_a_pass_without_a_gate_does_nothing():
    st = make_state(big=[PASS, 14, 28, 42], gates=[YELLOW, YELLOW, BLUE, GREEN], at="square")
    assert st.pending() == [] and st.money == [125] * 4


def test_sell_a_pass_highest_bidder_gains_control_every_bid_paid():
    st = make_state(big=[PASS, 14, 28, 42], at="square")
    assert {d.seat for d in st.pending()} == {1, 2, 3}
    assert st.pending()[0].options[0].data["auction"] == "pass"
    answer(st, s1="bid:5", s2="bid:30", s3="bid:0")
    assert st.gates[RED] == 2 and st.money == [160, 120, 95, 125]


def test_sell_a_pass_tie_seller_keeps_control():
    st = make_state(big=[PASS, 14, 28, 42], at="square")
    answer(st, s1="bid:30", s2="bid:30", s3="bid:10")
    assert st.gates[RED] == RED and st.money == [195, 95, 95, 115]


def test_sell_a_pass_with_several_gates_the_seller_picks_one():
    st = make_state(big=[PASS, 14, 28, 42], gates=[RED, YELLOW, RED, GREEN], at="square")
    assert only(st).kind == "sell_pass_choice" and ids(st) == ["gate:red", "gate:blue"]
    answer(st, s0="gate:blue")
    answer(st, s1="bid:5", s2="bid:0", s3="bid:0")
    assert st.gates == [RED, YELLOW, YELLOW, GREEN]


def test_sell_the_lead_everyone_bids_winner_goes_just_ahead_paid_to_the_last():
    st = make_state(big=[LEAD, 14, 28, 42], small=[10, 30, 4, 20], at="square")
    assert {d.seat for d in st.pending()} == {0, 1, 2, 3}
    assert st.pending()[0].options[0].data["auction"] == "lead"
    answer(st, s0="bid:5", s1="bid:0", s2="bid:10", s3="bid:25")
    assert st.small == [10, 30, 4, 31]
    assert st.money == [120, 125, 155, 100]  # seat 2 is last after the move and takes it all


def test_sell_the_lead_tie_for_the_top_goes_to_the_active_seat():
    st = make_state(big=[LEAD, 14, 28, 42], small=[10, 30, 4, 20], at="square")
    answer(st, s0="bid:0", s1="bid:15", s2="bid:15", s3="bid:5")
    assert st.small[0] == 31 and st.money[2] == 125 - 15 + 35


def test_sell_the_lead_leader_alone_stays_and_the_last_is_paid_after_the_move():
    st = make_state(big=[LEAD, 14, 28, 42], small=[2, 30, 4, 20], at="square")
    answer(st, s0="bid:0", s1="bid:40", s2="bid:0", s3="bid:0")
    assert st.small == [2, 30, 4, 20] and st.money == [165, 85, 125, 125]


def test_sell_the_lead_winner_leaving_last_place_pays_the_new_last():
    st = make_state(big=[LEAD, 14, 28, 42], small=[2, 30, 4, 20], at="square")
    answer(st, s0="bid:20", s1="bid:0", s2="bid:0", s3="bid:0")
    assert st.small[0] == 31 and st.money == [105, 125, 145, 125]


def test_sell_the_lead_roll_off_among_seats_on_start_lowest_takes_ties_roll_again():
    # seats 1, 2, 3 all on START after seat 0 wins: first roll-off 7, 4, 4; re-roll 6 vs 9
    st = make_state(big=[LEAD, 14, 28, 42], small=[0, 0, 0, 0],
                    dice=[3, 4, 2, 2, 1, 3, 3, 3, 4, 5], at="square")
    answer(st, s0="bid:15", s1="bid:10", s2="bid:0", s3="bid:5")
    assert st.small == [1, 0, 0, 0]
    assert st.money == [110, 115, 155, 120]
    rolls = [e for e in st.events if e["type"] == "roll_off"]
    assert rolls == [{"type": "roll_off", "seats": [1, 2, 3], "rolls": [7, 4, 4]},
                     {"type": "roll_off", "seats": [2, 3], "rolls": [6, 9]}]


def test_sell_the_lead_reaching_home_ends_the_game_at_once_before_payment():
    st = make_state(big=[LEAD, 14, 28, 42], small=[30, 59, 10, 3], at="square")
    answer(st, s0="bid:0", s1="bid:0", s2="bid:50", s3="bid:0")
    result = st.result()
    assert result is not None and result.winners == (2,) and st.small[2] == 60
    assert st.pending() == [] and st.money == [125] * 4


def test_take_the_gate_pass_takes_control_from_whoever_holds_it():
    st = make_state(big=[28, 14, 28, 42], gates=[RED, YELLOW, YELLOW, GREEN], active=RED,
                    at="square")
    assert st.gates[BLUE] == RED


def test_take_25_from_a_chosen_opponent_everything_if_less():
    st = make_state(big=[square_at("TAKE_25"), 14, 28, 42], money=[125, 125, 15, 235],
                    at="square")
    assert only(st).kind == "take25_target" and ids(st) == ["seat:1", "seat:2", "seat:3"]
    answer(st, s0="seat:2")
    assert st.money == [140, 125, 0, 235]


def test_three_player_green_gate_closed_until_someone_stops_on_its_square():
    assert GAME.new_state(3, 1).gates == [RED, YELLOW, BLUE, NO_ONE]
    st = make_state(3, big=[42, 14, 28], at="square")
    assert st.gates == [RED, YELLOW, BLUE, RED]
