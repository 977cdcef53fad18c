"""The schedule: every pairing, seat-swapped pairs on one seed, rotations at larger tables."""

from __future__ import annotations

import itertools
import pickle
from collections import Counter, defaultdict

import pytest

from tournaments import TournamentError
from tournaments.fixtures import schedule
from tournaments.plan import Entrant, Plan, check_plan, default_seats, parse_entrant, parse_entrants


def plan(n: int, games: int, seats: int, seed: int = 7) -> Plan:
    entrants = tuple(Entrant(f"e{i}", "random") for i in range(n))
    return Plan("toy-race", entrants, games, seats, seed)


def test_two_seats_every_pair_plays_n_games_in_swapped_pairs():
    specs = schedule(plan(4, 6, 2), "abcd0123")
    assert len(specs) == 6 * 6  # 6 pairings, 6 games each
    per_pair = Counter(frozenset(s.entrants) for s in specs)
    assert set(per_pair) == {frozenset(p) for p in itertools.combinations(range(4), 2)}
    assert set(per_pair.values()) == {6}
    blocks = defaultdict(list)
    for s in specs:
        blocks[s.block].append(s)
    for games in blocks.values():
        first, second = games
        assert second.entrants == first.entrants[::-1]  # the same two, seats swapped
        assert first.seed == second.seed  # the same dice for both orders
    # every entrant sits in each seat equally often against each opponent
    seat_counts = Counter((s.entrants[0], s.entrants[1]) for s in specs)
    assert set(seat_counts.values()) == {3}


def test_schedule_is_deterministic_from_the_seed():
    a, b = schedule(plan(3, 4, 2, seed=1), "abcd0123"), schedule(plan(3, 4, 2, seed=1), "abcd0123")
    assert a == b
    c = schedule(plan(3, 4, 2, seed=2), "abcd0123")
    assert [s.seed for s in a] != [s.seed for s in c]
    assert len({s.seed for s in a}) == 2  # one seed per round, shared by all pairings


def test_match_ids_are_unique_and_specs_pickle():
    specs = schedule(plan(4, 4, 2), "abcd0123")
    assert len({s.match_id for s in specs}) == len(specs)
    assert [s.index for s in specs] == list(range(len(specs)))
    assert pickle.loads(pickle.dumps(specs)) == specs


@pytest.mark.parametrize("n, seats", [(4, 3), (4, 4), (5, 3), (5, 4)])
def test_multiplayer_tables_rotate_seats_over_one_seed(n, seats):
    games = 2 * seats
    specs = schedule(plan(n, games, seats), "abcd0123")
    tables = list(itertools.combinations(range(n), seats))
    assert len(specs) == len(tables) * games
    blocks = defaultdict(list)
    for s in specs:
        blocks[s.block].append(s)
    assert len(blocks) == len(tables) * 2
    for group in blocks.values():
        assert len(group) == seats and len({g.seed for g in group}) == 1
        assert len({frozenset(g.entrants) for g in group}) == 1
        # each entrant in each seat exactly once, in cyclic order
        for seat in range(seats):
            assert sorted(g.entrants[seat] for g in group) == sorted(group[0].entrants)
        for g in group[1:]:
            shift = g.index - group[0].index
            assert g.entrants == group[0].entrants[shift:] + group[0].entrants[:shift]
    assert Counter(frozenset(s.entrants) for s in specs) == {frozenset(t): games for t in tables}


def test_plan_checks():
    from support.toy import GAME

    assert [default_seats(GAME, n) for n in (2, 3, 9)] == [2, 3, 4]
    with pytest.raises(TournamentError, match="multiple of 2"):
        check_plan(GAME, plan(3, 5, 2))
    with pytest.raises(TournamentError, match="multiple of 3"):
        check_plan(GAME, plan(3, 4, 3))
    with pytest.raises(TournamentError, match="need at least 4 entrants"):
        check_plan(GAME, plan(3, 4, 4))
    with pytest.raises(TournamentError, match="not 5"):
        check_plan(GAME, plan(6, 5, 5))


def test_entrant_names():
    assert parse_entrant("greedy") == Entrant("greedy", "greedy")
    assert parse_entrant("v2=mcts:ms=50") == Entrant("v2", "mcts:ms=50")
    assert parse_entrant("mcts:ms=50") == Entrant("mcts:ms=50", "mcts:ms=50")
    url = "http://localhost:8000/bot?x=1"
    assert parse_entrant(url) == Entrant(url, url)
    assert parse_entrant("mine=" + url) == Entrant("mine", url)
    with pytest.raises(TournamentError, match="appears twice"):
        parse_entrants(["random", "random"])
    with pytest.raises(TournamentError, match="at least two"):
        parse_entrants(["random"])
    with pytest.raises(TournamentError, match="no bot"):
        parse_entrant("a=")
