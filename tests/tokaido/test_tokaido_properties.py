"""Property tests: thousands of random games (two seats and solo) with the invariants of
Tokaido Duo checked after every step, and views that never show its secrets.

What every game keeps (options until the end, replay, clone, views rebuilt by ``determinize``)
is checked for all games in tests/test_games_properties.py. Sized for the CI budget (two slow
cores): about 2,500 games in all.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, scramble_hidden

MAX_STEPS = 5000
LEVELS = st.sampled_from([None, None, None, 1, 2, 3, 4, 5, 6])


def new(seed: int, level: int | None) -> TokaidoState:
    return GAME.new_state(1 if level else 2, seed, BOARD, {"automa": level} if level else None)


def check(s: TokaidoState) -> None:
    """Every invariant the rules page promises, on any state between decisions."""
    b, lim = s.board, s.board.limits
    held = [list(s.wares[0]), list(s.wares[1])]
    if s.keep_pool is not None:
        held[s.actor] = s.keep_pool
    assert sum(s.bag) + sum(map(sum, held)) == 26 and min(s.bag) >= 0
    for seat in (0, 1):
        cap = s.ware_cap(seat)
        if s.phase == "return_ware" and s.return_seat == seat:
            cap = lim["wares_robust"]  # Robust just lost: the owner is choosing what to return
        assert sum(s.wares[seat]) <= cap and min(s.wares[seat]) >= 0
        assert 0 <= s.coins[seat] < lim["coins_per_slab"]
        assert 1 <= s.temple[seat] <= lim["temple_end"] and 1 <= s.garden[seat] <= lim["garden_end"]
        assert 0 <= s.gifts[seat] <= s.revealed[seat] <= lim["paintings"]
        assert Counter(s.tiles[seat]) == Counter(b.paintings[s.colours[seat]])
    ring = list(s.pilgrims) + [b.town_ring[m] for m in s.merchants if m < 8]
    assert len(set(ring)) == len(ring), "one meeple per ring space / coastal town"
    assert all(h in (-1, 0, 1) for h in s.wave_holder) and s.spring_holder in (-1, 0, 1)
    if s.automa:
        assert all(0 <= p <= len(s.automa.ranks) for p in s.automa.pos)
    pending = s.pending()
    if pending:
        (d,) = pending
        ids = [o.id for o in d.options]
        assert len(ids) >= 2 and len(set(ids)) == len(ids)
        assert not s.is_automa(d.seat)


def play(seed: int, level: int | None) -> dict:
    s, rng = new(seed, level), random.Random(seed ^ 0x5EED)
    for _ in range(MAX_STEPS):
        check(s)
        pending = s.pending()
        if not pending:
            break
        s.apply({pending[0].seat: rng.choice(pending[0].options).id})
    res = s.result()
    assert res is not None, "the game did not end"
    assert all(sum(x.breakdown.values()) == x.score for x in res.seats)
    assert set(res.seats[0].breakdown) == {"pilgrim", "merchant", "artist"}
    return res.to_dict()


@settings(max_examples=1500)
@given(seed=st.integers(0, 2**63 - 1))
def test_two_seat_games_keep_every_invariant(seed: int) -> None:
    play(seed, None)


@settings(max_examples=1000)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
def test_solo_games_keep_every_invariant(seed: int, level: int) -> None:
    res = play(seed, level)
    assert len(res["seats"]) == 2 and res["extra"]["automa_numbers"] == "placeholder"


@settings(max_examples=25)
@given(seed=st.integers(0, 2**63 - 1), level=LEVELS, other=st.integers(0, 2**32))
def test_views_never_leak_hidden_data(seed: int, level: int | None, other: int) -> None:
    """Change the face-down tiles and the generator: no view (either seat, spectator) moves;
    the seed never shows."""
    s, rng = new(seed, level), random.Random(seed)
    while s.pending():
        c = scramble_hidden(s, random.Random(other))
        for seat in (0, 1, None):
            v = s.view(seat)
            assert c.view(seat) == v
            assert str(seed) not in repr(v) or seed < 1000
        d = s.pending()[0]
        s.apply({d.seat: rng.choice(d.options).id})


@settings(max_examples=15)
@given(seed=st.integers(0, 2**63 - 1), level=LEVELS, sample=st.integers(0, 2**32))
def test_a_state_rebuilt_from_a_view_keeps_every_invariant(seed: int, level: int | None,
                                                           sample: int) -> None:
    """``determinize`` deals the secrets again: the rebuilt state is a legal table."""
    s, rng = new(seed, level), random.Random(seed)
    while s.pending():
        d = s.pending()[0]
        check(GAME.determinize(s.view(d.seat), sample, BOARD))
        s.apply({d.seat: rng.choice(d.options).id})
