"""``referee match`` and ``referee replay`` as a user types them (on the toy game)."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from bots.random_bot import RandomBot
from cli import main
from tournaments import TournamentError

from support.cli import assert_clean_error


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
    assert_clean_error(out, None, *needles)


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


@pytest.mark.parametrize("text, message", [
    ("[]", "not a match log: a JSON list"),
    ('"x"', "not a match log"),
    ('{"format": "referee-match-log"}', "malformed match log: no 'game'"),
    ('{"format": "referee-match-log", "game": "nope", "players": [], "seed": 1, '
     '"decisions": []}', "unknown game 'nope'"),
    ('{"format": "referee-match-log", "game": "toy-race", "players": 2, "seed": 1, '
     '"decisions": []}', "malformed match log"),
    ('{"format": "referee-match-log", "game": "toy-race", "players": [{}, {}], "seed": "x", '
     '"decisions": []}', "malformed match log: invalid literal"),
])
def test_replay_of_malformed_logs_is_one_line(tmp_path, text, message):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    out = run("replay", str(bad))
    assert_clean_error(out, 1, message)
    assert "Error(" not in out.output  # a message, not an exception's repr


def test_log_to_a_missing_folder_fails_before_the_match(tmp_path):
    out = run("match", "random", "random", "--game", "toy-race", "--seed", "1",
              "--log", str(tmp_path / "no" / "m.json"))
    assert_clean_error(out, 2, "--log", "does not exist")
    assert "wins" not in out.output  # refused before playing


@pytest.mark.parametrize("url, message", [
    ("http://[::1", "Invalid IPv6 URL"), ("ftp://x", "must start with http://"),
    ("http://", "no host"),
])
def test_bad_bot_url_is_a_one_line_error(url, message):
    assert_clean_error(run("match", "random", url, "--game", "toy-race"), 1, message)


def test_name_equals_bot_names_a_seat():
    out = run("match", "me=random", "you=greedy", "--game", "tokaido-duo", "--seed", "3", "--json")
    assert out.exit_code == 0, out.output
    assert [s["bot"] for s in sorted(json.loads(out.output)["seats"], key=lambda s: s["seat"])] \
        == ["me", "you"]
    one_line_error(run("match", "me=", "random", "--game", "toy-race"), "no bot after me=")


@pytest.mark.parametrize("spec, message", [
    ("gredy", "unknown bot 'gredy' (did you mean 'greedy'?)"),
    ("randon", "(did you mean 'random'?)"),
    ("mcts:playout=5", "no parameter playout (did you mean 'playouts'?)"),
    ("127.0.0.1:8000", "did you mean http://127.0.0.1:8000 ?"),
    ("localhost:8000", "did you mean http://localhost:8000 ?"),
])
def test_typos_get_a_suggestion(spec, message):
    one_line_error(run("match", spec, "random", "--game", "tokaido-duo"), message)


def test_a_typod_game_gets_a_suggestion():
    one_line_error(run("match", "random", "random", "--game", "tokaido"),
                   "(did you mean 'tokaido-duo'?)")


def test_a_dead_bot_stops_the_match_before_it_starts():
    from support.http_bots import free_port

    url = f"http://127.0.0.1:{free_port()}"
    out = run("match", "random", url, "--game", "toy-race", "--seed", "1")
    one_line_error(out, f"bot {url} does not answer GET /", "--allow-dead")
    assert "wins" not in out.output
    out = run("match", "random", url, "--game", "toy-race", "--seed", "1", "--time-ms", "200",
              "--allow-dead")
    assert out.exit_code == 0 and "strikes 3" in out.output


@click.command()
@click.argument("kind")
def failing(kind: str) -> None:
    """A command failing the way domain code fails: with a RefereeError, or a bug."""
    if kind == "user":
        raise TournamentError("tournament 0badcafe is being played by process 7")
    raise RuntimeError("a bug")


def test_every_users_error_is_one_line_in_one_place(monkeypatch):
    """No command catches the domain's errors itself: the group maps any RefereeError."""
    import cli

    monkeypatch.setitem(cli.COMMANDS, "failing", cli.Entry(f"{__name__}:failing", "Fails."))
    assert_clean_error(run("failing", "user"), 1, "Error: tournament 0badcafe is being played")
    bug = run("failing", "bug")  # a bug is not dressed as a user's error
    assert isinstance(bug.exception, RuntimeError)


def test_a_match_the_game_refuses_fails_before_its_seed_is_printed():
    # each option is valid alone; the Automa is for one seat, which only setting up tells
    out = run("match", "random", "random", "--game", "tokaido-duo", "--option", "automa=2")
    assert_clean_error(out, 1, "the automa option is for 1 player only")
    assert "seed" not in out.output


def test_replay_of_a_file_that_is_not_json_says_where_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "referee-match-log",\n  "game": tokaido}\n')
    out = run("replay", str(bad))
    assert_clean_error(out, 1, f"{bad}:2:11: not JSON: Expecting value")
    assert "char" not in out.output  # not the parser's own "(char 42)"


