"""Board data: the packaged file, and validation errors that name the problem."""

from __future__ import annotations

import copy
import importlib.resources
from typing import Any

import pytest

from referee.core import BoardError, GameOptionsError

from dt_support import BOARD, GAME


def test_packaged_board_file_ships_and_loads():
    resource = importlib.resources.files("referee.games.doubletrack") / "board.yaml"
    assert resource.is_file()
    board = GAME.load_board()
    assert board.version == "reconstruction-1" and board.data["version"] == "reconstruction-1"
    assert len(board.deck) == 30 and board.main_len == 56 and board.home == 60
    assert board.colours == ("red", "yellow", "blue", "green") and board.players == (3, 4)
    assert board.unit == 5 and board.start_money == 125 and board.max_roll == 12


def test_board_round_trips_through_its_data():
    again = GAME.board_from_data(BOARD.data)
    assert again.data == BOARD.data and again.squares == BOARD.squares


def test_load_board_from_a_file(tmp_path):
    import yaml
    data = copy.deepcopy(BOARD.data)
    data["money"]["start"] = 200
    path = tmp_path / "b.yaml"
    path.write_text(yaml.safe_dump(data))
    assert GAME.load_board(str(path)).start_money == 200
    assert GAME.new_state(3, 1, GAME.load_board(str(path))).money == [200] * 3


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(BoardError, match="cannot read board file"):
        GAME.load_board(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\n")
    with pytest.raises(BoardError, match="not valid YAML"):
        GAME.load_board(str(bad))
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(BoardError, match="mapping at the top level"):
        GAME.load_board(str(bad))


def edit(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BOARD.data)
    keys = path.split(".")
    target = data
    for k in keys[:-1]:
        target = target[k]
    if value is DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


DELETE = object()

CASES = [
    ("version", DELETE, "version: missing"),
    ("colours", ["red", "yellow", "blue"], "colours: expected 4 colours"),
    ("colours", ["red", "red", "blue", "green"], "colours: names must be distinct"),
    ("players", [2, 3], "players: 2 seats; the rules allow 3 or 4"),
    ("players", "four", "players: expected a list"),
    ("dice.sides", 1, "dice.sides: must be at least 2"),
    ("dice.count", "two", "dice.count: expected an integer"),
    ("hand_size", 0, "hand_size: must be at least 1"),
    ("hand_size", 8, "deck: 30 cards cannot deal 8 to 4 players"),
    ("money.unit", 0, "money.unit: must be at least 1"),
    ("money.start", 127, "money.start: 127 is not a multiple of the unit 5"),
    ("money", {"unit": 10, "start": 120}, "money.unit: 10 does not divide the $25"),
    ("money", 125, "money: expected a mapping"),
    ("deck.number", 8, "deck.number: expected a mapping"),
    ("outer.quadrant", ["SELL_A_CARD"] * 14, "outer.quadrant[0]: must be TAKE_PASS"),
    ("outer.quadrant", ["TAKE_PASS"] + ["TAKE_25"] * 12 + ["TAKE_PASS"],
     "outer.quadrant[13]: TAKE_PASS only at offset 0"),
    ("outer.quadrant", ["TAKE_PASS"] + ["TAKE_25"] * 11, "needs more than the largest roll 12"),
    ("outer.quadrant", ["TAKE_PASS", "FLY"] + ["TAKE_25"] * 12, "outer.quadrant[1]: unknown square"),
    ("outer.quadrant", ["TAKE_PASS", {"number": [5, 1]}] + ["TAKE_25"] * 12,
     "outer.quadrant[1]: number must be"),
    ("outer.quadrant", ["TAKE_PASS", {"number": 0}] + ["TAKE_25"] * 12,
     "outer.quadrant[1]: number must be"),
    ("outer.shortcut", [], "outer.shortcut: needs at least one square"),
    ("outer.shortcut", ["TAKE_PASS"], "outer.shortcut[0]: TAKE_PASS cannot be on a shortcut"),
    ("outer.rejoin_offset", 14, "outer.rejoin_offset: 14 is past the quadrant"),
    ("outer.rejoin_offset", 1, "outer.rejoin_offset: must be at least 2"),
    ("inner.home", DELETE, "inner.home: missing"),
    ("inner.purple_shortcuts", {8: 70}, "inner.purple_shortcuts: 8: 70 is outside the circles"),
    ("inner.purple_shortcuts", {13: 8}, "must lead forward past the next circle"),
    ("inner.purple_shortcuts", {"a": 8}, "must be circle numbers"),
    ("deck.number.copies", 3, "deck: expected 30 cards, got 38"),
    ("deck.jokers", 2, "deck.jokers: unknown card kind"),
    ("deck.number.values", [1, 1], "deck.number.values: expected distinct positive integers"),
    ("deck.back_10", -1, "deck.back_10: must be at least 0"),
]


@pytest.mark.parametrize("path,value,message", CASES, ids=[c[2][:40] for c in CASES])
def test_board_validation_names_the_problem(path: str, value: Any, message: str):
    with pytest.raises(BoardError) as info:
        GAME.board_from_data(edit(path, value))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_seat_count_outside_the_board_is_refused():
    with pytest.raises(GameOptionsError, match="this board allows 3 or 4"):
        GAME.new_state(2, 1)
    with pytest.raises(GameOptionsError):
        GAME.new_state(4, 1, options={"variant": "x"})


def test_board_survives_a_json_round_trip_as_in_match_logs():
    import json
    again = GAME.board_from_data(json.loads(json.dumps(BOARD.data)))
    assert again.purple == BOARD.purple and again.squares == BOARD.squares
