"""A tournament killed outright (SIGKILL, as the OOM killer or a CI limit does it): no process
is left behind, no lock is left stale, and the resume takes what the ladder already holds."""

from __future__ import annotations

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
from tournaments.store import JsonlStateStore
from tournaments.tournament import Tournament

import tournament_bots
from support.cli import assert_clean_error

LAUNCHER = Path(__file__).with_name("tournament_launcher.py")


@pytest.fixture(autouse=True)
def with_test_bots():
    with tournament_bots.registered():
        yield


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def live_processes_of_session(sid: int) -> list[int]:
    """Processes of session ``sid`` that are still running (exited ones awaiting their
    reaping, zombies, do not count: they hold nothing)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry))
    return found


def wait_for_games(state: Path, games: int, proc: subprocess.Popen[str]) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        files = list(state.glob("*.jsonl")) if state.exists() else []
        if files and len(files[0].read_text().splitlines()) > games:
            return files[0]
        time.sleep(0.05)
    raise AssertionError(f"the tournament did not get going: {proc.communicate()}")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_sigkill_leaves_no_worker_no_tracker_and_no_stale_lock(tmp_path):
    state = tmp_path / "state"
    cmd = [sys.executable, str(LAUNCHER), "tournament", "slow", "noisy", "other-noisy",
           "--game", "toy-race", "--games", "40", "--seats", "2", "--concurrency", "2",
           "--seed", "4", "--state-dir", str(state), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        path = wait_for_games(state, 3, proc)
        helpers = [pid for pid in live_processes_of_session(proc.pid) if pid != proc.pid]
        assert len(helpers) >= 2, helpers  # two workers (and the resource tracker)
        busy = invoke("tournament", "--game", "toy-race", "--resume", path.stem,
                      "--state-dir", str(state))
        assert_clean_error(busy, 1, f"is being played by process {proc.pid}")
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, as the OOM killer would
        proc.wait(timeout=10)
        deadline = time.monotonic() + 20
        while live_processes_of_session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert live_processes_of_session(proc.pid) == []
    finally:
        for pid in live_processes_of_session(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.communicate()
    kept = len(path.read_text().splitlines()) - 1
    out = invoke("tournament", "--game", "toy-race", "--resume", path.stem,
                 "--state-dir", str(state), "--json")
    assert out.exit_code == 0, out.output
    assert f"{120 - kept} of 120 games to play" in out.stderr
    assert json.loads(out.stdout)["played"] == 120


def test_a_second_resume_at_once_is_refused(tmp_path):
    out = invoke("tournament", "noisy", "weak", "--game", "toy-race", "--games", "4",
                 "--state-dir", str(tmp_path), "--json")
    tid = json.loads(out.stdout)["tournament"]
    lines = (tmp_path / f"{tid}.jsonl").read_text().splitlines()
    (tmp_path / f"{tid}.jsonl").write_text("\n".join(lines[:2]) + "\n")
    first = Tournament.resume(JsonlStateStore(tmp_path, tid))
    with first.playing():
        second = invoke("tournament", "--game", "toy-race", "--resume", tid,
                        "--state-dir", str(tmp_path))
    assert_clean_error(second, 1, f"tournament {tid} is being played by process {os.getpid()}")
    third = invoke("tournament", "--game", "toy-race", "--resume", tid,
                   "--state-dir", str(tmp_path), "--json")
    assert third.exit_code == 0 and json.loads(third.stdout)["played"] == 4


def test_resume_takes_the_results_the_ladder_already_holds(tmp_path):
    """The process died after the database commit and before the state-file line: the
    resumed run must take the stored results, never play those matches again."""
    from ladder.leaderboard import leaderboard
    from ladder.store import open_db

    url = f"sqlite:///{tmp_path / 'l.db'}"
    out = invoke("tournament", "counting", "noisy", "--game", "toy-race", "--games", "6",
                 "--db", url, "--state-dir", str(tmp_path), "--json")
    assert out.exit_code == 0, out.output
    first = json.loads(out.stdout)
    path = tmp_path / f"{first['tournament']}.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:3]) + "\n")  # the last four lines never written
    tournament_bots.DECISIONS.clear()
    out = invoke("tournament", "counting", "noisy", "--game", "toy-race", "--resume",
                 first["tournament"], "--db", url, "--state-dir", str(tmp_path), "--json")
    assert out.exit_code == 0, out.output
    assert tournament_bots.DECISIONS == []  # nothing was played again
    resumed = json.loads(out.stdout)
    assert resumed["entrants"] == first["entrants"] and resumed["played"] == 6
    engine = open_db(url)
    try:
        ladder = {row["bot"]: (row["games"], row["wins"], row["losses"])
                  for row in leaderboard(engine, "toy-race")}
    finally:
        engine.dispose()
    report = {e["name"]: e for e in resumed["entrants"]}
    cells = resumed["crosstable"]["counting"]["noisy"]
    assert ladder["counting"] == (6, cells["wins"], cells["losses"])
    assert report["counting"]["games"] == 6
    assert len(path.read_text().splitlines()) == 7  # the stored results are on file again
