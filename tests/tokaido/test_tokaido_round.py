"""Rule scenarios: components and setup, and a round (the 1-2-1 draft, moving exactly the value).

Each test quotes the sentence of the rules page (sections Components and setup; A round) it
checks, from an explicit position (see tokaido_position.py) or a seeded game.
"""

from __future__ import annotations

import random
from collections import Counter

from referee.games.tokaido_duo import GAME

from tokaido_position import (
    BOARD, act, build, decision, events, ids, pick, play_random, until_choose_die,
)


def test_setup_puts_every_component_in_place() -> None:
    """"Seat 0 (purple, compass side) starts round 1. Each seat has a pilgrim, a merchant and
    an artist meeple on its start spaces"; "Shuffle the 8 boutique tokens onto the 8 coastal
    towns. 26 wares go in the bag (kimono 5, pottery 6, doll 7, fan 8)"; "The hot spring token
    lies on the board"; "Temple and garden markers start at 1. Coins 0, gold slabs 0." """
    for seed in range(5):
        s = GAME.new_state(2, seed, BOARD)
        d = decision(s)
        assert (d.seat, d.kind, ids(s)) == (0, "choose_die", ["pilgrim", "merchant", "artist"])
        assert (s.pilgrims, s.merchants, s.artists) == (
            [25, 7], [BOARD.town_index("C6"), BOARD.town_index("C2")],
            [BOARD.zone_index("Z6"), BOARD.zone_index("Z2")])
        assert dict(zip(BOARD.wares, s.bag)) == {"kimono": 5, "pottery": 6, "doll": 7, "fan": 8}
        assert s.wares == [[0, 0, 0, 0], [0, 0, 0, 0]]
        assert sorted(s.boutiques) == list(range(8))  # each token on exactly one town
        assert (s.temple, s.garden, s.coins, s.slabs) == ([1, 1], [1, 1], [0, 0], [0, 0])
        assert s.spring_holder == -1 and s.wave_holder == [-1, -1, -1]
        assert (s.revealed, s.gifts) == ([0, 0], [0, 0])
        assert [Counter(t) for t in s.tiles] == [Counter(p) for p in BOARD.paintings]


def test_setup_shuffles_boutiques_tiles_and_wave_sides() -> None:
    """"Shuffle the 8 boutique tokens"; "Each seat's 10 painting tiles are shuffled face down";
    "Each wave tile ... is placed on the board with a random side up"."""
    states = [GAME.new_state(2, seed, BOARD) for seed in range(40)]
    assert len({tuple(s.boutiques) for s in states}) > 30
    assert len({tuple(s.tiles[0]) for s in states}) > 30
    for c, sides in enumerate(BOARD.waves):
        assert {s.wave_side[c] for s in states} == set(sides)


def test_wave_tiles_are_never_flipped() -> None:
    """"it is never flipped": the side drawn at setup stays all game, whoever holds it."""
    s = GAME.new_state(2, 21, BOARD)
    sides = list(s.wave_side)
    rng = random.Random(2)
    while s.pending():
        pick(s, rng.choice(decision(s).options).id)
        assert s.wave_side == sides


def test_dice_show_faces_from_the_data() -> None:
    """"Three dice are rolled: pilgrim, merchant, artist (faces in the data)." """
    s = play_random(GAME.new_state(2, 5, BOARD), random.Random(5))
    rolls = [e[3] for e in events(s, "round")]
    assert len(rolls) == s.round
    for c in range(3):
        assert {r[c] for r in rolls} <= set(BOARD.dice[c])


def test_draft_a_b_a_and_the_last_die_needs_no_choice() -> None:
    """"The round's first player A chooses one die and uses it; then B chooses one of the two
    left and uses it; then A uses the last." A is never asked to choose the last die: the next
    question is already the move of that die."""
    s = build(first=0, dice=(2, 1, 1), pilgrims=(10, 20), artists=("Z3", "Z5"))
    assert (decision(s).seat, ids(s)) == (0, ["pilgrim", "merchant", "artist"])
    rnd = s.round
    pick(s, "merchant")
    pick(s, ids(s)[0])  # seat 0's merchant move
    assert (decision(s).seat, decision(s).kind, ids(s)) == (1, "choose_die", ["pilgrim", "artist"])
    pick(s, "artist")
    while decision(s).seat == 1:
        pick(s, ids(s)[0])
    d = decision(s)
    assert (d.seat, d.kind, s.character, s.actor) == (0, "move", 0, 0)  # seat 0's pilgrim, unasked
    assert [(e[1], e[2]) for e in events(s, "die")] == [(0, "merchant"), (1, "artist"),
                                                       (0, "pilgrim")]
    until_choose_die(s)  # "Next round B is first", with all three dice
    assert s.round == rnd + 1 and s.used == [-1, -1, -1]
    assert (decision(s).seat, len(ids(s))) == (1, 3)


def test_first_player_alternates_round_after_round() -> None:
    """"Next round B is first." Over a whole game the round's first player goes 0, 1, 0, 1, ..."""
    s = play_random(GAME.new_state(2, 8, BOARD), random.Random(8))
    firsts = [e[2] for e in events(s, "round")]
    assert firsts == [r % 2 for r in range(len(firsts))] and len(firsts) > 4
    dies = events(s, "die")
    for r in range(len(firsts)):  # without hot spring repeats, three dice a round: A, B, A
        a = firsts[r]
        assert [e[1] for e in dies[3 * r:3 * r + 3]] in ([a, 1 - a, a], [a, 1 - a])


def test_each_die_moves_its_own_character_exactly_the_value() -> None:
    """"Using a die = moving that seat's matching character **exactly** the value": the
    merchant die moves only the merchant, by exactly that many routes (C6 -> M3 -> M2/M4/C3),
    leaving the pilgrim and the artist where they were."""
    s = act(build(merchants=("C6", "C1"), pilgrims=(1, 2)), 0, "merchant", 2)
    pil, art = list(s.pilgrims), list(s.artists)
    pick(s, "move:M4:nothing")
    assert s.merchants[0] == BOARD.town_index("M4") and (s.pilgrims, s.artists) == (pil, art)


def test_a_state_before_its_first_round_asks_nothing():
    """``setup=False`` (how ``determinize`` starts) stops before the first roll: no question
    is open yet, and asking for one says so rather than failing."""
    from referee.games.tokaido_duo.state import TokaidoState

    s = TokaidoState(BOARD, 3, setup=False)
    assert s.pending() == []
