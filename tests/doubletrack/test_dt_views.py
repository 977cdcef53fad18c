"""Views: what a seat sees and what it never sees, and determinize's dealing of the unseen cards.

The properties every game's views keep (JSON-ready, no seed, a state rebuilt from a view asks
the same question and shows the same view) are checked for all games in
tests/test_games_properties.py."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as hs

from referee.core import RulesError

from dt_support import (
    BOARD, GAME, answer, hands_with, make_state, random_positions, scramble_hidden, square_at,
)

SEEDS = hs.integers(min_value=0, max_value=2**63 - 1)


@settings(max_examples=60)
@given(seed=SEEDS, n=hs.sampled_from([3, 4]))
def test_views_never_leak_hidden_information(seed: int, n: int):
    rng = random.Random(seed)
    for st in random_positions(n, seed):
        for seat in [*range(n), None]:
            view = st.view(seat)
            json.dumps(view)
            other = st.clone()
            scramble_hidden(other, seat if seat is not None else -1, rng)
            assert other.view(seat) == view


def test_view_fields_own_hand_only_and_sale_card_only_to_the_seller():
    st = make_state(big=[square_at("SELL_A_CARD"), 14, 28, 42],
                    hands=hands_with("take_the_lead", "back_10"), at="square")
    answer(st, s0="card:take_the_lead")
    mine, theirs, spectator = st.view(0), st.view(1), st.view(None)
    assert mine["on_sale"] == {"seller": 0, "card": "take_the_lead"}
    assert theirs["on_sale"] == {"seller": 0, "card": None}
    assert spectator["on_sale"] == {"seller": 0, "card": None} and spectator["hand"] is None
    assert mine["hand"] == ["back_10", "worthless"] and theirs["hand"] == sorted(st.hands[1])
    assert theirs["seats"][0]["hand_size"] == 2 and "hands" not in theirs
    assert [s["money"] for s in theirs["seats"]] == [125] * 4
    assert theirs["gates"] == {"red": 0, "yellow": 1, "blue": 2, "green": 3}
    assert theirs["draw_pile_size"] == len(st.pile) and "seed" not in json.dumps(theirs)
    answer(st, s1="bid:10", s2="bid:5", s3="bid:5")
    bids = [e for e in st.view(2)["events"] if e["type"] == "bids"]
    assert bids == [{"type": "bids", "auction": "card", "bids": [None, 10, 5, 5], "winner": 1}]
    assert st.view(2)["cards_played"][-1] == {"seat": 1, "card": "take_the_lead"}


def test_events_are_those_since_the_seat_last_decided():
    st = make_state(big=[square_at("SELL_THE_LEAD"), 14, 28, 42], small=[3, 5, 7, 9],
                    at="square")
    answer(st, s0="bid:5", s1="bid:5", s2="bid:10", s3="bid:5")
    types = [e["type"] for e in st.view(1)["events"]]
    assert types[0] == "bids" and "lead_paid" in types


def test_played_cards_under_the_pile_become_public_and_so_do_their_draws():
    st = GAME.new_state(4, 1)
    st.pile, st.pile_known = ["number-5", "back_10"], 2
    st.draw(2)
    assert st.known[2] == ["back_10"] and st.pile_known == 1
    assert st.view(0)["seats"][2]["known_cards"] == ["back_10"]
    assert st.view(0)["pile_bottom"] == ["number-5"]


def test_determinize_deals_the_face_down_card_to_a_bidder_and_keeps_30_cards():
    st = make_state(big=[square_at("SELL_A_CARD"), 14, 28, 42],
                    hands=hands_with("take_the_lead", "back_10"), at="square")
    answer(st, s0="card:take_the_lead")
    sample = GAME.determinize(st.view(2), 5, BOARD)
    assert sample.on_sale is not None and sample.seller == 0 and len(sample.hands[0]) == 2
    assert sample.hands[2] == sorted(st.hands[2])
    cards = Counter(sample.pile) + Counter([sample.on_sale])
    for hand in sample.hands:
        cards += Counter(hand)
    assert cards == Counter(BOARD.deck)
    assert [d.seat for d in sample.pending()] == [1, 2, 3]


def test_determinize_refuses_an_impossible_view():
    view = GAME.new_state(4, 2).view(1)
    view["draw_pile_size"] += 1
    with pytest.raises(RulesError, match="draw pile size"):
        GAME.determinize(view, 1, BOARD)
    view = GAME.new_state(4, 2).view(1)
    view["seats"][0]["known_cards"] = ["worthless"] * 3
    with pytest.raises(RulesError, match="counted twice"):
        GAME.determinize(view, 1, BOARD)
