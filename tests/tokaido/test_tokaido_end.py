"""Rule scenarios: end triggers, the round played out, scoring and ties (rules page: End and
scoring), from positions played to the end or finished by hand."""

from __future__ import annotations

import pytest

from referee.core import GameOverError, IllegalChoiceError, Result
from referee.games.tokaido_duo import scoring
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import act, build, decision, events, ids, pick


def _result(s: TokaidoState) -> Result:
    res = s.result()
    assert res, "the game is not over"
    return res


def _finish(s: TokaidoState) -> Result:
    """End the game here, by hand (scoring only reads the final table)."""
    s.over, s.triggers = True, ["test"]
    return _result(s)


def _play_out(s: TokaidoState) -> None:
    """Answer the first option to the end (first options score nothing here: "nothing",
    "decline" or a plain move come first)."""
    while s.pending():
        pick(s, ids(s)[0])


def _play_out_seat(s: TokaidoState, seat: int) -> None:
    while decision(s).seat == seat:
        pick(s, ids(s)[0])


def test_the_round_is_played_out_after_a_trigger() -> None:
    """"Triggers (either seat) ... The round is played to its end (all three dice), then the
    game ends." Seat 0 reaches temple 9 with the round's first die; then seat 1 reaches it with
    the second die, seat 0 still uses the third; no new round starts, and a finished game
    refuses answers."""
    s = build(pilgrims=(10, None), temple=(8, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert s.triggers and not s.is_over and decision(s).seat == 1
    pick(s, "merchant")
    while s.pending():
        assert s.used.count(-1) <= 1
        pick(s, ids(s)[0])
    res = _result(s)
    assert res.reason.startswith("temple 9 reached by seat 0")
    assert res.reason.endswith("round played out") and all(u >= 0 for u in s.used)
    with pytest.raises(GameOverError):
        s.apply({0: "pilgrim"})
    s = build(first=0, dice=(3, 1, 1), pilgrims=(1, 10), temple=(1, 8))
    rnd = s.round
    pick(s, "merchant")
    pick(s, ids(s)[0])
    pick(s, "pilgrim")
    pick(s, "move:13:effect")
    assert s.triggers == ["temple 9 reached by seat 1"] and not s.is_over
    assert (decision(s).seat, decision(s).kind, s.character) == (0, "move", 2)
    _play_out(s)
    assert s.is_over and s.round == rnd and s.used == [1, 0, 0]
    assert [e[2] for e in events(s, "die")] == ["merchant", "pilgrim", "artist"]
    assert _result(s).reason == "temple 9 reached by seat 1; round played out"


def test_trigger_on_the_last_die_ends_the_game_after_that_action_hot_spring_included() -> None:
    """A trigger on the round's third die: the action is still finished (the hot spring may be
    spent on it, its repeat too), then the game ends without another round."""
    s = build(first=0, dice=(2, 1, 1), pilgrims=(10, 30), garden=(5, 1), spring=0)
    pick(s, "merchant")
    pick(s, ids(s)[0])
    pick(s, "spring:pass")
    pick(s, "artist")
    _play_out_seat(s, 1)
    pick(s, "move:12:effect")  # seat 0's pilgrim: garden 6
    assert s.triggers == ["garden 6 reached by seat 0"] and decision(s).kind == "hot_spring"
    pick(s, "spring:use")
    pick(s, "move:14:effect")  # 12 + 2 = C4
    assert s.is_over and s.round == 1 and s.coins[0] > 0
    assert events(s, "end") == [("end", "garden 6 reached by seat 0")]


def test_two_triggers_in_one_round_are_both_reported() -> None:
    """"Triggers (either seat)": seat 0 reaches temple 9, then seat 1 sells for its 6th gold
    slab in the same round; the game ends after the round, naming both."""
    s = build(first=0, dice=(3, 1, 1), pilgrims=(10, 30), temple=(8, 1), merchants=(None, "M3"),
              coins=(0, 8), slabs=(0, 5), wares=(None, {"doll": 1}),
              boutiques={"C3": ("doll", 3)})
    pick(s, "pilgrim")
    pick(s, "move:13:effect")
    pick(s, "merchant")
    pick(s, "move:C3:sell:1")
    assert s.triggers == ["temple 9 reached by seat 0", "gold slab 6 gained by seat 1"]
    _play_out(s)
    assert _result(s).reason == ("temple 9 reached by seat 0; gold slab 6 gained by seat 1; "
                                 "round played out")


def test_rulebook_example_scores_95() -> None:
    """"The rulebook's example: temple 7, garden 6, 5 slabs, 6 gifts = 42 + 35 + 18 = 95."
    Scored from the table as it stands, and reached in play: seat 0 (temple 7, garden 5,
    5 slabs, 6 gifts) steps onto a garden; garden 6 ends the game after the round."""
    s = build(temple=(7, 1), garden=(6, 1), slabs=(5, 0), gifts=(6, 0), revealed=(6, 0))
    assert scoring.breakdown(s, 0) == {"pilgrim": 42, "merchant": 35, "artist": 18}
    res = _finish(s)
    assert res.seats[0].score == 95 and sum(res.seats[0].breakdown.values()) == 95
    assert res.winners == (0,)
    s = build(first=0, dice=(2, 1, 1), pilgrims=(10, 30), temple=(7, 1), garden=(5, 1),
              slabs=(5, 0), gifts=(6, 0), revealed=(6, 0))
    pick(s, "pilgrim")
    pick(s, "move:12:effect")
    assert s.triggers == ["garden 6 reached by seat 0"]
    _play_out(s)
    res = _result(s)
    assert res.seats[0].breakdown == {"pilgrim": 42, "merchant": 35, "artist": 18}
    assert res.seats[0].score == 95 and res.winners == (0,)
    assert scoring.breakdown(s, 1) == {"pilgrim": 1, "merchant": 0, "artist": 0}


def _tie_position(coins: tuple[int, int]) -> TokaidoState:
    """Seat 0: temple 8 x garden 1, its pilgrim reaches temple 9 (score 9). Seat 1: 3 x 3 = 9.
    No wares, no revealed paintings: the other dice cannot change a score."""
    s = build(first=0, dice=(3, 1, 1), pilgrims=(10, 30), temple=(8, 3), garden=(1, 3),
              coins=coins)
    pick(s, "pilgrim")
    pick(s, "move:13:effect")
    _play_out(s)
    return s


def test_tie_goes_to_more_coins() -> None:
    """"Highest total wins; tie: more coins left wins". 6 = 6, 7 coins beat 4; after a real
    ending, 9 = 9 and 3 coins beat 2."""
    res = _finish(build(temple=(3, 3), garden=(2, 2), coins=(4, 7)))
    assert res.seats[0].score == res.seats[1].score == 6
    assert res.winners == (1,) and [x.rank for x in res.seats] == [2, 1]
    s = _tie_position((3, 2))
    res = _result(s)
    assert [x.score for x in res.seats] == [9, 9] and s.coins == [3, 2]
    assert res.winners == (0,) and [x.rank for x in res.seats] == [1, 2]


def test_still_tied_both_win() -> None:
    """"still tied: both win (a draw)." 6 = 6 with 4 coins each; after a real ending, 9 = 9
    and 4 coins each."""
    res = _finish(build(temple=(3, 3), garden=(2, 2), coins=(4, 4)))
    assert res.winners == (0, 1) and [x.rank for x in res.seats] == [1, 1]
    s = _tie_position((4, 4))
    res = _result(s)
    assert [x.score for x in res.seats] == [9, 9] and s.coins == [4, 4]
    assert res.winners == (0, 1) and [x.rank for x in res.seats] == [1, 1]


def test_leftovers_score_nothing() -> None:
    """"Wares, coins and paintings left score nothing." """
    s = build(coins=(9, 0), wares=({"fan": 5}, None), revealed=(7, 0))
    assert scoring.breakdown(s, 0) == {"pilgrim": 1, "merchant": 0, "artist": 0}


def test_illegal_answers_are_refused() -> None:
    """An id not offered, the seat not asked, or two seats at once: refused."""
    s = build()
    with pytest.raises(IllegalChoiceError, match="'teleport' is not an option"):
        s.apply({0: "teleport"})
    with pytest.raises(IllegalChoiceError):
        s.apply({1: "pilgrim"})
    with pytest.raises(IllegalChoiceError):
        s.apply({0: "pilgrim", 1: "pilgrim"})
