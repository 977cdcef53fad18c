"""``cmd:`` seats: the referee starts the bot's program, plays through it over HTTP, keeps
what it wrote, reports its death and stops it (and what it started) however the match ends."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import MatchDescription, Seat, play_match
from arena.launch import LaunchError, launch
from cli import main
from referee.protocol import schema_errors

from tiny_bots import http_bot

ROOT = Path(__file__).resolve().parents[2]
PY = shlex.quote(sys.executable)


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting for its reaper has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def wait_for(check, limit_s: float = 30.0) -> bool:
    end = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(autouse=True)
def temporary_folders_here(tmp_path, monkeypatch):
    """The output folders a failing bot leaves (on purpose: the error names them) go to the
    test's folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))


def cmd(bot: Path, *flags: str) -> str:
    return f"cmd:{PY} {shlex.quote(str(bot))} --port {{port}} " + " ".join(flags)


def test_a_started_bot_plays_and_what_it_wrote_is_kept_per_decision(tmp_path):
    bot = http_bot(tmp_path)
    pidfile = tmp_path / "pids"
    record = play_match(MatchDescription(
        "toy-race", (Seat(cmd(bot), "tiny"), Seat("random")), seed=3,
        outputs=str(tmp_path / "game")))
    mine = [d for d in record.log["decisions"] if d["seat"] == 0]
    assert mine and all(d["status"] == "ok" for d in mine)
    for n, d in enumerate(mine, 1):
        assert d["stderr"] == [f"deciding {d['kind']} {n}"]
    assert all("stderr" not in d for d in record.log["decisions"] if d["seat"] == 1)
    assert not schema_errors("match-log", record.log)
    assert "tiny listening on" in (tmp_path / "game.seat0.stdout").read_text()
    assert (tmp_path / "game.seat0.stderr").read_text().count("deciding") == len(mine)
    assert not pidfile.exists()


def test_a_bot_that_dies_at_start_is_one_error_with_the_end_of_its_stderr(tmp_path):
    spec = cmd(http_bot(tmp_path), "--die-at-start")
    with pytest.raises(LaunchError) as caught:
        play_match(MatchDescription("toy-race", (Seat(spec), Seat("random")), seed=1))
    text = str(caught.value)
    assert "exit status 2" in text and "cannot load my weights" in text and "\n" not in text
    kept = Path(text.rsplit("(output in ", 1)[1].rstrip(")"))
    assert "cannot load my weights" in (kept / "seat0.stderr").read_text()
    assert kept.parent == tmp_path


def test_a_bot_that_never_answers_get_is_stopped_after_the_wait(tmp_path):
    spec = f"cmd:{PY} -c 'import time; print(\"no server\", flush=True); time.sleep(60)'"
    began = time.monotonic()
    with pytest.raises(LaunchError, match=r"no answer to GET / .* within 1 s"):
        launch(spec, "toy-race", ready_s=1.0)
    assert time.monotonic() - began < 20


def test_a_program_that_is_not_there_is_refused_before_playing():
    out = CliRunner().invoke(main, ["match", "cmd:no-such-program-xyz --port {port}", "random",
                                    "--game", "toy-race"])
    assert out.exit_code == 1 and "no program 'no-such-program-xyz'" in out.output


