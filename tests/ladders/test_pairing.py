"""The pure pairing of one round (ladder.pairing): everyone seated once or resting, owners
apart, byes to the least recently rested, placement against the spread of the field."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from ladder.pairing import FORCED, ROTATION, Entrant, plan_round, seat_order, table_sizes

entrants = st.lists(
    st.tuples(st.floats(1000, 2000), st.one_of(st.none(), st.integers(0, 12)),
              st.integers(-1, 5), st.booleans()),
    min_size=0, max_size=40)


@settings(max_examples=150)
@given(entrants, st.sampled_from([2, 4]), st.integers(0, 2**32))
def test_everyone_once_owners_apart_and_forced_byes_only_when_needed(rows, big, seed):
    field = [Entrant(i, r, o, rest, 0, prov, 0, (0,) * big) for i, (r, o, rest, prov) in
             enumerate(rows)]
    plan = plan_round(field, big, {}, random.Random(seed))
    assert sorted(plan.bots()) == list(range(len(field)))
    owner = {e.bot_id: e.owner for e in field}
    sizes = Counter(len(t) for t in plan.fixtures)
    assert set(sizes) <= ({2} if big == 2 else {3, 4})
    for table in plan.fixtures:
        owners = [owner[b] for b in table if owner[b] is not None]
        assert len(owners) == len(set(owners))
    rotation = [b for b in plan.byes if b.reason == ROTATION]
    unavoidable = len(field) - sum(table_sizes(len(field), big))
    assert len(rotation) <= unavoidable
    if not any(b.reason == FORCED for b in plan.byes):
        assert len(rotation) == unavoidable
    # forced byes only where one owner holds too much of the field to keep its bots apart
    groups = Counter(o for o in owner.values() if o is not None)
    tables = len(table_sizes(len(field), big))
    if not groups or max(groups.values()) <= (len(field) // 2 if big == 2 else tables - 1):
        assert not any(b.reason == FORCED for b in plan.byes), plan


def test_table_sizes_use_fours_and_threes():
    assert table_sizes(5, 4) == [4] and table_sizes(6, 4) == [3, 3]
    assert table_sizes(13, 4) == [4, 3, 3, 3] and table_sizes(2, 4) == []
    assert table_sizes(7, 2) == [2, 2, 2]


def test_byes_go_to_the_least_recently_rested():
    field = [Entrant(i, 1500.0, None, last_rest=rest) for i, rest in enumerate([3, 1, 2, 4, 5])]
    plan = plan_round(field, 2, {}, random.Random(1))
    assert [b.bot_id for b in plan.byes] == [1]


def test_opponents_are_near_in_rating_and_met_least_recently():
    field = [Entrant(i, 2000.0 - 10 * i) for i in range(40)]
    plan = plan_round(field, 2, {}, random.Random(3), p_far=0.0)
    gaps = [abs(a - b) for a, b in plan.fixtures]
    assert max(gaps) <= 64 and sorted(gaps)[len(gaps) // 2] <= 2
    met = {(0, 1): 3}
    again = plan_round(field, 2, met, random.Random(3), p_far=0.0)
    assert not any(set(t) == {0, 1} for t in again.fixtures)


def test_a_provisional_bot_meets_the_spread_of_the_field():
    field = [Entrant(i, 2000.0 - 10 * i) for i in range(50)]
    met = []
    for index in range(5):
        newcomer = Entrant(99, 1500.0, provisional=True, placement_index=index)
        plan = plan_round(field + [newcomer], 2, {}, random.Random(index), p_far=0.0)
        [table] = [t for t in plan.fixtures if 99 in t] or [()]
        met.append(next(b for b in table if b != 99))
    # opponents at the 10th, 30th, 50th, 70th, 90th percentiles of the field (best first)
    assert met == sorted(met) and met[-1] - met[0] >= 30


def test_seats_even_out_the_seat_counts():
    table = [Entrant(1, 0, seat_counts=(3, 0, 0, 0)), Entrant(2, 0, seat_counts=(0, 3, 0, 0)),
             Entrant(3, 0, seat_counts=(0, 0, 3, 0)), Entrant(4, 0, seat_counts=(0, 0, 0, 3))]
    order = seat_order(table, 4, random.Random(0))
    assert all(order[seat] != seat + 1 for seat in range(4))
