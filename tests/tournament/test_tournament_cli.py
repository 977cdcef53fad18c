"""``referee tournament`` and ``referee sprt`` from the command line: outputs, errors, Ctrl-C."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main

import tournament_bots
from support.cli import assert_clean_error
from support.http_bots import free_port


@pytest.fixture(autouse=True)
def with_test_bots():
    with tournament_bots.registered():
        yield
LAUNCHER = Path(__file__).with_name("tournament_launcher.py")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def run(*args: str) -> tuple[int, str, str]:
    result = invoke(*args)
    return result.exit_code, result.stdout, result.stderr


def test_json_output_is_clean_and_complete(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "a=noisy", "--game", "toy-race",
                         "--games", "4", "--seats", "2", "--seed", "3", "--json",
                         "--state-dir", str(tmp_path))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["played"] == doc["matches"] == 12 and doc["complete"]
    assert doc["entrants"][0]["name"] == "strong"
    assert {e["bot"] for e in doc["entrants"]} == {"strong", "weak", "noisy"}
    assert f"--resume {doc['tournament']}" in err


def test_text_output_shows_standings_crosstable_and_elo(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "4",
                         "--seed", "1", "--state-dir", str(tmp_path))
    assert code == 0, err
    assert "strong vs weak: 4/4  Elo +inf ± inf  LOS 100.0%  (2 blocks)" in out
    assert "LL-LD-WL/DD-WD-WW 0-0-0/0-0-2" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["strong", "-", "4/4"] in rows and ["weak", "0/4", "-"] in rows  # the crosstable


def test_long_names_are_whole_in_the_crosstable_header(tmp_path):
    code, out, err = run("tournament", "strong", "a-rather-long-entrant-name=weak", "--game",
                         "toy-race", "--games", "2", "--seed", "1", "--state-dir", str(tmp_path))
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.strip().startswith("strong "))
    assert header.split() == ["strong", "a-rather-long-entrant-name"]


def test_identical_bots_get_a_sane_elo_line(tmp_path):
    code, out, err = run("tournament", "strong", "twin=strong", "--game", "toy-race",
                         "--games", "6", "--seed", "1", "--state-dir", str(tmp_path))
    assert code == 0, err
    line = next(line for line in out.splitlines() if " vs " in line)
    assert "-0.0" not in line and "± 0.0" not in line
    assert "Elo +0.0, no spread: all 3 blocks scored 50.0%" in line


def test_a_line_per_finished_game_when_not_in_a_terminal(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "4",
                         "--seed", "1", "--state-dir", str(tmp_path), "--json")
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("Finished game")]
    assert len(lines) == 4 and lines[-1].startswith("Finished game 4/4 (")
    assert "): 1-0  [strong" in lines[0] or "): 0-1  [strong" in lines[0]
    assert all("ETA " in line for line in lines)
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--state-dir", str(tmp_path), "--no-progress")
    assert code == 0 and "Finished game" not in err


def test_with_db_it_says_where_the_results_went(tmp_path):
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--db", url, "--state-dir", str(tmp_path))
    assert code == 0, err
    assert f"results recorded in the ladder at {url}" in err
    assert "referee ladder show --game toy-race --db URL" in err


def test_csv_to_a_file_and_to_stdout(tmp_path):
    target = tmp_path / "out.csv"
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--state-dir", str(tmp_path), "--csv", str(target), "--json")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert {(r["entrant"], r["opponent"], r["wins"]) for r in rows} == {
        ("strong", "weak", "2"), ("weak", "strong", "0")}
    json.loads(out)
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--state-dir", str(tmp_path), "--csv")
    assert code == 0 and out.startswith("entrant,opponent,")


def test_multiplayer_default_seats(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "noisy", "other-noisy", "slow",
                         "--game", "toy-race", "--games", "4", "--json",
                         "--state-dir", str(tmp_path))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["seats"] == 4 and doc["matches"] == 5 * 4


@pytest.mark.parametrize("args, message", [
    (["strong", "nobody"], "entrant nobody: unknown bot 'nobody'"),
    (["strong", "weak", "--games", "3"], "--games must be a positive multiple of 2"),
    (["strong", "strong"], "appears twice"),
    (["strong"], "at least two entrants"),
    (["strong", "weak", "--seats", "5"], "not 5"),
    (["strong", "weak", "--resume", "12345678"], "no tournament state"),
    (["strong", "weak", "--option", "x=1"], "takes no options"),
    (["strong", "http://[::1"], "entrant http://[::1: bad bot URL 'http://[::1': Invalid IPv6"),
    (["strong", "x=ftp://x"], "entrant x: bad bot URL 'ftp://x': must start with http://"),
    (["strong", "http://"], "bad bot URL 'http://': no host"),
])
def test_errors_are_one_line(tmp_path, args, message):
    full = ["tournament", *args, "--game", "toy-race", "--state-dir", str(tmp_path)]
    if "--games" not in args:
        full += ["--games", "2"]
    out = invoke(*full)
    assert_clean_error(out, 1, message)
    assert len(out.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # refused before any state file was written


def test_a_dead_http_bot_stops_the_tournament_before_it_starts(tmp_path):
    port = free_port()
    out = invoke("tournament", "strong", f"dead=http://127.0.0.1:{port}", "--game", "toy-race",
                 "--games", "2", "--state-dir", str(tmp_path))
    assert_clean_error(out, 1, f"bot http://127.0.0.1:{port} does not answer GET /",
                       "connection refused", "--allow-dead")
    assert not list(tmp_path.iterdir())


def test_a_bot_that_does_not_play_the_game_stops_the_tournament(tmp_path):
    from support.http_bots import HostileServer

    with HostileServer("ok", info={"name": "x", "games": ["chess"], "protocol": 1}) as bot:
        out = invoke("tournament", "strong", bot.url, "--game", "toy-race", "--games", "2",
                     "--state-dir", str(tmp_path))
    assert_clean_error(out, 1, "does not play toy-race (its GET / lists ['chess'])")


def test_a_dead_http_bot_shows_its_forfeits_with_allow_dead(tmp_path):
    dead = f"dead=http://127.0.0.1:{free_port()}"
    code, out, err = run("tournament", "strong", dead, "--game", "toy-race", "--games", "2",
                         "--time-ms", "200", "--json", "--state-dir", str(tmp_path),
                         "--allow-dead")
    assert code == 0, err
    assert "warning: bot http" in err and "playing anyway (--allow-dead)" in err
    entrants = {e["name"]: e for e in json.loads(out)["entrants"]}
    strikes = entrants["dead"]["strikes"]
    assert entrants["dead"]["forfeits"] == 2 and strikes >= 6  # three strikes, twice
    assert entrants["strong"]["forfeits"] == entrants["strong"]["strikes"] == 0
    tid = json.loads(out)["tournament"]
    code, out, err = run("tournament", "strong", dead, "--game", "toy-race", "--resume", tid,
                         "--state-dir", str(tmp_path), "--allow-dead")
    assert code == 0, err
    assert "strikes  forfeits" in out  # the text table, rebuilt from the state file
    dead_row = next(line for line in out.splitlines() if "  dead  " in line)
    assert dead_row.split()[-2:] == [str(strikes), "2"]


def test_resume_refuses_a_different_command(tmp_path):
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--json", "--state-dir", str(tmp_path))
    tid = json.loads(out)["tournament"]
    code, out, err = run("tournament", "strong", "noisy", "--game", "toy-race", "--resume", tid,
                         "--state-dir", str(tmp_path))
    assert code == 1 and "started with entrants" in err
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--resume", tid,
                         "--state-dir", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["played"] == 2  # nothing left to play
    assert "0 of 2 games to play" in err


def test_db_records_every_match_once(tmp_path):
    from ladder.leaderboard import leaderboard
    from ladder.store import open_db

    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "4",
                         "--db", url, "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    engine = open_db(url)
    try:
        board = {row["bot"]: row for row in leaderboard(engine, "toy-race")}
    finally:
        engine.dispose()
    assert board["strong"]["games"] == 4 and board["strong"]["wins"] == 4
    assert board["weak"]["losses"] == 4
    assert board["strong"]["rating"] > board["weak"]["rating"]


def test_db_errors_and_resume_rules(tmp_path):
    state = tmp_path / "state"
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--db", "nosuch://x", "--state-dir", str(state))
    assert code == 1 and "--db: unsupported database" in err and not state.exists()
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--json", "--state-dir", str(state))
    tid = json.loads(out)["tournament"]
    code, out, err = run("tournament", "--game", "toy-race", "--resume", tid, "--db",
                         f"sqlite:///{tmp_path / 'l.db'}", "--state-dir", str(state))
    assert code == 1 and "started without --db" in err
    code, out, err = run("tournament", "strong", "weak", "--game", "toy-race", "--games", "2",
                         "--db", f"sqlite:///{tmp_path / 'l.db'}", "--json", "--state-dir",
                         str(state))
    tid = json.loads(out)["tournament"]
    code, out, err = run("tournament", "--game", "toy-race", "--resume", tid,
                         "--state-dir", str(state))
    assert code == 1 and "resume it with --db" in err


def test_sprt_verdicts(tmp_path):
    code, out, err = run("sprt", "strong", "noisy", "--game", "toy-race", "--seed", "1", "--json",
                         "--state-dir", str(tmp_path))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["verdict"] == "H1" and doc["trace"][-1] >= doc["bounds"][1]
    assert doc["model"] == "normalized" and len(doc["trace"]) == doc["pairs"]
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "1",
                         "--elo1", "40", "--state-dir", str(tmp_path))
    assert code == 0, err
    assert "H0 accepted: noisy is not stronger than other-noisy" in out and "LLR" in out


@pytest.mark.parametrize("args, message", [
    (["strong", "weak", "--game", "toy-race-34"], "sprt needs a two-seat game"),
    (["strong", "weak", "--game", "toy-race", "--elo0", "5", "--elo1", "5"], "elo0"),
    (["strong", "weak", "--game", "toy-race", "--alpha", "0"], "alpha"),
    (["strong", "weak", "--game", "toy-race", "--elo1", "300"], "within ±200"),
    (["strong", "ghost", "--game", "toy-race"], "unknown bot 'ghost'"),
    (["strong", "weak", "--game", "chess"], "unknown game 'chess'"),
    (["strong", "http://[::1", "--game", "toy-race"], "bad bot URL 'http://[::1'"),
    (["ftp://x", "weak", "--game", "toy-race"], "must start with http://"),
    (["strong", "http://", "--game", "toy-race"], "no host"),
])
def test_sprt_errors_are_one_line(tmp_path, args, message):
    assert_clean_error(invoke("sprt", *args, "--state-dir", str(tmp_path)), None, message)
    assert not list(tmp_path.iterdir())  # refused before any state file was written


def test_ctrl_c_stops_cleanly_and_resume_finishes(tmp_path):
    """A real SIGINT to a real process running a pool: no traceback, a resume hint, and the
    resumed run plays only what was missing."""
    state = tmp_path / "state"
    cmd = [sys.executable, str(LAUNCHER), "tournament", "slow", "noisy", "other-noisy",
           "--game", "toy-race", "--games", "40", "--seats", "2", "--concurrency", "2",
           "--seed", "4",
           "--state-dir", str(state), "--json"]
    # A shell starts background jobs with SIGINT ignored, and Python then keeps it ignored:
    # give the child the terminal's default, whatever ran this test.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        files = list(state.glob("*.jsonl")) if state.exists() else []
        if files and len(files[0].read_text().splitlines()) > 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # as the terminal does: the whole process group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert "interrupted after" in err and "--resume" in err
    tid = files[0].stem
    assert f"referee tournament --resume {tid} --concurrency 2 --state-dir" in err
    kept = len(files[0].read_text().splitlines()) - 1
    assert 0 < kept < 120
    code, out, err = run("tournament", "slow", "noisy", "other-noisy", "--game", "toy-race",
                         "--resume", tid, "--state-dir", str(state), "--json")
    assert code == 0, err
    assert f"{120 - kept} of 120 games to play" in err
    assert json.loads(out)["played"] == 120


def test_the_eta_counts_from_the_start_of_this_run():
    from cli.progress import eta_seconds, format_duration

    assert eta_seconds(0, 100, 5.0) is None and format_duration(None) == "--:--"
    assert eta_seconds(2, 100, 10.0) == pytest.approx(490.0)  # start-up included in the rate
    assert eta_seconds(100, 100, 10.0) == 0.0
    assert format_duration(3723.4) == "1:02:03"


def test_sprt_says_how_long_it_should_take_and_shows_progress(tmp_path):
    code, out, err = run("sprt", "strong", "noisy", "--game", "toy-race", "--seed", "1",
                         "--state-dir", str(tmp_path))
    assert code == 0, err
    assert "expected length: about 3,199 game pairs (6,398 games)" in err
    assert "about 5,233 when it is in between" in err
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "1",
                         "--elo1", "150", "--max-pairs", "60", "--state-dir", str(tmp_path))
    assert "--max-pairs stops it at 60" not in err  # 60 pairs is more than this test needs
    progress = [line for line in err.splitlines() if line.strip().startswith("pairs ")]
    assert progress and all("pairs/s" in line and ("ETA" in line or "past" in line)
                            for line in progress)


def test_a_bot_that_takes_fewer_connections_than_needed_is_warned_about(tmp_path):
    from support.http_bots import HostileServer

    info = {"name": "small", "games": ["toy-race"], "protocol": 1, "max_connections": 2}
    with HostileServer("ok", info=info) as bot:
        code, out, err = run("tournament", f"a={bot.url}", f"b={bot.url}", "strong",
                             "--game", "toy-race", "--games", "2", "--seats", "2",
                             "--concurrency", "2", "--state-dir", str(tmp_path))
        assert code == 0, err
        assert (f"warning: bot {bot.url} takes at most 2 connections (its GET /), but the "
                "matches may hold 4 open to it at once: lower --concurrency (now 2)") in err
        code, out, err = run("tournament", f"a={bot.url}", "strong", "--game", "toy-race",
                             "--games", "2", "--concurrency", "2", "--state-dir", str(tmp_path))
        assert code == 0 and "warning" not in err
