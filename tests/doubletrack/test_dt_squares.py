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
    assert pending[0].option_ids()[0] == "bid:5" and pending[0].option_ids()[-1] == "bid:125"
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
    answer(st, s1="bid:20", s2="bid:20", s3="bid:5")
    assert st.money == [170, 105, 105, 120]
    assert st.small[0] == 13


def test_sell_a_card_penniless_seats_bid_nothing_unasked_so_the_one_bidder_wins_with_5():
    """Seed 003: 「若玩家已無金錢標記，仍可假裝作出握拳樣」: a seat without money holds an empty fist."""
    hands = [["number-8", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-6"], ["number-1"] * 2 + ["number-6"]]
    st = make_state(big=[CARD, 14, 28, 42], small=[5, 20, 3, 9], money=[100, 0, 50, 0],
                    hands=hands, at="square")
    answer(st, s0="card:back_10")
    assert [d.seat for d in st.pending()] == [2]
    answer(st, s2="bid:5")
    assert st.small[2] == 0 and st.played[-1] == (2, "back_10")
    assert st.money == [105, 0, 45, 0]
    bids = [e for e in st.events if e["type"] == "bids"][-1]
    assert bids["bids"] == [None, 0, 5, 0] and bids["winner"] == 2


def test_sell_a_card_nobody_with_money_is_a_tie_at_0_so_the_seller_plays_it():
    hands = [["number-8", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-6"], ["number-1"] * 2 + ["number-6"]]
    st = make_state(big=[CARD, 14, 28, 42], small=[5, 20, 3, 9], money=[100, 0, 0, 0],
                    hands=hands, at="square")
    answer(st, s0="card:back_10")
    assert st.small[0] == 0 and st.played[-1] == (0, "back_10") and st.money == [100, 0, 0, 0]


def test_every_bid_is_at_least_5_for_a_seat_that_has_it():
    """Seed 003: 「將欲出價的金錢標記(至少5元)秘密握於手中」: the bid held in the fist is at least $5."""
    st = make_state(big=[PASS, 14, 28, 42], money=[125, 125, 5, 40], at="square")
    asked = {d.seat: d.option_ids() for d in st.pending()}
    assert asked == {1: tuple(f"bid:{n}" for n in range(5, 130, 5)),
                     3: ("bid:5", "bid:10", "bid:15", "bid:20", "bid:25", "bid:30", "bid:35",
                         "bid:40")}
    answer(st, s1="bid:5", s3="bid:5")  # seat 2's only bid is $5: paid without being asked
    assert st.money == [140, 120, 0, 35] and st.gates[RED] == RED  # a tie: the seller keeps it


def test_sell_a_pass_without_a_gate_does_nothing():
    st = make_state(big=[PASS, 14, 28, 42], gates=[YELLOW, YELLOW, BLUE, GREEN], at="square")
    assert st.pending() == [] and st.money == [125] * 4


def test_sell_a_pass_highest_bidder_gains_control_every_bid_paid():
    st = make_state(big=[PASS, 14, 28, 42], at="square")
    assert {d.seat for d in st.pending()} == {1, 2, 3}
    assert st.pending()[0].options[0].data["auction"] == "pass"
    answer(st, s1="bid:5", s2="bid:30", s3="bid:5")
    assert st.gates[RED] == 2 and st.money == [165, 120, 95, 120]


def test_sell_a_pass_tie_seller_keeps_control():
    st = make_state(big=[PASS, 14, 28, 42], at="square")
    answer(st, s1="bid:30", s2="bid:30", s3="bid:10")
    assert st.gates[RED] == RED and st.money == [195, 95, 95, 115]


def test_sell_a_pass_with_several_gates_the_seller_picks_one():
    st = make_state(big=[PASS, 14, 28, 42], gates=[RED, YELLOW, RED, GREEN], at="square")
    assert only(st).kind == "sell_pass_choice" and ids(st) == ["gate:red", "gate:blue"]
    answer(st, s0="gate:blue")
    answer(st, s1="bid:10", s2="bid:5", s3="bid:5")
    assert st.gates == [RED, YELLOW, YELLOW, GREEN]


def test_sell_the_lead_everyone_bids_winner_goes_just_ahead_paid_to_the_last():
    st = make_state(big=[LEAD, 14, 28, 42], small=[10, 30, 4, 20], at="square")
    assert {d.seat for d in st.pending()} == {0, 1, 2, 3}
    assert st.pending()[0].options[0].data["auction"] == "lead"
    answer(st, s0="bid:5", s1="bid:5", s2="bid:10", s3="bid:25")
    assert st.small == [10, 30, 4, 31]
    assert st.money == [120, 120, 160, 100]  # seat 2 is last after the move and takes it all


def test_sell_the_lead_tie_for_the_top_the_active_seat_takes_the_lead_and_all_the_money():
    """Seed 003: 「若出現最高出價相同情況，則由行動玩家同時取得排頭資格及所有金錢標記」: on a tie for
    the top bid the active seat takes both the lead and all the money; the last seat gets none."""
    st = make_state(big=[LEAD, 14, 28, 42], small=[10, 30, 4, 20], at="square")
    answer(st, s0="bid:5", s1="bid:15", s2="bid:15", s3="bid:5")
    assert st.small == [31, 30, 4, 20]
    assert st.money == [125 - 5 + 40, 110, 110, 120]  # seat 2, last, is paid nothing
    assert [e for e in st.events if e["type"] == "lead_paid"] == [
        {"type": "lead_paid", "to": 0, "amount": 40}]
    assert not any(e["type"] == "roll_off" for e in st.events)


def test_sell_the_lead_leader_alone_stays_and_the_last_is_paid_after_the_move():
    st = make_state(big=[LEAD, 14, 28, 42], small=[2, 30, 4, 20], at="square")
    answer(st, s0="bid:5", s1="bid:40", s2="bid:5", s3="bid:5")
    assert st.small == [2, 30, 4, 20] and st.money == [175, 85, 120, 120]


def test_sell_the_lead_winner_leaving_last_place_pays_the_new_last():
    st = make_state(big=[LEAD, 14, 28, 42], small=[2, 30, 4, 20], at="square")
    answer(st, s0="bid:20", s1="bid:5", s2="bid:5", s3="bid:5")
    assert st.small[0] == 31 and st.money == [105, 120, 155, 120]


def test_sell_the_lead_roll_off_among_seats_on_start_lowest_takes_ties_roll_again():
    # seats 1, 2, 3 all on START after seat 0 wins: first roll-off 7, 4, 4; re-roll 6 vs 9
    st = make_state(big=[LEAD, 14, 28, 42], small=[0, 0, 0, 0],
                    dice=[3, 4, 2, 2, 1, 3, 3, 3, 4, 5], at="square")
    answer(st, s0="bid:15", s1="bid:10", s2="bid:5", s3="bid:5")
    assert st.small == [1, 0, 0, 0]
    assert st.money == [110, 115, 155, 120]
    rolls = [e for e in st.events if e["type"] == "roll_off"]
    assert rolls == [{"type": "roll_off", "seats": [1, 2, 3], "rolls": [7, 4, 4]},
                     {"type": "roll_off", "seats": [2, 3], "rolls": [6, 9]}]


def test_sell_the_lead_reaching_home_ends_the_game_at_once_before_payment():
    st = make_state(big=[LEAD, 14, 28, 42], small=[30, 59, 10, 3], at="square")
    answer(st, s0="bid:5", s1="bid:5", s2="bid:50", s3="bid:5")
    result = st.result()
    assert result is not None and result.winners == (2,) and st.small[2] == 60
    assert st.pending() == [] and st.money == [125] * 4


def test_take_the_gate_pass_may_take_control_from_whoever_holds_it():
    """Seed 003 says A *may* (可) take the pass: it is asked, and ``take`` takes it."""
    st = make_state(big=[28, 14, 28, 42], gates=[RED, YELLOW, YELLOW, GREEN], active=RED,
                    at="square")
    d = only(st)
    assert d.kind == "take_pass" and ids(st) == ["take", "leave"]
    assert d.options[0].data == {"gate": "blue", "holder": YELLOW}
    answer(st, s0="take")
    assert st.gates[BLUE] == RED
    assert st.events[-1] == {"type": "gate_taken", "seat": RED, "gate": "blue", "was": YELLOW}


def test_take_the_gate_pass_may_be_left_with_its_holder():
    st = make_state(big=[28, 14, 28, 42], gates=[RED, YELLOW, YELLOW, GREEN], active=RED,
                    at="square")
    answer(st, s0="leave")
    assert st.gates == [RED, YELLOW, YELLOW, GREEN]
    assert st.events[-1] == {"type": "pass_left", "seat": RED, "gate": "blue", "holder": YELLOW}


def test_take_the_gate_pass_is_not_asked_of_the_seat_that_holds_it():
    st = make_state(big=[28, 14, 28, 42], gates=[RED, YELLOW, RED, GREEN], active=RED,
                    at="square")
    assert st.pending() == [] and st.gates == [RED, YELLOW, RED, GREEN]


def test_take_25_from_a_chosen_opponent_everything_if_less():
    st = make_state(big=[square_at("TAKE_25"), 14, 28, 42], money=[125, 125, 15, 235],
                    at="square")
    assert only(st).kind == "take25_target" and ids(st) == ["seat:1", "seat:2", "seat:3"]
    answer(st, s0="seat:2")
    assert st.money == [140, 125, 0, 235]


def test_three_player_green_gate_closed_until_someone_stops_on_its_square():
    assert GAME.new_state(3, 1).gates == [RED, YELLOW, BLUE, NO_ONE]
    st = make_state(3, big=[42, 14, 28], at="square")
    assert only(st).kind == "take_pass" and only(st).options[0].data["holder"] is None
    answer(st, s0="take")
    assert st.gates == [RED, YELLOW, BLUE, RED]
