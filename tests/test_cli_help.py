"""The top-level ``referee`` group: its help costs no command's imports, its listing matches
the commands, and a mistyped command gets the names it was close to."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import cli

from support.cli import assert_clean_error

ROOT = Path(__file__).resolve().parents[1]

HEAVY = ("sqlalchemy", "alembic", "flask", "celery", "jsonschema", "requests", "yaml",
         "referee.games", "referee.match", "arena", "bots", "ladder", "api", "tournaments")
"""Packages ``referee --help`` has no use for: each is imported by some command."""


def modules_after(*args: str) -> list[str]:
    """The modules a fresh interpreter holds after ``referee ARGS`` ran."""
    code = ("import atexit, json, sys\n"
            "atexit.register(lambda: print(json.dumps(sorted(sys.modules))))\n"
            "import cli\n"
            "cli.main()\n")
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_top_level_help_imports_no_command_and_none_of_their_dependencies():
    loaded = modules_after("--help")
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    commands = [m for m in loaded if m.startswith("cli.")]
    assert heavy == [] and commands == [], (heavy, commands)


def test_the_check_sees_a_command_import_when_one_happens():
    # the check above is not vacuous: a command's help does load its module and its packages
    loaded = modules_after("match", "--help")
    assert "cli.match" in loaded and "arena" in loaded


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_each_listed_summary_is_the_start_of_the_commands_own_help(name):
    command = cli.load(cli.COMMANDS[name].target)
    help_text = " ".join((command.help or "").split())
    assert help_text.startswith(cli.COMMANDS[name].summary.rstrip(".")), (name, help_text)


def test_the_help_lists_every_command_with_its_summary():
    out = CliRunner().invoke(cli.main, ["--help"])
    assert out.exit_code == 0, out.output
    for name in cli.COMMANDS:
        assert f"  {name} " in out.output


def test_a_mistyped_command_gets_the_close_names():
    out = CliRunner().invoke(cli.main, ["tornament"])
    assert_clean_error(out, 2, "No such command 'tornament'", "Did you mean 'tournament'?")


def test_an_unknown_command_with_no_close_name_gets_the_list():
    out = CliRunner().invoke(cli.main, ["frobnicate"])
    assert_clean_error(out, 2, "No such command 'frobnicate'", "match", "tournament")


def test_bot_list_names_every_registered_bot_with_its_games_and_parameters():
    out = CliRunner().invoke(cli.main, ["bot", "list", "--json"])
    assert out.exit_code == 0, out.output
    listed = {(v["name"], v["game"]): v["parameters"] for v in json.loads(out.output)}
    from bots import bot_names
    from referee.games import game_names

    assert {name for name, _ in listed} == set(bot_names())
    assert {game for _, game in listed} == set(game_names())
    assert listed[("mcts", "tokaido-duo")]["ms"] == 100.0
    assert "playouts" in listed[("mcts", "doubletrack")]
    assert listed[("random", "doubletrack")] == {}


def test_bot_list_follows_the_registry():
    from bots import register_bot, unregister_bot

    register_bot("mcts-copy", "bots.mcts:MctsBot", "tokaido-duo")
    try:
        out = CliRunner().invoke(cli.main, ["bot", "list", "--game", "tokaido-duo"])
    finally:
        unregister_bot("mcts-copy")
    assert out.exit_code == 0, out.output
    assert "mcts-copy\n  tokaido-duo: information-set Monte Carlo" in out.output
    assert "ms=100 playouts=- rollout=4" in out.output


def test_a_listed_parameter_is_one_a_bot_spec_accepts():
    from bots import find_bot

    out = CliRunner().invoke(cli.main, ["bot", "list", "--json", "--game", "doubletrack"])
    for v in json.loads(out.output):
        for key in v["parameters"]:
            value = 50 if key in ("ms", "playouts") else v["parameters"][key]
            find_bot(f"{v['name']}:{key}={value}", "doubletrack", 1)
