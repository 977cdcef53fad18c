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
import tournament_bots
from click.testing import CliRunner
from support.cli import assert_clean_error
from support.http_bots import free_port

from cli import main


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
    assert "      -        4/4" in out and "0/4          -" in out  # the crosstable rows


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


def test_a_dead_http_bot_shows_its_forfeits(tmp_path):
    dead = f"dead=http://127.0.0.1:{free_port()}"
    code, out, err = run("tournament", "strong", dead, "--game", "toy-race", "--games", "2",
                         "--time-ms", "200", "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    entrants = {e["name"]: e for e in json.loads(out)["entrants"]}
    strikes = entrants["dead"]["strikes"]
    assert entrants["dead"]["forfeits"] == 2 and strikes >= 6  # three strikes, twice
    assert entrants["strong"]["forfeits"] == entrants["strong"]["strikes"] == 0
    tid = json.loads(out)["tournament"]
    code, out, err = run("tournament", "strong", dead, "--game", "toy-race", "--resume", tid,
                         "--state-dir", str(tmp_path))
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
    from ladder.store import leaderboard, open_db

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
    code, out, err = run("sprt", "strong", "noisy", "--game", "toy-race", "--seed", "1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["verdict"] == "H1" and doc["trace"][-1] >= doc["bounds"][1]
    assert doc["model"] == "normalized" and len(doc["trace"]) == doc["pairs"]
    code, out, err = run("sprt", "noisy", "other-noisy", "--game", "toy-race", "--seed", "1",
                         "--elo1", "40")
    assert code == 0, err
    assert "H0 accepted: noisy is not stronger than other-noisy" in out and "LLR" in out


@pytest.mark.parametrize("args, message", [
    (["strong", "weak", "--game", "toy-race-34"], "sprt needs a two-seat game"),
    (["strong", "weak", "--game", "toy-race", "--elo0", "5", "--elo1", "5"], "elo0"),
    (["strong", "weak", "--game", "toy-race", "--alpha", "0"], "alpha"),
    (["strong", "ghost", "--game", "toy-race"], "unknown bot 'ghost'"),
    (["strong", "weak", "--game", "chess"], "unknown game 'chess'"),
    (["strong", "http://[::1", "--game", "toy-race"], "bad bot URL 'http://[::1'"),
    (["ftp://x", "weak", "--game", "toy-race"], "must start with http://"),
    (["strong", "http://", "--game", "toy-race"], "no host"),
])
def test_sprt_errors_are_one_line(args, message):
    assert_clean_error(invoke("sprt", *args), None, message)


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
    kept = len(files[0].read_text().splitlines()) - 1
    assert 0 < kept < 120
    code, out, err = run("tournament", "slow", "noisy", "other-noisy", "--game", "toy-race",
                         "--resume", tid, "--state-dir", str(state), "--json")
    assert code == 0, err
    assert f"{120 - kept} of 120 games to play" in err
    assert json.loads(out)["played"] == 120
