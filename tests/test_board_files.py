"""Board files from strangers: every hostile YAML is a one-line error before anything copies,
logs or sends the data (aliases, deep nesting, huge integers, dates, odd tags, size)."""

from __future__ import annotations

import json
import resource

import pytest
from click.testing import CliRunner

from cli import main
from referee import yamldata
from referee.core import MAX_BOARD_JSON, BoardError
from referee.games import find_game

from support.cli import assert_clean_error

LAUGHS = "version: x\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{n}: &{n} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, n in zip("abcdefgh", "bcdefghi"))

HOSTILE = [
    (LAUGHS, "aliases (*name) are not allowed"),
    ("version: x\nbase: &b {k: 1}\nother:\n  <<: *b\n", "not allowed; write the data out"),
    ("version: x\na: &a [1, *a]\n", "aliases"),  # a cycle
    ("version: x\na: " + "[" * 5000 + "]" * 5000 + "\n", "nesting depth"),
    ("version: x\na: " + "[" * 70 + "]" * 70 + "\n", "nested deeper than 64 levels"),
    ("version: x\na:\n  " + "- " * 3000 + "1\n", "nesting depth"),
    ("version: x\na: " + "9" * 5000 + "\n", "an integer of more than 100 digits"),
    ("version: 2024-01-01\n", "line 1: '2024-01-01' reads as a date; quote it"),
    ("version: x\n2024-01-01: 1\n", "line 2: '2024-01-01' reads as a date"),
    ("version: x\nwhen: 2001-12-14t21:59:43.10-05:00\n", "reads as a date"),
    ("version: .nan\n", ".nan is not a finite number"),
    ("version: !!binary aGVsbG8=\n", "tag tag:yaml.org,2002:binary is not allowed"),
    ("version: !!set {a, b}\n", "is not allowed"),
    ("? [1]\n: 2\n", "a mapping key must be a plain value"),
    ("a: [1\nb: 2\n", "not valid YAML: did not find expected ',' or ']' (line 2)"),
    ("- 1\n- 2\n", "expected a mapping at the top level"),
]


@pytest.mark.parametrize("text, message", HOSTILE, ids=[m for _, m in HOSTILE])
@pytest.mark.parametrize("game", ["tokaido-duo", "doubletrack"])
def test_hostile_board_files_are_refused_with_one_line(tmp_path, game, text, message):
    path = tmp_path / "board.yaml"
    path.write_text(text)
    with pytest.raises(BoardError, match=None) as caught:
        find_game(game).load_board(str(path))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("text, message", HOSTILE[:8], ids=[m for _, m in HOSTILE[:8]])
def test_the_cli_gives_one_line_for_a_hostile_board(tmp_path, text, message):
    path = tmp_path / "board.yaml"
    path.write_text(text)
    out = CliRunner().invoke(main, ["match", "random", "random", "random", "--game",
                                    "doubletrack", "--board", str(path)])
    assert_clean_error(out, 1, message)


def test_the_billion_laughs_costs_no_memory(tmp_path):
    """Refused before a single copy: the process grows by well under the 9**8 strings."""
    path = tmp_path / "laughs.yaml"
    path.write_text(LAUGHS)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(BoardError):
        find_game("tokaido-duo").load_board(str(path))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB


def test_the_board_data_carried_into_logs_is_bounded(tmp_path):
    """Flow-style YAML can be shorter than its JSON: the JSON that logs and ``/start`` carry
    is capped too."""
    path = tmp_path / "board.yaml"
    count = MAX_BOARD_JSON // 3  # 2 bytes each in YAML (a,), 4 in JSON ("a",)
    path.write_text("version: x\nnotes: [" + ",".join(["a"] * count) + "]\n")
    with pytest.raises(BoardError, match=f"bytes as JSON; at most {MAX_BOARD_JSON}"):
        find_game("doubletrack").load_board(str(path))


@pytest.mark.parametrize("game", ["tokaido-duo", "doubletrack"])
def test_the_packaged_boards_load_through_the_safe_reader(game):
    from importlib import resources

    module = type(find_game(game)).__module__
    text = resources.files(module).joinpath("board.yaml").read_text("utf-8")
    data = yamldata.load(text)
    assert json.loads(json.dumps(data)) is not None
    assert find_game(game).load_board() is not None


def test_the_c_loader_is_used_where_pyyaml_has_it():
    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        assert yamldata._LOADER is yaml.CSafeLoader
