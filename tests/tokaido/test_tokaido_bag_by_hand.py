"""A position built by hand may hold more wares in the bag than the game has (the move tables
stop at the game's 26): a mountain town then offers what a full bag offers, never nothing."""

from __future__ import annotations

from referee.games.tokaido_duo.moves import merchant_keys

from tokaido_position import build


def test_an_overfull_bag_offers_the_draws_of_a_full_one():
    s = build()
    s.bag = [s.bag[0] + (26 - sum(s.bag)), *s.bag[1:]]  # every ware of the game in the bag
    values = range(1, len(s.tables.draw[0][s.merchants[0]]))  # every die value offered
    full = {value: merchant_keys(s, 0, value) for value in values}
    assert any(key[2].startswith("draw") for keys in full.values() for key in keys)
    s.bag = [s.bag[0] + 40, *s.bag[1:]]
    assert {value: merchant_keys(s, 0, value) for value in values} == full
