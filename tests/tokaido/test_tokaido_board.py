"""Board loading and validation: the packaged file, another file, and every invariant."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from referee.core import BoardError
from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.board import Board

from support.cli import assert_clean_error

DATA = yaml.safe_load(resources.files("referee.games.tokaido_duo").joinpath("board.yaml")
                      .read_text("utf-8"))


def test_packaged_board_is_in_the_installed_package() -> None:
    path = resources.files("referee.games.tokaido_duo").joinpath("board.yaml")
    assert path.is_file()
    board = GAME.load_board()
    assert board.version == "reconstruction-1"
    assert len(board.ring) == 37 and board.data["wares"]["fan"] == 8


def test_board_data_round_trips_through_json() -> None:
    """Match logs embed ``board.data`` as JSON (level keys become strings): still valid."""
    board = GAME.board_from_data(json.loads(json.dumps(GAME.load_board().data)))
    assert board.automa["factor"][6] == 1.6


def _mutate(path: str, value: object) -> dict:
    data = copy.deepcopy(DATA)
    *parents, last = path.split("/")
    node = data
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if value is DELETE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


DELETE = object()
BROKEN = [
    ("ring", DATA["ring"][:-1], "ring: expected 37 spaces, got 36"),
    ("ring/1", "C1", "coastal town C1 appears 2 times"),
    ("ring/2", "X", "ring[2]: unknown space 'X'"),
    ("mountain_towns/M1", 5, "mountain_towns.M1: expected an integer 2..4"),
    ("routes", DATA["routes"][:-1], "routes: a tree over 12 towns needs 11 routes, got 10"),
    ("routes/0", ["C1", "M2"], "zones: route C1-M2 borders 1 zones, expected 2"),
    ("routes/0", ["M1", "M3"], "routes: not connected, unreachable towns ['C1']"),
    ("routes/1", ["C8", "C1"], "must be a leaf"),
    ("zones/Z1/icon", "sun", "zones.Z1.icon: 'sun' is not a painting icon"),
    ("zones/Z4/adj", ["Z3"], "adjacency not symmetric"),
    ("zones/Z1/ring", [0, 1, 2, 3, 4], "ring space 5 borders 1 zones, expected 2"),
    ("zones/Z8", DELETE, "zones: expected 8 zones, got 7"),
    ("wares/fan", 7, "wares: expected 26 in all, got 25"),
    ("boutiques", DATA["boutiques"][:-1], "boutiques: expected 8 tokens, got 7"),
    ("paintings/0/moon", 2, "paintings[0]: expected 10 tiles, got 9"),
    ("scoring/merchant_by_slabs", [0, 5, 11, 18, 26, 35], "expected 7 values, got 6"),
    ("scoring/artist_by_gifts", [0, 1, 2, 5, 8, 13, 18, 25, 32, 41, 40], "must not decrease"),
    ("dice/pilgrim", [0, 1, 2], "dice.pilgrim: expected an integer 1..12"),
    ("start/0/pilgrim", 7, "two meeples start on the same ring space"),
    ("start/1/merchant", "C9", "unknown merchant town 'C9'"),
    ("waves/pilgrim", ["hasty", "crafty"], "waves.pilgrim: expected the sides"),
    ("automa/merchant_loop", ["C1", "M1"], "automa.merchant_loop: expected distinct names"),
    ("automa/level_factor", {1: 1.0}, "automa.level_factor: expected levels 1-6"),
    ("automa/track/wave_spaces", [11], "automa.track.wave_spaces: expected an integer 1..10"),
    ("limits/wares", DELETE, "limits.wares: missing"),
]


@pytest.mark.parametrize("path,value,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_board_names_the_problem(path: str, value: object, message: str) -> None:
    with pytest.raises(BoardError) as err:
        Board(_mutate(path, value))
    assert message in str(err.value)


def test_broken_board_file(tmp_path: Path) -> None:
    bad = tmp_path / "board.yaml"
    bad.write_text(yaml.safe_dump(_mutate("ring", DATA["ring"][:-1])))
    with pytest.raises(BoardError, match="ring: expected 37 spaces, got 36"):
        GAME.load_board(str(bad))
    bad.write_text("ring: [unclosed")
    with pytest.raises(BoardError, match="not valid YAML"):
        GAME.load_board(str(bad))
    with pytest.raises(BoardError, match="cannot read board file"):
        GAME.load_board(str(tmp_path / "missing.yaml"))


def test_board_option_of_the_cli(tmp_path: Path) -> None:
    """``--board FILE`` takes another file; a broken one is a one-line error."""
    from cli import main

    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(DATA))
    out = CliRunner().invoke(main, ["match", "random", "random", "--game", "tokaido-duo",
                                    "--seed", "1", "--board", str(good), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["game"] == "tokaido-duo"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_mutate("wares/fan", 9)))
    out = CliRunner().invoke(main, ["match", "random", "random", "--game", "tokaido-duo",
                                    "--board", str(bad)])
    assert_clean_error(out, None, "wares: expected 26 in all, got 27")
