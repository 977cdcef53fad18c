"""Rule scenarios: solo play against the Automa (rules page: Solo play; seed 002 as settled
there). The Automa's numbers are placeholders from the board data (level 2: ranks 2, 4, 7, 10,
13, ...; wave spaces 3, 6, 8; coin zones Z2, Z6; painting town C4 = ring 14).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.core import GameOptionsError, Result
from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.automa import AutomaTracks
from referee.games.tokaido_duo.board import CHARACTERS
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import (
    BOARD, act, build, decision, events, ids, pick, play_random, reset_round,
)


def _tracks(s: TokaidoState) -> AutomaTracks:
    assert s.automa is not None
    return s.automa


def _result(s: TokaidoState) -> Result:
    res = s.result()
    assert res is not None
    return res


def _finish(s: TokaidoState) -> Result:
    """End the game here, by hand (scoring only reads the final table)."""
    s.over, s.triggers = True, ["test"]
    return _result(s)


def _automa_round(s: TokaidoState, dice: tuple[int, int, int],
                  order: list[int] | None = None) -> None:
    """Start a round with the Automa (seat 1) first, with the given dice and tie order."""
    if order is not None:
        s.die_order = order
    reset_round(s, first=1, dice=dice)


def _automa_last_die(s: TokaidoState, char: str, value: int) -> None:
    """The Automa's forced last die of a round: only ``char`` is left, showing ``value``."""
    c = CHARACTERS.index(char)
    s.first_player, s.picks = 1, 2
    s.used = [0 if k != c else -1 for k in range(3)]
    s.dice[c] = value
    s.events.clear()
    s.continue_draft()


def _first_die(s: TokaidoState) -> tuple[str, int]:
    e = events(s, "die")[0]
    assert e[1] == 1
    return e[2], e[3]


def _quiet(**kw: Any) -> TokaidoState:
    """Automa pilgrim 3 steps to a hot spring; merchant 2 steps to the painting town C4."""
    base: dict[str, Any] = dict(automa=2, pilgrims=(None, 3), merchants=(None, "C2"),
                                artists=(None, "Z2"))
    base.update(kw)
    return build(**base)


def test_options_are_validated() -> None:
    assert GAME.validate_options({"automa": 3}) == {"automa": 3}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"automa": 7}, "level 1-6"), ({"automa": "2"}, "level 1-6"),
        ({"automa": True}, "level 1-6"), ({"colour": 1}, "unknown option")]
    for bad, msg in cases:
        with pytest.raises(GameOptionsError, match=msg):
            GAME.validate_options(bad)
    with pytest.raises(GameOptionsError, match="needs the option automa"):
        GAME.new_state(1, 1)
    with pytest.raises(GameOptionsError, match="1 player only"):
        GAME.new_state(2, 1, options={"automa": 2})
    with pytest.raises(GameOptionsError, match="or 2 players"):
        GAME.new_state(3, 1)


def test_starting_player_is_drawn() -> None:
    """Seed 002: "スタートプレイヤーはランダムで決定します" (the starting player is random)."""
    firsts = {GAME.new_state(1, seed, BOARD, {"automa": 2}).events[0][2] for seed in range(20)}
    assert firsts == {0, 1}


def test_the_automa_is_purple_so_the_human_plays_green_with_greens_paintings() -> None:
    """Seed 002: 「オートマは紫を担当し」: the Automa takes purple; the human plays green and gets
    green's painting set (2 moon, 2 waterfall, 3 mountain, 3 bamboo)."""
    s = GAME.new_state(1, 7, BOARD, {"automa": 2})
    view = s.view(0)
    assert [p["colour"] for p in view["players"]] == ["green", "purple"]
    icons = sorted(BOARD.icons[t] for t in s.tiles[0])
    assert icons == sorted(["moon"] * 2 + ["waterfall"] * 2 + ["mountain"] * 3 + ["bamboo"] * 3)
    duo = GAME.new_state(2, 7, BOARD)
    assert [p["colour"] for p in duo.view(0)["players"]] == ["purple", "green"]
    assert sorted(BOARD.icons[t] for t in duo.tiles[0]) == sorted(
        ["moon"] * 3 + ["waterfall"] * 3 + ["mountain"] * 2 + ["bamboo"] * 2)


