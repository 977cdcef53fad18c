"""Rule scenarios: the hot spring token (rules page: Hot spring token; Decisions 5)."""

from __future__ import annotations

from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, act, build, decision, events, ids, pick


def _answer_until(s: TokaidoState, seat: int, kind: str) -> None:
    """Answer with the first option until ``seat`` is asked a ``kind`` question."""
    while (decision(s).seat, decision(s).kind) != (seat, kind):
        pick(s, ids(s)[0])


def test_the_token_repeats_the_same_die_with_its_effect_and_returns_to_the_board() -> None:
    """"spend the token to use the same die again at once: same character, same value (no
    reroll), move and effect ... The token returns to the board." The pilgrim 10 -> 12 -> 14;
    the merchant C6 -> M3 -> M4 with a 1 twice (C6 is free once left), drawing there; the
    artist Z3 -> Z4 -> Z3, painting on each arrival."""
    s = build(pilgrims=(10, None), spring=0)
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert decision(s).kind == "hot_spring" and ids(s) == ["spring:pass", "spring:use"]
    pick(s, "spring:use")
    assert s.spring_holder == -1 and ids(s) == ["move:14:effect", "move:14:decline"]
    pick(s, "move:14:effect")
    assert s.garden[0] == 2 and s.coins[0] > 0 and decision(s).seat == 1
    s = build(merchants=("C6", None), pilgrims=(1, 2), spring=0, dice=(2, 1, 3))
    pick(act(s, 0, "merchant", 1), "move:M3:nothing")
    pick(s, "spring:use")
    assert s.spring_holder == -1
    assert events(s, "spring_used") == [("spring_used", 0, "merchant", 1)]
    assert {i.split(":")[1] for i in ids(s)} == {"C3", "C6", "M2", "M4"}
    pick(s, "move:M4:draw")
    assert s.merchants[0] == BOARD.town_index("M4") and sum(s.wares[0]) == 2
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")
    assert s.dice == [2, 1, 3] and s.used == [-1, 0, -1]
    s = build(artists=("Z3", None), pilgrims=(15, 10), spring=0)
    pick(act(s, 0, "artist", 1), "move:Z4:paint")
    pick(s, "spring:use")
    pick(s, "move:Z3:paint")
    assert s.artists[0] == BOARD.zone_index("Z3") and s.revealed[0] == 2
    assert [e[0] for e in s.events if e[0] in ("paint", "spring_used")] == [
        "paint", "spring_used", "paint"]


def test_pilgrim_waves_may_be_used_either_way_on_the_repeat() -> None:
    """"pilgrim waves may be used either way": Hasty on both moves (10 -> 13, then 15 or 16);
    the first move declines Tranquil (11 -> 13), the repeat may still use it (13 -> 14)."""
    s = build(pilgrims=(10, None), spring=0, waves={"pilgrim": ("hasty", 0)})
    pick(act(s, 0, "pilgrim", 2), "move:13:effect")
    pick(s, "spring:use")
    assert ids(s) == ["move:15:effect", "move:15:decline", "move:16:effect", "move:16:decline"]
    s = build(pilgrims=(11, None), spring=0, waves={"pilgrim": ("tranquil", 0)})
    act(s, 0, "pilgrim", 2)
    assert ids(s) == ["move:13:effect", "move:13:decline", "move:12:effect", "move:12:decline"]
    pick(s, "move:13:effect")
    pick(s, "spring:use")
    assert ids(s) == ["move:15:effect", "move:15:decline", "move:14:effect", "move:14:decline"]
    pick(s, "move:14:effect")
    assert s.pilgrims[0] == 14 and s.temple[0] == 2 and s.coins[0] > 0


def test_it_cannot_pay_for_the_action_that_gained_it() -> None:
    """"It cannot be spent on the action that gained it": taken on a hot spring, no repeat is
    offered; a repeat (0 -> 3 -> 6) that lands on the hot spring takes the token back from the
    board, and no second repeat follows."""
    s = build(pilgrims=(13, None), spring=None)
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
    assert s.spring_holder == 0 and (decision(s).seat, decision(s).kind) == (1, "choose_die")
    s = build(pilgrims=(0, 20), spring=0)
    pick(act(s, 0, "pilgrim", 3), "move:3:decline")
    pick(s, "spring:use")
    assert s.spring_holder == -1
    pick(s, "move:6:effect")
    assert s.spring_holder == 0 and (decision(s).seat, decision(s).kind) == (1, "choose_die")


def test_a_later_die_of_the_same_round_may_spend_it() -> None:
    """"... but a later die of the same round may spend it." """
    s = build(pilgrims=(13, None), spring=None, artists=("Z3", "Z1"))
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
    pick(s, "merchant")
    while decision(s).seat == 1:
        pick(s, ids(s)[0])
    assert decision(s).kind == "move" and s.character == 2  # seat 0's last die: the artist
    pick(s, ids(s)[0])
    assert decision(s).kind == "hot_spring"
    pick(s, "spring:use")
    assert decision(s).kind == "move" and s.character == 2 and s.spring_holder == -1


def test_the_opponents_pilgrim_takes_the_token_before_it_is_spent() -> None:
    """"If the opponent's pilgrim lands on a hot spring, the opponent takes the token."
    Seat 1 holds it; seat 0's first die steals it; seat 1's action then offers no repeat, and
    seat 0's last die of the round (not the action that gained it) may spend it."""
    s = build(pilgrims=(13, None), spring=1, dice=(3, 1, 1), first=0)
    pick(s, "pilgrim")
    pick(s, "move:16:effect")
    assert s.spring_holder == 0 and events(s, "spring") == [("spring", 0, 1)]
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")
    pick(s, "merchant")
    while decision(s).seat == 1:
        assert decision(s).kind != "hot_spring"
        pick(s, ids(s)[0])
    pick(s, ids(s)[0])  # seat 0's artist move
    assert (decision(s).seat, decision(s).kind, ids(s)) == (0, "hot_spring",
                                                           ["spring:pass", "spring:use"])


def test_passing_keeps_the_token_for_a_later_die() -> None:
    """"may spend": declining keeps the token, offered again after the seat's next die."""
    s = build(pilgrims=(10, 20), spring=0, dice=(2, 1, 1), first=0)
    pick(s, "pilgrim")
    pick(s, "move:12:decline")
    pick(s, "spring:pass")
    assert s.spring_holder == 0
    pick(s, "merchant")
    _answer_until(s, 0, "hot_spring")
    assert s.character == 2 and s.spring_holder == 0


def test_no_question_when_not_held() -> None:
    """Decisions 5: "asked only when legal": the opponent's token offers this seat nothing."""
    s = build(pilgrims=(10, None), spring=1)
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")


def test_offered_after_the_opponent_returns_a_ware_for_lost_robust() -> None:
    """"After a seat resolves a die it may spend the token": the die is resolved only once
    the opponent has returned a ware for the Robust tile it lost ("return one at once"); then
    the hot spring is offered to the seat that used the die."""
    s = build(pilgrims=(8, None), spring=0, wares=(None, {"fan": 3, "doll": 3}),
              waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                     "merchant": ("robust", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert (decision(s).seat, decision(s).kind) == (1, "return_ware")
    pick(s, "return:doll")
    assert (decision(s).seat, decision(s).kind) == (0, "hot_spring")
    assert s.wares[1] == [0, 0, 2, 3]