def test_a_bot_that_crashes_mid_tournament_is_restarted_and_the_crash_reported(tmp_path,
                                                                              caplog):
    bot = http_bot(tmp_path)
    spec = cmd(bot, "--crash-at", "2", "--marker", shlex.quote(str(tmp_path / "crashed")))
    logs = tmp_path / "logs"
    out = CliRunner().invoke(main, [
        "tournament", f"crashy={spec}", "random", "--game", "toy-race", "--games", "2",
        "--seed", "5", "--logs", str(logs), "--state-dir", str(tmp_path / "state"),
        "--no-progress"])
    assert out.exit_code == 0, out.output
    games = [json.loads(p.read_text()) for p in sorted(logs.glob("*.json"))]
    assert len(games) == 2
    crashed = [g for g in games if g["faults"]]
    assert len(crashed) == 1
    detail = crashed[0]["faults"][0]["detail"]
    assert "the bot's process ended: exit status 3" in detail and "boom: out of memory" in detail
    other = next(g for g in games if not g["faults"])  # the next game: a fresh process
    seat = next(p["seat"] for p in other["players"] if p["name"] == "crashy")
    assert all(d["status"] == "ok" for d in other["decisions"] if d["seat"] == seat)
    stderr = {p.name: p.read_text() for p in logs.glob("*.stderr")}  # beside the logs
    assert len(stderr) == 2 and sum("boom" in text for text in stderr.values()) == 1
    assert f"{crashed[0]['match_id']}.seat" in next(n for n, t in stderr.items() if "boom" in t)
    warned = [r.getMessage() for r in caplog.records if r.name == "referee.launch"]
    assert len(warned) == 1 and "bot crashy: its program ended during match " \
        f"{crashed[0]['match_id']} (exit status 3; its stderr ends: " in warned[0]
    assert "started afresh for the next match" in warned[0]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_no_bot_process_outlives_the_referee(tmp_path, sig):
    pidfile = tmp_path / "pids"
    spec = cmd(http_bot(tmp_path), "--hang", "--child", "--pidfile",
               shlex.quote(str(pidfile)))
    referee = subprocess.Popen(
        [sys.executable, "-c", "import cli; cli.main()", "match", spec, "random", "--game",
         "tokaido-duo", "--time-ms", "600000", "--seed", "1"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_for(pidfile.exists), referee.stderr.read() if referee.poll() else "no pid"
        bot, child = map(int, pidfile.read_text().split())
        referee.send_signal(sig)
        referee.wait(30)
        assert wait_for(lambda: gone(bot), 10), f"the bot survived {sig.name}"
        assert wait_for(lambda: gone(child), 10), f"the bot's own child survived {sig.name}"
        assert wait_for(lambda: not list(tmp_path.glob("referee-bot-*")), 10)  # removed
    finally:
        if referee.poll() is None:
            referee.kill()
        for pid in map(int, pidfile.read_text().split()) if pidfile.exists() else ():
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_bot_check_starts_the_starter_kit_by_command():
    starter = ROOT / "bots" / "starter" / "bot.py"
    out = CliRunner().invoke(main, [
        "bot", "check", f"cmd:{PY} {shlex.quote(str(starter))} --port {{port}}",
        "--game", "tokaido-duo", "--games", "1", "--seed", "2"])
    assert out.exit_code == 0, out.output
    assert "GET /: 'starter-python'  ok" in out.output and "PASS" in out.output


def test_a_tournament_shows_a_started_bot_by_the_name_its_get_declares(tmp_path):
    """Given by its command alone, the bot is started once before the first game and shown as
    its ``GET /`` names itself; given a NAME=, it keeps that."""
    starter = f"cmd:{PY} {shlex.quote(str(ROOT / 'bots' / 'starter' / 'bot.py'))} --port {{port}}"
    common = ["--game", "tokaido-duo", "--games", "2", "--seed", "3", "--state-dir",
              str(tmp_path), "--no-progress", "--json"]
    out = CliRunner().invoke(main, ["tournament", starter, "random", *common])
    assert out.exit_code == 0, out.output
    names = {row["name"] for row in json.loads(out.stdout)["entrants"]}
    assert names == {"starter-python", "random"}, names
    named = CliRunner().invoke(main, ["tournament", f"mine={starter}", "random", *common])
    assert named.exit_code == 0, named.output
    assert {row["name"] for row in json.loads(named.stdout)["entrants"]} == {"mine", "random"}


def test_bot_check_of_a_started_bot_that_does_not_play_the_game_says_so():
    starter = ROOT / "bots" / "starter" / "bot.py"
    out = CliRunner().invoke(main, [
        "bot", "check", f"cmd:{PY} {shlex.quote(str(starter))} --port {{port}}",
        "--game", "toy-race"])
    assert out.exit_code == 1 and "'toy-race' is not listed" in out.output, out.output


def test_bot_check_of_a_bare_address_suggests_the_scheme():
    out = CliRunner().invoke(main, ["bot", "check", "127.0.0.1:8000", "--game", "toy-race"])
    assert out.exit_code == 2 and "did you mean http://127.0.0.1:8000 ?" in out.output


def test_ctrl_c_in_bot_check_ends_with_130_and_a_line(monkeypatch):
    import cli.bot

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.bot, "check_bot", interrupted)
    out = CliRunner().invoke(main, ["bot", "check", "http://127.0.0.1:9", "--game", "toy-race"])
    assert out.exit_code == 130 and "interrupted: the check did not finish" in out.output
    assert "Aborted" not in out.output


def test_an_endless_stderr_line_is_cut_not_held_whole(tmp_path):
    from arena.launch import MAX_LINE

    started = launch(cmd(http_bot(tmp_path), "--long-stderr", str(5 * MAX_LINE)), "toy-race")
    try:
        assert wait_for(lambda: len(started.tail(10)) >= 2)
        pieces = started.tail(10)
        assert all(set(p) == {"x"} and MAX_LINE < len(p) <= 2 * MAX_LINE for p in pieces)
    finally:
        started.stop()
