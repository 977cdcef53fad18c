"""Properties every registered game keeps, checked over random games of each one.

Parametrized over ``game_names()`` and every seat count a game allows, so a newly registered
game is checked without a line here (a seat count that cannot start without options needs an
entry in ``SETUP_OPTIONS``): options are offered until the end and only then a result; every
offered option applies and an unoffered one is refused without a trace; a clone is an exact,
independent copy; replaying the same choices from the same seed gives the same game, view for
view; and views never leak: each is JSON-ready, never names the seed, is the seat's own copy, and
a state rebuilt from it with other hidden information (``determinize``) shows the seat the same
view and asks the same question. Which data is secret is game-specific: each game's own tests
change its secrets and check that no view moves.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings, strategies as hs

from referee.core import Game, GameOverError, IllegalChoiceError, State
from referee.games import find_game, game_names

MAX_STEPS = 20_000
SEEDS = hs.integers(min_value=10**12, max_value=2**63 - 1)
"""Seeds long enough that finding one in a view's text cannot be a coincidence."""
SETUP_OPTIONS: dict[tuple[str, int], list[dict[str, Any]]] = {
    ("tokaido-duo", 1): [{"automa": level} for level in range(1, 7)],
}
"""Game options a seat count cannot start without (solo play names the Automa's level)."""


def setups() -> list[Any]:
    """(game, seat count) for every registered game (the tests' own games too)."""
    return [pytest.param(name, seats, id=f"{name}-{seats}")
            for name in game_names() for seats in find_game(name).player_counts]


def start(game: Game, seats: int, seed: int, rng: random.Random) -> State:
    choices = SETUP_OPTIONS.get((game.name, seats), [None])
    return game.new_state(seats, seed, options=rng.choice(choices))


def random_choices(state: State, rng: random.Random) -> dict[int, str]:
    return {d.seat: rng.choice(d.options).id for d in state.pending()}


def all_views(state: State) -> list[dict[str, Any]]:
    """What every seat and a spectator see now (solo games: the one human seat and beyond)."""
    return [state.view(seat) for seat in [*range(state.num_players), None]]


def play_out(state: State, rng: random.Random) -> int:
    """Random choices to the end; returns the number of decision steps."""
    for steps in range(MAX_STEPS):
        if not state.pending():
            return steps
        state.apply(random_choices(state, rng))
    raise AssertionError(f"no end after {MAX_STEPS} decision steps")


@pytest.mark.parametrize("name,seats", setups())
@settings(max_examples=12)
@given(seed=SEEDS)
def test_options_until_the_end_every_option_applies_and_others_are_refused(
        name: str, seats: int, seed: int) -> None:
    """Every step offers each asked seat at least one option, ids distinct; each offered option
    applies (on a copy); an id not offered is refused naming the seat and changes nothing. No
    question and a result come together, at the end; then ``apply`` refuses."""
    game, rng = find_game(name), random.Random(seed)
    state = start(game, seats, seed, rng)
    for _ in range(MAX_STEPS):
        pending = state.pending()
        assert (state.result() is None) == bool(pending)
        if not pending:
            break
        assert len({d.seat for d in pending}) == len(pending)
        for d in pending:
            ids = d.option_ids()
            assert ids and len(set(ids)) == len(ids), d
        chosen = random_choices(state, rng)
        asked = rng.choice(pending)
        for option in asked.options:
            state.clone().apply({**chosen, asked.seat: option.id})
        before = all_views(state)
        with pytest.raises(IllegalChoiceError, match=f"seat {asked.seat}"):
            state.apply({**chosen, asked.seat: "no-such-option"})
        assert all_views(state) == before and state.pending() == pending
        state.apply(chosen)
    result = state.result()
    assert result is not None, f"no end after {MAX_STEPS} decision steps"
    assert result.winners and all(result.seats[w].rank == 1 for w in result.winners)
    for seat in result.seats:
        assert sum(seat.breakdown.values()) == seat.score
        assert (seat.rank == 1) == (seat.seat in result.winners)
    with pytest.raises(GameOverError):
        state.apply({0: "anything"})


@pytest.mark.parametrize("name,seats", setups())
@settings(max_examples=8)
@given(seed=SEEDS)
def test_the_same_seed_and_choices_replay_the_same_game(name: str, seats: int, seed: int) -> None:
    """Dice and draws come only from the state's own seeded generator: a second game from the
    same seed, given the same answers, asks the same questions and shows the same views."""
    game = find_game(name)
    first, again = (start(game, seats, seed, random.Random(seed)) for _ in range(2))
    rng = random.Random(seed)
    while first.pending():
        assert again.pending() == first.pending()
        assert all_views(again) == all_views(first)
        choices = random_choices(first, rng)
        first.apply(choices)
        again.apply(choices)
    assert not again.pending() and again.result() == first.result()
    assert all_views(again) == all_views(first)


@pytest.mark.parametrize("name,seats", setups())
@settings(max_examples=8)
@given(seed=SEEDS, cut=hs.integers(0, 300))
def test_a_clone_is_an_exact_and_independent_copy(name: str, seats: int, seed: int,
                                                  cut: int) -> None:
    """Playing a clone to the end changes nothing in the original; the original, given the
    clone's answers, then plays the very same game (the generator is copied too)."""
    game, rng = find_game(name), random.Random(seed)
    state = start(game, seats, seed, rng)
    for _ in range(cut):
        if not state.pending():
            break
        state.apply(random_choices(state, rng))
    before = all_views(state)
    copy, answers = state.clone(), []
    while copy.pending():
        answers.append(random_choices(copy, rng))
        copy.apply(answers[-1])
    assert all_views(state) == before
    for choices in answers:
        state.apply(choices)
    assert state.result() == copy.result() and all_views(state) == all_views(copy)


def same_but_events(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Views agree on everything but the events since the seat last decided (a rebuilt state
    has no history)."""
    return {**a, "events": None} == {**b, "events": None}


@pytest.mark.parametrize("name,seats", setups())
@settings(max_examples=5)
@given(seed=SEEDS, sample=hs.integers(0, 2**32))
def test_views_never_leak(name: str, seats: int, seed: int, sample: int) -> None:
    """At every step every view is JSON-ready, never names the seed and is the seat's own copy
    (changing it changes nothing); a state rebuilt from an asked seat's view, with the hidden
    information dealt from another seed, asks that seat the same question, shows it the same
    view, and plays on to an end."""
    game, rng = find_game(name), random.Random(seed)
    state = start(game, seats, seed, rng)
    play_on_at = rng.randrange(60)
    for step in range(MAX_STEPS):
        for seat, view in zip([*range(state.num_players), None], all_views(state)):
            text = json.dumps(view, sort_keys=True)
            assert json.loads(text) == view and str(seed) not in text
            view.clear()
            assert json.dumps(state.view(seat), sort_keys=True) == text
        for d in state.pending():
            view = state.view(d.seat)
            rebuilt = game.determinize(view, sample + step)
            assert [x for x in rebuilt.pending() if x.seat == d.seat] == [d]
            assert same_but_events(rebuilt.view(d.seat), view)
            if step == play_on_at:
                play_out(rebuilt, rng)
                assert rebuilt.result() is not None
        if not state.pending():
            break
        state.apply(random_choices(state, rng))
