"""``referee match`` and ``referee replay`` as a user types them (on the toy game)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_json_is_exactly_one_object_with_the_contract_fields():
    out = run("match", "random", "random", "--game", "toy-race", "--seed", "5", "--json")
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)  # exactly one object: anything else fails to parse
    assert {"game", "seed", "seats", "winners", "end", "rounds"} <= set(summary)
    assert summary["seed"] == 5 and summary["end"] == "normal"
    for seat in summary["seats"]:
        assert {"seat", "bot", "score", "breakdown", "rank", "strikes"} <= set(seat)
        assert sum(seat["breakdown"].values()) == seat["score"]
    best = min(s["rank"] for s in summary["seats"])
    assert best == 1
    assert summary["winners"] == [s["seat"] for s in summary["seats"] if s["rank"] == 1]


def test_without_seed_one_is_drawn_and_printed():
    out = run("match", "random", "random", "--game", "toy-race")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("seed ") and "wins" in out.output


def test_log_then_replay_matches(tmp_path):
    log = tmp_path / "m.json"
    out = run("match", "random", "mcts:playouts=20", "--game", "toy-race", "--seed", "8",
              "--log", str(log))
    assert out.exit_code == 0, out.output
    out = run("replay", str(log))
    assert out.exit_code == 0 and "replay matches" in out.output


def test_replay_of_a_tampered_log_fails(tmp_path):
    log = tmp_path / "m.json"
    run("match", "random", "random", "--game", "toy-race", "--seed", "8", "--log", str(log))
    data = json.loads(log.read_text())
    data["decisions"][0]["choice"] = "3" if data["decisions"][0]["choice"] != "3" else "1"
    log.write_text(json.dumps(data))
    out = run("replay", str(log))
    assert out.exit_code == 1 and "does not match" in out.output


def one_line_error(out, *needles: str) -> None:
    assert out.exit_code != 0
    assert "Traceback" not in out.output
    assert all(n in out.output for n in needles), out.output


def test_unknown_bot_is_a_one_line_error():
    out = run("match", "randon", "random", "--game", "toy-race")
    one_line_error(out, "unknown bot 'randon'", "random")
    assert len(out.output.strip().splitlines()) == 1


def test_unknown_game_lists_the_games():
    one_line_error(run("match", "random", "random", "--game", "chess"), "unknown game 'chess'",
                   "tokaido-duo")


def test_wrong_seat_count_is_a_one_line_error():
    one_line_error(run("match", "random", "--game", "toy-race", "--seed", "1"), "seat")


def test_bad_option_syntax():
    one_line_error(run("match", "random", "random", "--game", "toy-race", "--option", "x"),
                   "key=value")


def test_replay_of_garbage(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    one_line_error(run("replay", str(bad)), "bad.json")
    bad.write_text('{"format": "something-else"}')
    one_line_error(run("replay", str(bad)), "not a match log")
