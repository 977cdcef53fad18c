"""The game registry: games found by name, registered by module path, named in errors."""

from __future__ import annotations

import pytest

from referee.core import UnknownGameError
from referee.games import find_game, game_names, register_game, registered_games, unregister_game


def test_the_tests_toy_game_is_registered_and_found() -> None:
    """tests/conftest.py registers the toy game the way any other code registers a game."""
    assert {"doubletrack", "tokaido-duo", "toy-race"} <= set(game_names())
    assert game_names() == sorted(game_names())
    assert registered_games()["toy-race"] == "support.toy"
    assert find_game("toy-race").name == "toy-race"


def test_registering_again_with_the_same_module_does_nothing_another_module_is_refused() -> None:
    before = registered_games()
    register_game("toy-race", "support.toy")
    assert registered_games() == before
    with pytest.raises(ValueError, match="'toy-race' is already registered"):
        register_game("toy-race", "somewhere.else")
    with pytest.raises(ValueError, match="a game name and a module path"):
        register_game("", "support.toy")
    assert registered_games() == before


def test_the_snapshot_is_a_copy() -> None:
    snapshot = registered_games()
    snapshot["chess"] = "nowhere"
    assert "chess" not in game_names()


def test_an_unknown_game_lists_the_known_names() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'chess'; known games: doubletrack"):
        find_game("chess")


def test_an_unregistered_game_is_gone_and_its_loaded_module_forgotten() -> None:
    register_game("toy-again", "support.toy")
    assert find_game("toy-again").name == "toy-race"
    unregister_game("toy-again")
    unregister_game("toy-again")  # again: nothing
    assert "toy-again" not in game_names()
    with pytest.raises(UnknownGameError):
        find_game("toy-again")