def test_rule_1_pilgrim_to_a_seashore_while_holding_fewer_than_three_waves() -> None:
    """"(1) pilgrim to a seashore if it holds fewer than 3 waves", before rule (2) even when
    the merchant's rank is highest and its move rises; it takes the tile of its highest-ranked
    character (ties pilgrim > merchant > artist), placed on the first wave space ahead of that
    rank token. Holding all three, the pilgrim's seashore (8 + 3 = 11) is not chosen; (2) the
    artist (Z2 -> Z3) rises (the merchant C3 -> C4 goes to the painting town)."""
    s = build(automa=2, pilgrims=(None, 8))
    reset_round(s, first=1, dice=(3, 3, 3))
    assert events(s, "die")[0] == ("die", 1, "pilgrim", 3)
    assert s.pilgrims[1] == 11 and s.wave_holder[0] == 1 and _tracks(s).wave_at[0] == 3
    assert _tracks(s).rank(0) == 2 and decision(s).seat == 0
    s = build(automa=2, pilgrims=(None, 8), merchants=(None, "C2"))
    _tracks(s).pos[1] = 4
    _automa_round(s, (3, 1, 1))
    assert _first_die(s) == ("pilgrim", 3) and s.wave_holder.count(1) == 1
    s = build(automa=2, pilgrims=(None, 8), artists=(None, "Z2"), merchants=(None, "C3"),
              waves={c: (side[0], 1) for c, side in zip(CHARACTERS, BOARD.waves)})
    _automa_round(s, (3, 1, 1), order=[0, 1, 2])
    assert _first_die(s) == ("artist", 1)


def test_rule_2_the_highest_rank_whose_move_raises_a_rank() -> None:
    """"(2) the die of highest rank whose move raises a rank": the artist (Z3 has no coin);
    the merchant when its rank (10) beats the artist's (C2 -> C3, no painting there); not the
    merchant whose move ends on the painting town C4, though its rank is highest."""
    s = _quiet()
    reset_round(s, first=1, dice=(3, 2, 1))
    assert events(s, "die")[0] == ("die", 1, "artist", 1)
    assert _tracks(s).pos[2] == 1 and _tracks(s).rank(2) == 4
    s = _quiet()
    _tracks(s).pos[1] = 3  # merchant rank 10 beats the artist's 2
    reset_round(s, first=1, dice=(3, 1, 1))
    assert events(s, "die")[0] == ("die", 1, "merchant", 1)
    s = build(automa=2, pilgrims=(None, 3), merchants=(None, "C3"), artists=(None, "Z2"))
    _tracks(s).pos[1] = 4
    _automa_round(s, (3, 1, 1), order=[1, 0, 2])  # pilgrim 3 -> 6: a hot spring
    assert _first_die(s) == ("artist", 1) and _tracks(s).pos == [0, 4, 1]


def test_rule_3_the_highest_value() -> None:
    """"(3) the highest value" when nothing rises (pilgrim to a hot spring, merchant to C4,
    artist to a coin zone): the artist's 3, Z3 -> Z6 by its loop, no rank. The merchant's 3
    with its destination occupied: "the merchant doesn't move" (seed 002)."""
    s = build(automa=2, pilgrims=(None, 4), merchants=(None, "C3"), artists=(None, "Z3"))
    _automa_round(s, (2, 1, 3), order=[0, 1, 2])  # pilgrim 4 -> 6: a hot spring
    assert _first_die(s) == ("artist", 3)
    assert s.artists[1] == BOARD.zone_index("Z6") and _tracks(s).pos == [0, 0, 0]
    s = _quiet(pilgrims=(18, 5), artists=(None, "Z1"))
    reset_round(s, first=1, dice=(1, 3, 1))  # pilgrim 5->6 hot spring, artist Z1->Z2 coin
    assert events(s, "die")[0] == ("die", 1, "merchant", 3)
    assert events(s, "no_move") == [("no_move", 1, "merchant", 3)]
    assert s.merchants[1] == BOARD.town_index("C2")


@pytest.mark.parametrize("order,expected", [([1, 0, 2], "merchant"), ([0, 1, 2], "pilgrim")])
def test_ties_follow_the_column_order(order: list[int], expected: str) -> None:
    """"ties by a fixed die order (random per roll here)": nothing rises (pilgrim to a hot
    spring, merchant C1 -> C4 the painting town, artist to a coin zone), two dice show 3."""
    s = _quiet(artists=(None, "Z1"), merchants=(None, "C1"))
    s.die_order = order
    reset_round(s, first=1, dice=(3, 3, 1))
    assert events(s, "die")[0] == ("die", 1, expected, 3)


