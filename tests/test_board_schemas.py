"""The board data of ``/start`` is documented by a schema per game (docs/schemas/board-*.json):
the packaged boards validate, as sent, the /start bodies that carry them validate, the names
the schemas enumerate are the engines' own, and a board the loader refuses for a field's
shape is refused by the schema too (the schema is never looser on a single field, never
stricter than the loader)."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from referee import protocol
from referee.board_schemas import (
    BOARD_OF_GAME, DOUBLETRACK_CARDS, DOUBLETRACK_SQUARES, TOKAIDO_COASTAL, TOKAIDO_LIMITS,
    TOKAIDO_RING_SIZE, TOKAIDO_SPACES, TOKAIDO_WAVE_SIDES,
)
from referee.core import BoardError
from referee.games import find_game
from referee.games.doubletrack import board as dt_board
from referee.games.tokaido_duo import board as td_board
from referee.players import MatchInfo

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "docs" / "schemas"
GAMES = sorted(BOARD_OF_GAME)


@cache
def validator(name: str) -> Any:
    """A validator for the published file ``name``.json, resolving references among them."""
    known = [json.loads(path.read_text()) for path in sorted(SCHEMA_DIR.glob("*.json"))]
    return protocol.schema_validator(json.loads((SCHEMA_DIR / f"{name}.json").read_text()), known)


def as_sent(game: str) -> dict[str, Any]:
    """The packaged board's data as a bot receives it (JSON: integer keys become strings)."""
    return json.loads(json.dumps(find_game(game).load_board().data))


def errors(game: str, board: Any) -> list[str]:
    return [e.message for e in validator(BOARD_OF_GAME[game]).iter_errors(board)]


@pytest.mark.parametrize("game", GAMES)
def test_the_packaged_board_validates_as_sent_and_so_does_its_start_message(game):
    assert errors(game, as_sent(game)) == []
    info = MatchInfo("m1", game, 0, ((0, "a"), (1, "b"), (2, "c")),
                     {"decision_ms": 1000, "bank_ms": 0}, as_sent(game))
    validator("start").validate(protocol.start_message(info))


@pytest.mark.parametrize("game", GAMES)
def test_the_start_schema_checks_the_board_of_its_game(game):
    info = MatchInfo("m1", game, 0, ((0, "a"), (1, "b")), {"decision_ms": 1000, "bank_ms": 0},
                     {"version": "x"})
    assert list(validator("start").iter_errors(protocol.start_message(info)))


def test_the_enumerated_names_are_the_engines():
    assert set(TOKAIDO_SPACES) == set(td_board.SPACE_KINDS)
    assert TOKAIDO_COASTAL == td_board.COASTAL and TOKAIDO_RING_SIZE == td_board.RING_SIZE
    assert TOKAIDO_LIMITS == td_board.LIMIT_KEYS
    assert {c: set(s) for c, s in TOKAIDO_WAVE_SIDES.items()} == td_board.WAVE_SIDES
    assert DOUBLETRACK_SQUARES == dt_board.SIMPLE_SQUARES
    assert DOUBLETRACK_CARDS == dt_board.CARD_KINDS


def spoil(board: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``board`` with the field at dotted ``path`` (list indexes as numbers) set to ``value``,
    or removed when ``value`` is ``...``."""
    out = copy.deepcopy(board)
    *parents, last = path.split(".")
    node: Any = out
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return out


SPOILED = [
    ("tokaido-duo", "ring", ["T"] * 36),
    ("tokaido-duo", "ring.3", "X"),
    ("tokaido-duo", "dice.pilgrim.0", 0),
    ("tokaido-duo", "dice.extra", [1]),
    ("tokaido-duo", "mountain_towns.M1", 5),
    ("tokaido-duo", "routes.0", ["C1"]),
    ("tokaido-duo", "zones.Z1.ring", [40]),
    ("tokaido-duo", "boutiques.0.value", 1),
    ("tokaido-duo", "waves.pilgrim", ["hasty", "robust"]),
    ("tokaido-duo", "limits.slabs", ...),
    ("tokaido-duo", "scoring.artist_by_gifts.2", -1),
    ("tokaido-duo", "automa.painting_town", "M1"),
    ("tokaido-duo", "automa.level_factor.7", 1.0),
    ("tokaido-duo", "start.0.pilgrim", 37),
    ("tokaido-duo", "version", True),
    ("doubletrack", "colours", ["red", "red", "blue", "green"]),
    ("doubletrack", "players", [5]),
    ("doubletrack", "dice.sides", 1),
    ("doubletrack", "outer.quadrant.1", "FLY"),
    ("doubletrack", "outer.quadrant.1", {"number": 0}),
    ("doubletrack", "outer.quadrant.1", {"number": 1, "extra": 2}),
    ("doubletrack", "outer.shortcut", []),
    ("doubletrack", "inner.purple_shortcuts.x", 3),
    ("doubletrack", "deck.jokers", 2),
    ("doubletrack", "deck.back_10", ...),
    ("doubletrack", "hand_size", 0),
]


@pytest.mark.parametrize("game, path, value", SPOILED, ids=[f"{g}:{p}" for g, p, _ in SPOILED])
def test_a_field_the_loader_refuses_is_refused_by_the_schema(game, path, value):
    bad = spoil(as_sent(game), path, value)
    with pytest.raises(BoardError):
        find_game(game).board_from_data(bad)
    assert errors(game, bad), f"the schema accepts {path} = {value!r}"


ACCEPTED = [
    ("tokaido-duo", "version", 2),
    ("tokaido-duo", "ring", ["C1", "T", "G", "S", "T", "C2", "H", "T", "G", "C3", "T", "S", "G",
                             "T", "C4", "G", "H", "T", "C5", "T", "G", "S", "T", "C6", "H", "T",
                             "G", "T", "C7", "T", "S", "G", "T", "C8", "G", "H", "T"]),
    ("tokaido-duo", "notes", "a field the engine does not read"),
    ("doubletrack", "outer.quadrant.1", {"number": [2, 6]}),
    ("doubletrack", "players", [4]),
    ("doubletrack", "inner.purple_shortcuts", {"5": 9}),
]


@pytest.mark.parametrize("game, path, value", ACCEPTED, ids=[f"{g}:{p}" for g, p, _ in ACCEPTED])
def test_a_board_the_loader_accepts_validates(game, path, value):
    good = spoil(as_sent(game), path, value)
    find_game(game).board_from_data(good)
    assert errors(game, good) == []
