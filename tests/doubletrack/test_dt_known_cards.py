"""Public knowledge of hands (rules page, 'Sell a card'; the state's ``known``): a card every
seat knows a hand holds stops being known there once it leaves the hand face up, sold at
auction; every view says so."""

from __future__ import annotations

from referee.games.doubletrack.views import build_view

from dt_support import answer, make_state, square_at


def test_a_known_card_sold_at_auction_is_no_longer_known_in_the_sellers_hand():
    hands = [["take_the_lead", "worthless", "back_10"], ["number-4"] * 2 + ["worthless"],
             ["number-7"] * 2 + ["number-8"], ["number-1"] * 2 + ["number-8"]]
    st = make_state(big=[square_at("SELL_A_CARD"), 14, 28, 42], small=[5, 20, 3, 9],
                    hands=hands, at="square")
    st.known[0] = ["take_the_lead", "back_10"]  # both drawn from the public bottom of the pile
    answer(st, s0="card:take_the_lead")
    answer(st, s1="bid:10", s2="bid:15", s3="bid:5")
    assert st.played[-1] == (2, "take_the_lead")
    for seat in (None, 0, 1):
        assert build_view(st, seat)["seats"][0]["known_cards"] == ["back_10"]
        assert st.view(seat)["seats"][0]["known_cards"] == ["back_10"]
