"""Rule scenarios: solo play against the Automa (rules page: Solo play; seed 002 as settled
there). The Automa's numbers are placeholders from the board data (level 2: ranks 2, 4, 7, 10,
13, ...; wave spaces 3, 6, 8; coin zones Z2, Z6; painting town C4 = ring 14).
"""

from __future__ import annotations

import pytest

from tokaido_position import BOARD, build, decision, events, ids, pick, reset_round

from referee.core import Result
from referee.games.tokaido_duo.automa import AutomaTracks
from referee.games.tokaido_duo.board import CHARACTERS
from referee.games.tokaido_duo.state import TokaidoState


def _tracks(s: TokaidoState) -> AutomaTracks:
    assert s.automa is not None
    return s.automa


def _result(s: TokaidoState) -> Result:
    res = s.result()
    assert res is not None
    return res


def _automa_round(s: TokaidoState, dice: tuple[int, int, int], order: list[int] | None = None) -> None:
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


def test_rule_1_skipped_when_holding_all_three_waves() -> None:
    """"picks a die by (1) pilgrim to a seashore if it holds fewer than 3 waves": holding all
    three, the pilgrim's seashore (8 + 3 = 11) is not chosen; (2) the artist (Z2 -> Z3) rises."""
    s = build(automa=2, pilgrims=(None, 8), artists=(None, "Z2"), merchants=(None, "C3"),
              waves={c: (side[0], 1) for c, side in zip(CHARACTERS, BOARD.waves)})
    _automa_round(s, (3, 1, 1), order=[0, 1, 2])  # merchant C3 -> C4: the painting town
    assert _first_die(s) == ("artist", 1)


def test_rule_1_comes_before_a_higher_rank_that_rises() -> None:
    """Rule (1) before rule (2): the merchant's rank is highest and its move rises, yet the
    pilgrim goes to the seashore for a wave."""
    s = build(automa=2, pilgrims=(None, 8), merchants=(None, "C2"))
    _tracks(s).pos[1] = 4
    _automa_round(s, (3, 1, 1))
    assert _first_die(s) == ("pilgrim", 3) and s.wave_holder.count(1) == 1


def test_rule_2_skips_a_higher_rank_whose_move_does_not_rise() -> None:
    """"(2) the die of highest rank whose move raises a rank": the merchant has the highest
    rank but its move ends on the painting town C4; the artist (Z2 -> Z3, no coin) rises."""
    s = build(automa=2, pilgrims=(None, 3), merchants=(None, "C3"), artists=(None, "Z2"))
    _tracks(s).pos[1] = 4
    _automa_round(s, (3, 1, 1), order=[1, 0, 2])  # pilgrim 3 -> 6: a hot spring
    assert _first_die(s) == ("artist", 1) and _tracks(s).pos == [0, 4, 1]


def test_rule_3_takes_the_highest_value_and_moves() -> None:
    """"(3) the highest value": nothing rises (pilgrim to a hot spring, merchant to C4, artist
    to a coin zone); the artist shows 3, the largest: Z3 -> Z6 by the loop, no rank."""
    s = build(automa=2, pilgrims=(None, 4), merchants=(None, "C3"), artists=(None, "Z3"))
    _automa_round(s, (2, 1, 3), order=[0, 1, 2])  # pilgrim 4 -> 6: a hot spring
    assert _first_die(s) == ("artist", 3)
    assert s.artists[1] == BOARD.zone_index("Z6") and _tracks(s).pos == [0, 0, 0]


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


def test_a_wave_gained_past_the_last_wave_space_goes_off_the_track() -> None:
    """Seed 002: the tile goes on the first wave space ahead of the token, "if there is none,
    off the track": the rank is then unaffected."""
    s = build(automa=2, pilgrims=(None, 8))
    _tracks(s).pos = [8, 0, 0]
    rank = _tracks(s).rank(0)
    _automa_last_die(s, "pilgrim", 3)
    assert s.wave_holder[0] == 1 and _tracks(s).wave_at[0] == 0 and _tracks(s).rank(0) == rank


def test_automa_end_trigger_then_the_round_is_played_out() -> None:
    """"the extra end trigger (a rank token reaching the end)", with the round played to its
    end: the human still uses its die, the Automa its last one."""
    s = build(automa=2, pilgrims=(10, 3), artists=("Z4", "Z2"), merchants=(None, "C3"))
    _tracks(s).pos[2] = 9
    _automa_round(s, (3, 1, 1), order=[2, 1, 0])
    assert _first_die(s) == ("artist", 1) and _tracks(s).pos[2] == 10
    assert s.triggers and not s.is_over and decision(s).seat == 0
    pick(s, ids(s)[0])
    while s.pending():
        pick(s, ids(s)[0])
    assert s.is_over and len(events(s, "die")) == 3
    res = _result(s)
    assert res.seats[1].breakdown["artist"] == 38  # the track's final number (placeholder)


def test_solo_higher_score_wins_whatever_the_coins() -> None:
    """"its score (sum of its three ranks)"; the tie rule only matters on a tie."""
    s = build(automa=2, temple=(3, None), garden=(3, None), coins=(0, None))
    s.over, s.triggers = True, ["test"]
    res = _result(s)
    assert [x.score for x in res.seats] == [9, 6] and res.winners == (0,)
    s = build(automa=2, coins=(9, None))
    s.over, s.triggers = True, ["test"]
    assert _result(s).winners == (1,)  # 1 against 2 + 2 + 2: coins do not help