PILGRIM_CASES = [(10, 3, 13, True), (10, 2, 12, True), (6, 3, 9, True), (11, 3, 14, False),
                 (13, 3, 16, False), (18, 1, 19, True)]


@pytest.mark.parametrize("start,value,dest,rises", PILGRIM_CASES)
def test_pilgrim_rank_rises_on_temple_garden_or_unpainted_coastal_town(
        start: int, value: int, dest: int, rises: bool) -> None:
    """"rank rises ... for the pilgrim on a temple, a garden, or a coastal town without the
    painting marker" (not on C4 = 14, the painting town, nor on a hot spring)."""
    s = build(automa=2, pilgrims=(30, start))
    _automa_last_die(s, "pilgrim", value)
    assert s.pilgrims[1] == dest and _tracks(s).pos[0] == int(rises)
    assert s.coins == [0, 0] and s.temple == [1, 1]  # the Automa keeps no tracks or coins


@pytest.mark.parametrize("start,value,dest,rises", [
    ("C2", 1, "C3", True), ("C3", 1, "C4", False), ("C2", 3, "C5", True), ("C7", 2, "C1", True)])
def test_merchant_walks_coastal_towns_clockwise_and_rises_off_the_painting_town(
        start: str, value: int, dest: str, rises: bool) -> None:
    """"Its merchant and artist move clockwise round fixed loops (merchant: coastal towns
    only); rank rises ... for the merchant on a coastal town without the painting marker"."""
    s = build(automa=2, merchants=("M1", start), pilgrims=(1, 2))
    _automa_last_die(s, "merchant", value)
    assert BOARD.towns[s.merchants[1]] == dest and _tracks(s).pos[1] == int(rises)
    assert s.wares[1] == [0, 0, 0, 0] and sum(s.bag) == 26


@pytest.mark.parametrize("start,value,dest,rises", [
    ("Z2", 1, "Z3", True), ("Z1", 1, "Z2", False), ("Z4", 2, "Z6", False), ("Z7", 3, "Z2", False),
    ("Z7", 2, "Z1", True), ("Z8", 1, "Z1", True)])
def test_artist_walks_its_loop_and_rises_on_a_zone_without_a_coin(
        start: str, value: int, dest: str, rises: bool) -> None:
    """"rank rises for the artist on a zone without a coin marker" (Z2 and Z6 carry one)."""
    s = build(automa=2, artists=("Z5", start))
    _automa_last_die(s, "artist", value)
    assert BOARD.zones[s.artists[1]] == dest and _tracks(s).pos[2] == int(rises)


def test_rank_track_with_wave_tiles() -> None:
    """"rank = the first number ahead of the token, skipping a wave tile's space"; reaching a
    wave tile: one more space, then the tile is placed again; a tile goes on the first wave
    space ahead of the token, "if there is none, off the track", and the rank is then
    unaffected (seed 002). Level factors scale the level-2 numbers, rounded half up."""
    t = AutomaTracks(BOARD, 2)
    assert t.rank(0) == 2
    t.place_wave(0)
    assert t.wave_at[0] == 3
    t.advance(0)
    t.advance(0)
    assert t.pos[0] == 2 and t.rank(0) == 10  # space 3 is covered: space 4 shows
    t.advance(0)
    assert t.pos[0] == 4 and t.wave_at[0] == 6 and t.rank(0) == 13
    assert AutomaTracks(BOARD, 6).rank(0) == 3  # 2 x 1.6 = 3.2 -> 3 (placeholder numbers)
    s = build(automa=2, pilgrims=(None, 8))
    _tracks(s).pos = [8, 0, 0]
    rank = _tracks(s).rank(0)
    _automa_last_die(s, "pilgrim", 3)
    assert s.wave_holder[0] == 1 and _tracks(s).wave_at[0] == 0 and _tracks(s).rank(0) == rank