def test_replay_of_a_changed_result_names_the_fields_that_differ(tmp_path):
    log = tmp_path / "m.json"
    run("match", "random", "random", "--game", "toy-race", "--seed", "8", "--log", str(log))
    data = json.loads(log.read_text())
    seat = data["result"]["seats"][0]
    seat["score"] += 5
    log.write_text(json.dumps(data))
    out = run("replay", str(log))
    assert out.exit_code == 1
    want = f"result differs: seats[0].score: replay {seat['score'] - 5}, logged {seat['score']}"
    assert want in out.output, out.output
    assert "'breakdown'" not in out.output  # the field, not the whole result


def test_replay_takes_several_files_a_line_each_and_fails_if_any_fails(tmp_path):
    good, changed, garbage = (tmp_path / n for n in ("good.json", "changed.json", "bad.json"))
    for path in (good, changed):
        run("match", "random", "random", "--game", "toy-race", "--seed", "3", "--log", str(path))
    data = json.loads(changed.read_text())
    data["result"]["winners"] = [9]
    changed.write_text(json.dumps(data))
    garbage.write_text("[1, 2")
    out = run("replay", str(good), str(good))
    assert out.exit_code == 0 and out.output.count("replay matches") == 2, out.output
    out = run("replay", str(good), str(changed), str(garbage))
    assert_clean_error(out, 1, "2 of 3 logs do not replay")
    lines = out.output.splitlines()
    assert f"{good}: replay matches (toy-race, seed 3)" in lines
    assert f"{changed}: replay does not match the log" in lines
    assert "  result differs: winners[0]: replay" in out.output
    assert any(line.startswith(f"{garbage}:1:") for line in lines), lines


class CtrlC(RandomBot):
    """Plays at random, then its fifth decision is where the user pressed Ctrl-C."""

    def __init__(self, game: str, seed: int) -> None:
        super().__init__(game, seed)
        self.asked = 0

    def decide(self, decision, view):
        self.asked += 1
        if self.asked == 5:
            raise KeyboardInterrupt
        return super().decide(decision, view)


@pytest.fixture
def ctrl_c_bot():
    from bots import register_bot, unregister_bot

    register_bot("ctrl-c", f"{__name__}:CtrlC")
    yield "ctrl-c"
    unregister_bot("ctrl-c")


def test_ctrl_c_in_a_match_exits_130_and_keeps_the_log_so_far_marked_unfinished(
        tmp_path, ctrl_c_bot):
    from referee.protocol import schema_errors

    log = tmp_path / "m.json"
    out = run("match", ctrl_c_bot, "random", "--game", "toy-race", "--seed", "4",
              "--log", str(log))
    assert out.exit_code == 130, out.output
    assert "Aborted" not in out.output
    data = json.loads(log.read_text())
    assert data["unfinished"] == "interrupted" and "result" not in data
    assert f"interrupted after {len(data['decisions'])} decisions (seed 4); the log so far, " \
           f"marked unfinished, is in {log}" in out.output
    assert 4 <= len(data["decisions"]) and schema_errors("match-log", data) == []
    replayed = run("replay", str(log))
    assert replayed.exit_code == 0, replayed.output
    assert "replay matches as far as the log goes: an unfinished match (interrupted)" \
        in replayed.output
    data["decisions"][0]["choice"] = "nope"  # checked as far as it goes
    log.write_text(json.dumps(data))
    assert run("replay", str(log)).exit_code == 1
    viewed = run("view", str(log), "--out", str(tmp_path / "v.html"))
    assert_clean_error(viewed, 1)


def test_ctrl_c_without_log_exits_130_and_says_how_far_it_went(ctrl_c_bot):
    out = run("match", ctrl_c_bot, "random", "--game", "toy-race", "--seed", "4")
    assert out.exit_code == 130 and "interrupted after" in out.output, out.output


def test_only_an_unfinished_log_may_lack_its_results(tmp_path):
    from referee.protocol import schema_errors

    log = tmp_path / "m.json"
    run("match", "random", "random", "--game", "toy-race", "--seed", "4", "--log", str(log))
    data = json.loads(log.read_text())
    assert schema_errors("match-log", data) == []
    del data["result"], data["game_result"]
    assert schema_errors("match-log", data) != []
    assert schema_errors("match-log", {**data, "unfinished": "interrupted"}) == []
    assert schema_errors("match-log", {**data, "unfinished": "bored"}) != []


def test_a_real_sigint_mid_match_exits_130_with_the_log_so_far(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from support.http_bots import HostileServer

    log = tmp_path / "m.json"
    info = {"name": "slow", "games": ["tokaido-duo"], "protocol": 1}
    # three quick answers, then a bot that takes its time: Ctrl-C lands while it thinks
    with HostileServer("sleep", delay=0.5, info=info, good_first=3) as bot:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import cli; cli.main()", "match", bot.url, "random",
             "--game", "tokaido-duo", "--seed", "2", "--time-ms", "30000", "--log", str(log)],
            cwd=Path(__file__).resolve().parents[1], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            waited = time.monotonic()
            while len(bot.arrivals) < 5 and time.monotonic() - waited < 60:
                time.sleep(0.05)
            assert len(bot.arrivals) >= 5, "the match never reached the slow decisions"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Aborted" not in err and "Traceback" not in err, err
    data = json.loads(log.read_text())
    assert data["unfinished"] == "interrupted" and "result" not in data
    assert sum(d["seat"] == 0 and d["status"] == "ok" for d in data["decisions"]) >= 4
