"""Tokaido Duo through the match runner, the log and replay, and the CLI (two seats and solo)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from referee.games import find_game
from referee.replay import replay

from support.cli import assert_clean_error
from support.matches import play_bots


def test_registered_and_played_by_the_runner_then_replayed() -> None:
    game = find_game("tokaido-duo")
    for specs, options in [(["random", "random"], None), (["random"], {"automa": 2})]:
        record = play_bots(game.name, specs, 5, options=options)
        log = json.loads(json.dumps(record.log))
        assert replay(log).matches
        summary = record.summary()
        assert len(summary["seats"]) == 2
        for seat in summary["seats"]:
            assert sum(seat["breakdown"].values()) == seat["score"]
        if options:
            assert summary["seats"][1]["bot"] == "automa"
            assert record.result.extra["automa_numbers"] == "placeholder"


def test_cli_match_json_and_solo() -> None:
    from cli import main

    out = CliRunner().invoke(main, ["match", "random", "random", "--game", "tokaido-duo",
                                    "--seed", "9", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert summary["end"] == "normal" and summary["reason"]
    out = CliRunner().invoke(main, ["match", "random", "--game", "tokaido-duo", "--seed", "9",
                                    "--option", "automa=3"])
    assert out.exit_code == 0, out.output
    assert "automa" in out.output and "placeholders" in out.output
    out = CliRunner().invoke(main, ["match", "random", "--game", "tokaido-duo",
                                    "--option", "automa=9"])
    assert_clean_error(out, None, "level 1-6")
