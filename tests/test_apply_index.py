"""``State.apply_index``: answering by option index plays exactly the game answering by id
plays, and refuses an index that names no option."""

from __future__ import annotations

import random

import pytest

from referee.core import IllegalChoiceError
from referee.games import find_game

CASES = [("tokaido-duo", 2, None), ("tokaido-duo", 1, {"automa": 2}), ("doubletrack", 3, None),
         ("doubletrack", 4, None)]


@pytest.mark.parametrize("name,seats,options", CASES)
def test_answers_by_index_play_the_same_game_as_answers_by_id(name, seats, options) -> None:
    """The fast path (``choice_counts`` and ``apply_index``, never asking for ``pending``) plays
    the game the id path plays, step by step."""
    game = find_game(name)
    for seed in range(5):
        by_id = game.new_state(seats, seed, options=options)
        by_index = game.new_state(seats, seed, options=options)
        rng = random.Random(seed)
        pending = by_id.pending()
        while pending:
            assert list(by_index.choice_counts()) == [(d.seat, len(d.options)) for d in pending]
            picks = {d.seat: rng.randrange(len(d.options)) for d in pending}
            by_id.apply({d.seat: d.options[picks[d.seat]].id for d in pending})
            by_index.apply_index(picks)
            assert by_index.view(None) == by_id.view(None)
            pending = by_id.pending()
        assert list(by_index.choice_counts()) == []
        assert not by_index.pending()
        assert by_index.result() == by_id.result()


@pytest.mark.parametrize("name,seats,options", CASES)
def test_the_fast_path_offers_what_pending_offers(name, seats, options) -> None:
    """Asked in any order, ``pending`` and ``choice_counts`` describe the same decisions."""
    game = find_game(name)
    state = game.new_state(seats, 7, options=options)
    rng = random.Random(7)
    while True:
        counts = state.choice_counts()
        pending = state.pending()
        assert list(counts) == [(d.seat, len(d.options)) for d in pending]
        assert all(len(d.options) > 1 for d in pending)
        if not counts:
            break
        state.apply_index({seat: rng.randrange(n) for seat, n in counts})


@pytest.mark.parametrize("name,seats,options", CASES)
def test_an_index_out_of_range_or_a_seat_not_asked_is_refused(name, seats, options) -> None:
    state = find_game(name).new_state(seats, 1, options=options)
    d = state.pending()[0]
    before = state.view(None)
    for bad in ({d.seat: len(d.options)}, {d.seat: -1}, {seats + 5: 0}, {d.seat: True},
                {d.seat: 0.0}, {d.seat: "0"}):
        with pytest.raises(IllegalChoiceError):
            state.apply_index(bad)
    assert state.view(None) == before
