"""Scenario tests for the seven cards and the inner track (rules page: 'Cards', 'Inner track')."""

from __future__ import annotations

import pytest

from dt_support import (
    BLUE, GREEN, NO_ONE, RED, YELLOW, answer, hands_with, ids, make_state, only, square_at,
)

PLAY, CARD = square_at("PLAY_A_CARD"), square_at("SELL_A_CARD")
BIG = [PLAY, 14, 28, 42]


def play(card: str, small: list[int], **kw):  # type: ignore[no-untyped-def]
    """Seat 0 on PLAY A CARD holding ``card`` (and worthless cards): it plays ``card``."""
    st = make_state(big=BIG, small=small, hands=hands_with(card), at="square", **kw)
    if st.pending() and only(st).kind == "play_card":
        answer(st, s0=f"card:{card}")
    return st


def test_number_card_moves_forward_n():
    st = play("number-6", [20, 0, 0, 0])
    assert st.small[0] == 26 and st.pile[0] == "number-6"


def test_number_card_from_a_purple_circle_owner_chooses_shortcut_as_first_step():
    st = play("number-3", [8, 0, 0, 0])
    d = only(st)
    assert d.kind == "inner_route" and d.seat == 0 and ids(st) == ["path", "shortcut"]
    answer(st, s0="shortcut")
    assert st.small[0] == 13 + 2


def test_number_card_from_a_purple_circle_path_choice():
    st = play("number-3", [8, 0, 0, 0])
    answer(st, s0="path")
    assert st.small[0] == 11


def test_bump_chain_moves_on_until_a_free_circle():
    st = play("number-4", [6, 10, 11, 12])
    assert st.small[0] == 13


def test_bumped_onto_a_purple_circle_goes_on_along_the_path():
    st = play("number-1", [6, 7, 8, 0])  # lands on 7 (taken), bumped to 8 (taken), then 9
    assert st.small[0] == 9


def test_trade_places_swaps_with_a_chosen_opponent_without_bump():
    st = play("trade_places", [3, 40, 0, 22])
    assert only(st).kind == "card_target"
    assert ids(st) == ["seat:1", "seat:2", "seat:3", "decline"]
    answer(st, s0="seat:1")
    assert st.small == [40, 3, 0, 22]


def test_trade_places_may_be_declined_by_a_leader_who_must_play_it():
    """Seed 003, §4(2): 「當玩家打出此張卡牌後，可將自家小棋子與其他任一玩家的小棋子交換位置」 (*may*
    swap); PLAY A CARD: 「須從手牌中打出1張卡牌」 (*must* play one). A leader holding only bad
    cards plays Trade Places and keeps its lead; the card still goes under the pile and one is
    drawn."""
    hands = hands_with("trade_places", "back_10", "go_farthest_back")
    st = make_state(big=BIG, small=[40, 3, 0, 22], hands=hands, at="square")
    answer(st, s0="card:trade_places")
    assert only(st).kind == "card_target" and ids(st)[-1] == "decline"
    answer(st, s0="decline")
    assert st.pending() == [] and st.small == [40, 3, 0, 22]
    assert {"type": "card_declined", "seat": 0, "card": "trade_places"} in st.events
    assert st.pile[0] == "trade_places" and st.pile_known == 1
    assert len(st.hands[0]) == 3 and st.events[-1] == {"type": "draw", "seat": 0}


def test_trade_places_bought_at_auction_must_be_played_but_may_be_declined():
    """SELL A CARD: 「得標玩家須立即將此張卡牌打出」 (the buyer *must* play it at once); its effect
    is still a *may*. The seller draws."""
    st = make_state(big=[CARD, 14, 28, 42], small=[3, 40, 10, 22],
                    hands=hands_with("trade_places"), at="square")
    answer(st, s0="card:trade_places")
    answer(st, s1="bid:20", s2="bid:5", s3="bid:5")
    d = only(st)
    assert (d.kind, d.seat) == ("card_target", 1)
    assert ids(st) == ["seat:0", "seat:2", "seat:3", "decline"]
    answer(st, s1="decline")
    assert st.small == [3, 40, 10, 22] and st.played[-1] == (1, "trade_places")
    assert st.pile[0] == "trade_places" and len(st.hands[0]) == 3


def test_take_the_lead_goes_just_ahead_of_the_leader():
    st = play("take_the_lead", [3, 40, 0, 22])
    assert st.small == [41, 40, 0, 22]


def test_take_the_lead_when_already_leading_alone_stays():
    st = play("take_the_lead", [45, 40, 0, 22])
    assert st.small == [45, 40, 0, 22]


def test_take_the_lead_all_on_start_goes_to_circle_1():
    assert play("take_the_lead", [0, 0, 0, 0]).small == [1, 0, 0, 0]


def test_back_10_then_the_bump_rule():
    assert play("back_10", [25, 15, 16, 0]).small[0] == 17


def test_back_10_not_below_start():
    assert play("back_10", [6, 0, 0, 0]).small == [0, 0, 0, 0]


def test_back_10_from_a_purple_circle_has_no_shortcut_choice():
    st = play("back_10", [18, 0, 0, 0])
    assert st.pending() == [] and st.small[0] == 8


def test_go_farthest_back_just_behind_the_last_pawn():
    assert play("go_farthest_back", [30, 12, 20, 25]).small[0] == 11


def test_go_farthest_back_not_below_start():
    assert play("go_farthest_back", [30, 0, 20, 25]).small[0] == 0


