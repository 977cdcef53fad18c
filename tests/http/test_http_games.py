"""Every registered game over HTTP: every message the referee sends validates against the
schemas, ``--over-http`` plays exactly the in-process match, and ``referee bot check`` passes
the built-in bots."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bots.server import serve_bot
from cli import main
from referee.games import find_game, game_names
from referee.match import TimeControl
from referee.protocol import schema_errors
from referee.replay import replay

from support.http_bots import HostileServer
from support.matches import play_bots

GAMES = game_names()
"""Every game registered when the tests are collected (the packaged ones and the tests' own)."""


def seats_of(game) -> int:
    return min(n for n in game.player_counts if n >= 2)


@pytest.mark.parametrize("name", GAMES)
def test_every_message_validates_and_the_log_replays(name):
    game = find_game(name)
    with HostileServer("ok", choose="last") as bot:
        bots = [f"bot={bot.url}"] + ["random"] * (seats_of(game) - 1)
        record = play_bots(name, bots, 987_654_321_987, time_control=TimeControl(2000))
    assert record.log["faults"] == []
    assert bot.bodies["/decide"], "the bot was asked something"
    for kind in ("start", "decide", "end"):
        for body in bot.bodies[f"/{kind}"]:
            assert schema_errors(kind, body) == [], (kind, body.get("decision", {}).get("kind"))
    start = bot.bodies["/start"][0]
    assert "seed" not in start and str(record.log["seed"]) not in json.dumps(bot.bodies)
    assert start["board"] == json.loads(json.dumps(record.log["board"]))
    assert schema_errors("match-log", record.log) == []
    assert replay(record.log).matches


@pytest.mark.parametrize("name", GAMES)
def test_over_http_is_the_same_match(name):
    bots = ["random"] * seats_of(find_game(name))
    args = ["match", *bots, "--game", name, "--seed", "5", "--json"]
    local, remote = CliRunner().invoke(main, args), CliRunner().invoke(main, [*args, "--over-http"])
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    assert json.loads(local.output) == json.loads(remote.output)


@pytest.mark.parametrize("name", GAMES)
def test_bot_check_passes_a_built_in_bot(name):
    server = serve_bot("random", name)
    try:
        out = CliRunner().invoke(main, ["bot", "check", server.url, "--game", name, "--seed", "2"])
    finally:
        server.stop()
    assert out.exit_code == 0, out.output
    assert "PASS" in out.output
