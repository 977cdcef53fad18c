"""Scenario tests: the artist (rules page: Artist, Proficient, Inspired) and the hot spring."""

from __future__ import annotations

from tokaido_position import act, build, decision, events, ids, pick

TILES0 = ["moon", "bamboo", "moon", "moon", "waterfall", "waterfall", "waterfall", "mountain",
          "mountain", "bamboo"]


def _data(s, option_id: str) -> dict:
    return dict(next(o.data for o in decision(s).options if o.id == option_id))


def test_exact_zone_count_never_revisiting_the_start_zone() -> None:
    """"Moves through exactly N zones ... never into a zone already visited this move (the
    start zone included)." From Z4 (next to Z3 and Z5), two steps never end on Z4."""
    s = act(build(artists=("Z4", "Z1"), pilgrims=(0, 1)), 0, "artist", 2)
    assert {i.split(":")[1] for i in ids(s)} == {"Z2", "Z3", "Z5", "Z6"}


def _crowded_z4(**kw):
    """Z4 borders ring 14-18 and M4: both pilgrims, both merchants and seat 1's artist."""
    base = dict(artists=("Z3", "Z4"), pilgrims=(15, 17), merchants=("C5", "M4"))
    base.update(kw)
    return build(**base)


def test_paint_counts_every_other_meeple_around_the_zone() -> None:
    """"reveal as many face-down tiles as there are other meeples (either seat's) in the
    arrival zone: on the ring spaces and mountain towns on its border, plus the other artist
    if in the zone. The artist itself does not count." """
    s = act(_crowded_z4(), 0, "artist", 1)
    assert _data(s, "move:Z4:paint")["reveal"] == 5
    pick(s, "move:Z4:paint")
    assert s.revealed[0] == 5 and len(events(s, "paint")[0][2]) == 5


def test_the_other_artist_in_a_neighbouring_zone_does_not_count() -> None:
    s = act(_crowded_z4(artists=("Z3", "Z5")), 0, "artist", 1)
    assert _data(s, "move:Z4:paint")["reveal"] == 4


def test_proficient_reveals_one_more_and_fewer_left_reveals_all() -> None:
    """"Proficient: +1. Reveal in slot order; if fewer remain, reveal all." """
    s = act(_crowded_z4(waves={"artist": ("proficient", 0)}), 0, "artist", 1)
    assert _data(s, "move:Z4:paint+1")["reveal"] == 6
    s = act(_crowded_z4(waves={"artist": ("proficient", 0)}, revealed=(8, None)), 0, "artist", 1)
    z4 = [i for i in ids(s) if i.startswith("move:Z4")]
    assert z4 == ["move:Z4:nothing", "move:Z4:paint"]  # +1 would change nothing
    assert _data(s, "move:Z4:paint")["reveal"] == 2


def test_gift_the_first_revealed_tile_when_the_icon_matches() -> None:
    """"Gift: if the arrival zone's icon matches the first revealed (not yet gifted) tile in
    slot order, remove it. One tile per action." """
    s = build(artists=("Z3", None), tiles=(TILES0, None), revealed=(2, None))
    act(s, 0, "artist", 1)
    assert "move:Z4:gift" in ids(s) and "move:Z2:gift" not in ids(s)
    pick(s, "move:Z4:gift")
    assert (s.gifts[0], s.revealed[0]) == (1, 2)
    assert events(s, "gift") == [("gift", 0, "moon", 1)]


def test_inspired_matches_a_passed_zone_and_the_start_zone() -> None:
    """"Inspired: the icon of the start zone or of any zone passed also matches." Z2
    (waterfall) -> Z3 (bamboo) -> Z4 (moon)."""
    bamboo_first = ["bamboo"] + [t for t in TILES0 if t != "bamboo"] + ["bamboo"]
    plain = act(build(artists=("Z2", None), tiles=(bamboo_first, None), revealed=(1, None)),
                0, "artist", 2)
    assert "move:Z4:gift" not in ids(plain)
    s = build(artists=("Z2", None), tiles=(bamboo_first, None), revealed=(1, None),
              waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 2)
    assert "move:Z4:gift" in ids(s)
    assert _data(s, "move:Z4:gift")["via"] == ["Z2", "Z3", "Z4"]  # the matching path
    pick(s, "move:Z4:gift")
    assert s.gifts[0] == 1
    waterfall_first = ["waterfall"] + TILES0[:6] + TILES0[7:]
    s = build(artists=("Z2", None), tiles=(waterfall_first, None), revealed=(1, None),
              waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 2)
    assert "move:Z4:gift" in ids(s)  # the start zone's icon


def test_tenth_gift_triggers_the_end() -> None:
    """"Gifting the 10th tile triggers the end." """
    s = build(artists=("Z3", None), tiles=(TILES0[1:] + ["moon"], None), revealed=(10, None),
              gifts=(9, None))
    pick(act(s, 0, "artist", 1), "move:Z4:gift")
    assert s.gifts[0] == 10 and s.triggers == ["painting 10 gifted by seat 0"]


def test_hot_spring_repeats_the_same_die_and_returns_to_the_board() -> None:
    """"spend the token to use the same die again at once: same character, same value (no
    reroll), move and effect ... The token returns to the board." """
    s = build(pilgrims=(10, None), spring=0)
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert decision(s).kind == "hot_spring" and ids(s) == ["spring:pass", "spring:use"]
    pick(s, "spring:use")
    assert s.spring_holder == -1 and ids(s) == ["move:14:effect", "move:14:decline"]
    pick(s, "move:14:effect")
    assert s.garden[0] == 2 and s.coins[0] > 0 and decision(s).seat == 1


def test_hot_spring_cannot_pay_for_the_action_that_gained_it() -> None:
    """"It cannot be spent on the action that gained it" """
    s = build(pilgrims=(13, None), spring=None)
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
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


def test_opponent_steals_the_hot_spring_before_it_is_spent() -> None:
    """"If the opponent's pilgrim lands on a hot spring, the opponent takes the token." """
    s = build(pilgrims=(13, None), spring=1)
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
    assert s.spring_holder == 0 and events(s, "spring") == [("spring", 0, 1)]
    pick(s, "merchant")
    while decision(s).seat == 1:
        assert decision(s).kind != "hot_spring"
        pick(s, ids(s)[0])


def test_gift_takes_the_first_revealed_tile_not_yet_gifted() -> None:
    """"the first revealed (not yet gifted) tile in slot order": slot 0 is gone, slot 1
    (bamboo) is next, not the moon in slot 2."""
    s = build(artists=("Z4", None), tiles=(TILES0, None), revealed=(3, None), gifts=(1, None))
    act(s, 0, "artist", 1)
    assert "move:Z3:gift" in ids(s) and not any(i.endswith(":gift") for i in ids(s)
                                               if not i.startswith("move:Z3"))
    pick(s, "move:Z3:gift")
    assert (s.gifts[0], s.view(0)["players"][0]["next_gift"]) == (2, "moon")


def test_pilgrim_waves_apply_again_on_the_repeat() -> None:
    """"pilgrim waves may be used either way" on the hot spring's repeat."""
    s = build(pilgrims=(10, None), spring=0, waves={"pilgrim": ("hasty", 0)})
    pick(act(s, 0, "pilgrim", 2), "move:13:effect")
    pick(s, "spring:use")
    assert ids(s) == ["move:15:effect", "move:15:decline", "move:16:effect", "move:16:decline"]