def test_go_farthest_back_when_already_last_stays():
    assert play("go_farthest_back", [5, 12, 20, 25]).small[0] == 5


def test_steal_a_gate_pass_chosen_opponent_gate():
    st = play("steal_a_gate_pass", [0, 0, 0, 0])
    assert only(st).kind == "card_target"
    assert ids(st) == ["gate:yellow", "gate:blue", "gate:green", "decline"]
    answer(st, s0="gate:blue")
    assert st.gates == [RED, YELLOW, RED, GREEN]
    assert st.events[-2] == {"type": "gate_stolen", "seat": 0, "gate": "blue", "was": BLUE}


def test_steal_a_gate_pass_may_be_declined_even_with_a_single_opponent_gate():
    """Seed 003, §4(6): 「當玩家打出此張卡牌後，可取得其他任一玩家的匣門通道」 (*may* take); a gate
    held forces its shortcut (§2(1) 「必須行駛捷徑車道」), so taking one can hurt. With one
    opponent gate the choice is still asked: take it or decline."""
    st = play("steal_a_gate_pass", [0, 0, 0, 0], gates=[RED, RED, BLUE, RED])
    assert only(st).kind == "card_target" and ids(st) == ["gate:blue", "decline"]
    answer(st, s0="decline")
    assert st.pending() == [] and st.gates == [RED, RED, BLUE, RED]
    assert {"type": "card_declined", "seat": 0, "card": "steal_a_gate_pass"} in st.events
    assert st.pile[0] == "steal_a_gate_pass" and len(st.hands[0]) == 3


def test_under_rules_version_2_both_effects_are_forced():
    """Version 2 (kept to replay its logs) offered no ``decline``: a single opponent gate was
    taken without asking, and Trade Places named an opponent."""
    st = play("steal_a_gate_pass", [0, 0, 0, 0], gates=[RED, RED, BLUE, RED], may_decline=False)
    assert st.pending() == [] and st.gates == [RED, RED, RED, RED]
    st = play("trade_places", [40, 3, 0, 22], may_decline=False)
    assert ids(st) == ["seat:1", "seat:2", "seat:3"]


@pytest.mark.parametrize("card, small, after", [
    ("number-3", [20, 0, 0, 0], [23, 0, 0, 0]),
    ("take_the_lead", [3, 40, 0, 22], [41, 40, 0, 22]),
    ("back_10", [25, 15, 16, 0], [17, 15, 16, 0]),
    ("go_farthest_back", [30, 12, 20, 25], [11, 12, 20, 25]),
])
def test_cards_that_never_gain_by_declining_or_say_must_are_applied_unasked(card, small, after):
    """Number and Take The Lead only move ahead (可, but declining never helps); Back 10 and Go
    Farthest Back say 須 (must): none is asked."""
    st = play(card, small)
    assert st.pending() == [] and st.small == after


def test_take_25_asks_which_opponent_only():
    st = make_state(big=[square_at("TAKE_25"), 14, 28, 42], at="square")
    assert only(st).kind == "take25_target" and ids(st) == ["seat:1", "seat:2", "seat:3"]


def test_steal_a_gate_pass_without_opponent_gate_has_no_effect():
    st = play("steal_a_gate_pass", [0, 0, 0, 0], gates=[RED, RED, NO_ONE, RED])
    assert st.gates == [RED, RED, NO_ONE, RED]
    assert st.events[-2]["type"] == "no_effect"


def test_worthless_card_does_nothing():
    hands = hands_with("worthless", "number-5", "number-6")
    st = make_state(big=BIG, small=[5, 9, 0, 0], hands=hands, at="square")
    answer(st, s0="card:worthless")
    assert st.small == [5, 9, 0, 0] and st.money == [125] * 4


def test_number_card_reaching_or_passing_home_wins_at_once():
    st = play("number-8", [55, 0, 0, 0])
    result = st.result()
    assert result is not None and result.winners == (0,) and st.small[0] == 60
    assert result.seats[0].score == 60 and result.seats[0].breakdown == {"position": 60}


def sell(card: str, small: list[int]):  # type: ignore[no-untyped-def]
    st = make_state(big=[CARD, 14, 28, 42], small=small, hands=hands_with(card), at="square")
    if st.pending() and only(st).kind == "sell_card_choice":
        answer(st, s0=f"card:{card}")
    return st


def test_card_bought_at_auction_is_played_at_once_by_its_buyer_incl_route_choice():
    st = sell("number-2", [0, 0, 8, 0])
    answer(st, s1="bid:5", s2="bid:10", s3="bid:5")
    d = only(st)
    assert (d.kind, d.seat) == ("inner_route", 2)
    answer(st, s2="shortcut")
    assert st.small[2] == 14 and st.played[-1] == (2, "number-2")


def test_take_the_lead_bought_at_auction_reaches_home_during_the_auction():
    st = sell("take_the_lead", [59, 10, 20, 30])
    answer(st, s1="bid:5", s2="bid:5", s3="bid:10")
    result = st.result()
    assert result is not None and result.winners == (3,)
    assert st.pending() == [] and len(st.hands[0]) == 2  # over at once: the seller never draws
    assert result.seats[3].rank == 1 and result.seats[0].rank == 2


@pytest.mark.parametrize("other", [1, 2, 3])
def test_trade_places_cannot_reach_home_no_pawn_ever_stands_there(other: int):
    st = play("trade_places", [3, 59, 58, 57])
    answer(st, s0=f"seat:{other}")
    assert st.result() is None and max(st.small) < 60