def test_automa_token_at_the_end_triggers_then_the_round_is_played_out() -> None:
    """"the extra end trigger (a rank token reaching the end)", with the round played to its
    end: the human still uses its die, the Automa its last one; the track's final number
    scores."""
    s = _quiet()
    _tracks(s).pos[2] = 9
    reset_round(s, first=1, dice=(3, 2, 1))
    assert _tracks(s).pos[2] == 10 and _tracks(s).rank(2) == 38
    assert s.triggers == ["the Automa's artist rank token reached the end of its track"]
    s = build(automa=2, pilgrims=(10, 3), artists=("Z4", "Z2"), merchants=(None, "C3"))
    _tracks(s).pos[2] = 9
    _automa_round(s, (3, 1, 1), order=[2, 1, 0])
    assert _first_die(s) == ("artist", 1) and _tracks(s).pos[2] == 10
    assert s.triggers and not s.is_over and decision(s).seat == 0
    pick(s, ids(s)[0])
    while s.pending():
        pick(s, ids(s)[0])
    assert s.is_over and len(events(s, "die")) == 3
    assert _result(s).seats[1].breakdown["artist"] == 38  # the final number (placeholder)


def test_solo_score_and_tie_rule() -> None:
    """"its score (sum of its three ranks)" and the tie rule: "the human wins a tie if holding
    any coin", else a shared result; the tie rule only matters on a tie (a higher score wins
    whatever the coins, and coins do not save a lower one)."""
    s = build(automa=2, temple=(2, None), garden=(3, None))
    s.coins[0] = 1
    res = _finish(s)
    assert [x.score for x in res.seats] == [6, 6]
    assert res.seats[1].breakdown == {"pilgrim": 2, "merchant": 2, "artist": 2}
    assert res.winners == (0,) and res.extra["automa_numbers"] == "placeholder"
    s.coins[0] = 0
    assert _finish(s).winners == (0, 1)
    s = build(automa=2, temple=(3, None), garden=(3, None), coins=(0, None))
    res = _finish(s)
    assert [x.score for x in res.seats] == [9, 6] and res.winners == (0,)
    assert _finish(build(automa=2, coins=(9, None))).winners == (1,)  # 1 against 2 + 2 + 2


def test_automa_never_decides_and_games_end() -> None:
    rng = random.Random(7)
    for seed in range(30):
        s = GAME.new_state(1, seed, BOARD, {"automa": 1 + seed % 6})
        while s.pending():
            assert decision(s).seat == 0
            s.apply({0: rng.choice(decision(s).options).id})
        res = s.result()
        assert res is not None and len(res.seats) == 2
    play_random(build(automa=4), rng)


def test_automa_takes_robust_and_the_player_returns_a_ware() -> None:
    """The Automa's seashore with the board empty takes from the player ("from the player's
    tiles"), and "losing Robust with 6 wares: return one at once" applies to the player."""
    s = build(automa=2, pilgrims=(None, 8), wares=({"fan": 4, "doll": 2}, None),
              waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                     "merchant": ("robust", 0)})
    reset_round(s, first=1, dice=(3, 3, 3))
    assert s.wave_holder[1] == 1 and _tracks(s).wave_at[1] == 3
    d = decision(s)
    assert (d.seat, d.kind) == (0, "return_ware")
    s.apply({0: "return:doll"})
    assert s.wares[0] == [0, 0, 1, 4] and (decision(s).seat, decision(s).kind) == (0, "choose_die")


def test_player_steals_a_wave_from_the_automa() -> None:
    """The player's seashore with the board empty takes an Automa tile off its card."""
    s = build(automa=2, pilgrims=(8, None), waves={"pilgrim": ("hasty", 1),
                                                   "artist": ("inspired", 1),
                                                   "merchant": ("robust", 1)})
    t = _tracks(s)
    assert t.rank(2) == 2 and t.wave_at[2] == 3
    t.pos[2] = 2
    assert t.rank(2) == 10  # space 3 covered by the wave tile
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    pick(s, "wave:artist")
    t = _tracks(s)
    assert s.wave_holder[2] == 0 and t.wave_at[2] is None
    assert t.rank(2) == t.scaled(t.ranks[t.pos[2]])  # nothing covered any more


@pytest.mark.parametrize("holder", [-1, 0])
def test_automa_pilgrim_never_takes_the_hot_spring(holder: int) -> None:
    """Seed 002: 「オートマが受け取るのは、ここに書かれたものだけ」: the Automa receives only what its
    procedure lists, and the hot spring token is not listed: on a hot spring it takes nothing,
    neither from the board nor from the human."""
    s = _quiet(spring=holder, artists=(None, "Z1"))
    reset_round(s, first=1, dice=(3, 2, 1))  # nothing rises; pilgrim 3 -> 6 is the highest
    assert events(s, "die")[0] == ("die", 1, "pilgrim", 3)
    assert BOARD.ring[s.pilgrims[1]] == "H" and s.spring_holder == holder
    assert events(s, "spring") == []
