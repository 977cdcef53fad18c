"""Property tests over thousands of random 3- and 4-seat games: the invariants of Doubletrack
after every step, its end and ranking. What every game keeps (options until the end, replay,
clone, views rebuilt by ``determinize``) is checked for all games in
tests/test_games_properties.py."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as hs

from referee.core import EndReason, GameOverError, IllegalChoiceError
from referee.games.doubletrack.state import TURN_LIMIT, DoubletrackState
from referee.games.doubletrack.steps import FinishCard

from dt_support import BOARD, GAME, play_random

SEEDS = hs.integers(min_value=0, max_value=2**63 - 1)
SEATS = hs.sampled_from([3, 4])
DECK = Counter(BOARD.deck)


def cards_out(st: DoubletrackState) -> list[str]:
    """Cards being resolved (out of hand, not yet under the pile)."""
    steps = st.stack + ([st.wait] if st.wait else [])
    return [s.card for s in steps if isinstance(s, FinishCard)]


def check_invariants(st: DoubletrackState) -> None:
    n = st.num_players
    assert sum(st.money) == BOARD.start_money * n
    assert all(m >= 0 and m % BOARD.unit == 0 for m in st.money)
    circles = [p for p in st.small if 0 < p < BOARD.home]
    assert len(circles) == len(set(circles)), st.small
    assert all(0 <= p <= BOARD.home for p in st.small)
    out = cards_out(st)
    sale = [st.on_sale] if st.on_sale else []
    everything = Counter(st.pile)
    everything.update(out)
    everything.update(sale)
    for hand in st.hands:
        everything.update(hand)
    assert everything == DECK
    if not out and not sale:
        assert all(len(h) == BOARD.hand_size for h in st.hands)
    for seat in range(n):
        if st.known[seat]:
            assert not Counter(st.known[seat]) - Counter(st.hands[seat] + sale)


def check_decisions(st: DoubletrackState) -> None:
    pending = st.pending()
    seats = [d.seat for d in pending]
    assert len(seats) == len(set(seats))
    for d in pending:
        ids = d.option_ids()
        assert len(ids) >= 2 and len(set(ids)) == len(ids)
    if len(pending) > 1:
        assert {d.kind for d in pending} == {"bid"}


@settings(max_examples=2000)
@given(seed=SEEDS, n=SEATS)
def test_random_games_keep_every_invariant_and_end(seed: int, n: int):
    st = GAME.new_state(n, seed)
    rng = random.Random(seed)
    steps = 0
    while st.pending():
        check_invariants(st)
        check_decisions(st)
        st.apply({d.seat: rng.choice(d.options).id for d in st.pending()})
        steps += 1
    check_invariants(st)
    result = st.result()
    assert result is not None and st.turns <= TURN_LIMIT
    assert sorted(s.seat for s in result.seats) == list(range(n))
    for s in result.seats:
        assert sum(s.breakdown.values()) == s.score == st.small[s.seat]
    assert result.winners and all(result.seats[w].rank == 1 for w in result.winners)
    if result.end is EndReason.NORMAL:
        assert result.winners == (st.winner,) and st.small[st.winner] == BOARD.home
        assert sum(1 for p in st.small if p == BOARD.home) == 1
    else:
        assert result.end is EndReason.TURN_LIMIT and st.turns == TURN_LIMIT
    keys = {s.seat: (s.seat == st.winner, st.small[s.seat], st.money[s.seat])
            for s in result.seats}
    for a in result.seats:
        for b in result.seats:
            if keys[a.seat] > keys[b.seat]:
                assert a.rank < b.rank
            if keys[a.seat] == keys[b.seat]:
                assert a.rank == b.rank


def test_apply_rejects_unknown_ids_missing_and_extra_seats():
    st = GAME.new_state(4, 3)
    rng = random.Random(3)
    while len(st.pending()) < 2:  # reach a sealed auction
        st.apply({d.seat: rng.choice(d.options).id for d in st.pending()})
    pending = st.pending()
    good = {d.seat: d.options[0].id for d in pending}
    first = pending[0].seat
    with pytest.raises(IllegalChoiceError, match="not an option of decision 'bid'"):
        st.apply({**good, first: "bid:3"})
    with pytest.raises(IllegalChoiceError, match="no answer given"):
        st.apply({s: c for s, c in good.items() if s != first})
    stranger = next(s for s in range(4) if s not in good)
    with pytest.raises(IllegalChoiceError, match="not asked now"):
        st.apply({**good, stranger: "bid:0"})
    st.apply(good)  # the failed attempts changed nothing
    final, _ = play_random(3, 5)
    with pytest.raises(GameOverError):
        final.apply({0: "x"})


def test_turn_limit_ends_and_ranks_by_position_then_money():
    st = GAME.new_state(3, 9)
    st.turns = TURN_LIMIT - 1
    rng = random.Random(9)
    while st.pending():
        st.apply({d.seat: rng.choice(d.options).id for d in st.pending()})
    result = st.result()
    assert result is not None and result.end is EndReason.TURN_LIMIT
    assert result.end.value == "turn_limit" and "300 turns" in result.reason
    assert result.turns == TURN_LIMIT and result.rounds == TURN_LIMIT // 3
    order = sorted(range(3), key=lambda s: (-st.small[s], -st.money[s]))
    assert [result.seats[s].rank for s in order] == sorted(result.seats[s].rank for s in order)


def test_ranking_ties_share_a_rank():
    st = GAME.new_state(4, 1)
    st.small, st.money = [10, 10, 5, 60], [50, 50, 200, 0]
    st.winner, st.ended = 3, EndReason.NORMAL
    result = st.result()
    assert result is not None
    assert [s.rank for s in result.seats] == [2, 2, 4, 1] and result.winners == (3,)
    assert result.seats[3].score == 60 and result.reason == "seat 3 (green) reached HOME"


@settings(max_examples=150)
@given(seed=SEEDS, n=SEATS, version=hs.sampled_from(["2", "3"]))
def test_decline_is_offered_last_in_every_card_target_from_version_3_and_changes_nothing(
        seed: int, n: int, version: str):
    """Trade Places and Steal A Gate Pass say 可 (may): from rules version 3 `decline` ends every
    `card_target` menu, and declining does nothing but put the card under the pile and draw one;
    version 2 never offers it."""
    st = GAME.new_state_under(version, n, seed)
    rng = random.Random(seed)
    while st.pending():
        d = st.pending()[0]
        if d.kind == "card_target" and version == "2":
            assert "decline" not in d.option_ids()
        if d.kind == "card_target" and version == "3":
            assert d.option_ids()[-1] == "decline"
            card = d.options[-1].data["card"]
            other = st.clone()
            other.apply({d.seat: "decline"})
            declined, drawn = other.events[len(st.events):][:2]
            assert declined == {"type": "card_declined", "seat": d.seat, "card": card}
            assert drawn["type"] == "draw" and other.pile[0] == card
        st.apply({d.seat: rng.choice(d.options).id for d in st.pending()})
