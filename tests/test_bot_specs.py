"""Bot specs with parameters (``mcts:ms=500``): every bad value is refused up front with the
error the CLI prints as one line, before a match can hang on ``ms=1e9`` or spin on ``nan``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bots import (
    BotSpecError, UnknownBotError, bot_games, bot_names, find_bot, parse_bot_spec, register_bot,
    registered_bots, unregister_bot,
)
from cli import main

from support.cli import assert_clean_error

BAD = [
    ("mcts:ms=nan", "finite"), ("mcts:ms=inf", "finite"), ("mcts:ms=-inf", "finite"),
    ("mcts:ms=1e400", "finite"), ("mcts:ms=1e9", "ms must be"), ("mcts:ms=0", "ms must be"),
    ("mcts:ms=-5", "ms must be"), ("mcts:playouts=0", "playouts"),
    ("mcts:playouts=-3", "playouts"), ("mcts:playouts=2.5", "playouts"),
    ("mcts:playouts=1e9", "playouts"), ("mcts:guided=1.5", "guided"),
    ("mcts:guided=-0.1", "guided"), ("mcts:widen=-1", "widen"), ("mcts:rollout=0.5", "rollout"),
    ("mcts:depth=3", "no parameter depth"), ("random:ms=5", "no parameter ms"),
    ("mcts:ms=5,ms=6", "each key once"), ("mcts:ms=", "key=number"), ("mcts:=5", "key=number"),
]


@pytest.mark.parametrize("spec,needle", BAD, ids=[b[0] for b in BAD])
def test_bad_parameters_are_a_bot_spec_error(toy_game, spec, needle):
    with pytest.raises(BotSpecError, match=needle):
        find_bot(spec, toy_game.name, 1)


@pytest.mark.parametrize("spec", ["mcts:ms=60000", "mcts:ms=0.5", "mcts:playouts=1,guided=1",
                                  "mcts:playouts=3.0,guided=0,widen=0,rollout=0"])
def test_values_at_the_edges_are_accepted(toy_game, spec):
    assert find_bot(spec, toy_game.name, 1).name == "mcts"


def test_parse_keeps_numbers():
    assert parse_bot_spec("mcts:ms=50,playouts=9") == ("mcts", {"ms": 50.0, "playouts": 9.0})


def test_spec_error_is_what_callers_already_catch():
    assert issubclass(BotSpecError, UnknownBotError) and issubclass(BotSpecError, LookupError)


def test_registry_is_read_through_public_functions():
    assert {"random", "greedy", "mcts"} <= set(bot_names())
    assert bot_games("random") == ["*"] and "doubletrack" in (bot_games("greedy") or [])
    assert bot_games("nobody") is None


def test_a_registered_bot_is_found_by_name_and_unregistered_is_gone(toy_game):
    register_bot("first", "bots.random_bot:RandomBot", toy_game.name)
    try:
        register_bot("first", "bots.random_bot:RandomBot", toy_game.name)  # again: nothing
        assert find_bot("first", toy_game.name, 1).decide
        assert registered_bots()["first"] == {toy_game.name: "bots.random_bot:RandomBot"}
        with pytest.raises(UnknownBotError, match="no version for game 'doubletrack'"):
            find_bot("first", "doubletrack", 1)
        with pytest.raises(ValueError, match="already registered"):
            register_bot("first", "bots.mcts:MctsBot", toy_game.name)
    finally:
        unregister_bot("first")
    assert "first" not in bot_names()


@pytest.mark.parametrize("name,target,game", [
    ("", "bots.random_bot:RandomBot", "*"), ("x", "bots.random_bot", "*"),
    ("x", "bots.random_bot:RandomBot", ""), ("a:b", "bots.random_bot:RandomBot", "*"),
    ("a=b", "bots.random_bot:RandomBot", "*"),
])
def test_register_bot_refuses_what_could_never_be_found(name, target, game):
    with pytest.raises(ValueError):
        register_bot(name, target, game)
    assert name not in registered_bots()


def test_the_registry_snapshot_is_a_copy():
    snapshot = registered_bots()
    snapshot["random"]["*"] = "elsewhere:Bot"
    snapshot["ghost"] = {"*": "nowhere:Bot"}
    assert registered_bots()["random"] == {"*": "bots.random_bot:RandomBot"}
    assert "ghost" not in bot_names()


@pytest.mark.parametrize("args", [
    ["match", "mcts:ms=nan", "random", "--game", "toy-race"],
    ["match", "random", "mcts:playouts=0", "--game", "toy-race"],
    ["bot", "serve", "mcts:ms=1e9", "--port", "0"],
])
def test_cli_turns_a_bad_parameter_into_one_line(args):
    assert_clean_error(CliRunner().invoke(main, args), None, "bot")
