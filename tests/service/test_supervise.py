"""``referee worker`` and ``referee beat`` keep their Celery process running: a child that
ends on its own is started again, a stop request reaches it, and it never outlives them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli.supervise import keep_running

ROOT = Path(__file__).resolve().parents[2]


def test_a_child_that_fails_is_started_again_until_it_ends_well(tmp_path, capsys):
    runs = tmp_path / "runs"
    script = (f"import pathlib, sys; p = pathlib.Path({str(runs)!r}); "
              "n = len(p.read_text()) if p.exists() else 0; p.write_text('x' * (n + 1)); "
              "sys.exit(0 if n == 2 else 3)")
    assert keep_running("worker", [sys.executable, "-c", script], pauses=(0.01,)) == 0
    assert runs.read_text() == "xxx"
    said = capsys.readouterr().err
    assert said.count("the Celery worker ended (exit status 3); starting it again") == 2


def run_supervisor(child: str) -> subprocess.Popen[bytes]:
    code = ("import sys; from cli.supervise import keep_running; "
            f"sys.exit(keep_running('beat', [sys.executable, '-c', {child!r}]))")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def wait_for_child(supervisor: subprocess.Popen[bytes]) -> int:
    assert supervisor.stdout is not None
    return int(supervisor.stdout.readline())  # the child prints its pid once it runs


def gone(pid: int, timeout: float = 20.0) -> bool:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie of an ended supervisor counts as gone
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


SLEEPER = "import os, time; print(os.getpid(), flush=True); time.sleep(120)"


def test_a_stop_request_reaches_the_child_and_ends_the_supervisor():
    supervisor = run_supervisor(SLEEPER)
    child = wait_for_child(supervisor)
    supervisor.send_signal(signal.SIGTERM)
    assert supervisor.wait(timeout=20) == 128 + signal.SIGTERM
    assert gone(child)


def test_the_child_never_outlives_a_killed_supervisor():
    supervisor = run_supervisor(SLEEPER)
    child = wait_for_child(supervisor)
    supervisor.kill()
    supervisor.wait(timeout=20)
    assert gone(child)


def test_a_stop_request_while_the_child_starts_is_not_lost(monkeypatch):
    """SIGTERM lands after the child was started but before the supervisor knows its pid (the
    handler has no child to pass it to): the child is stopped all the same."""
    import cli.supervise as supervise_module

    real = subprocess.Popen

    def started_then_signalled(*args, **kwargs):
        child = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # handled before the caller gets the child
        return child

    monkeypatch.setattr(supervise_module.subprocess, "Popen", started_then_signalled)
    began = time.monotonic()
    code = keep_running("worker", [sys.executable, "-c", "import time; time.sleep(120)"])
    assert code == 128 + signal.SIGTERM
    assert time.monotonic() - began < 60  # not the child's two minutes


def test_the_child_has_a_process_group_of_its_own():
    """A terminal's Ctrl-C goes to the supervisor's group only: the child hears it once,
    forwarded (twice would make a Celery worker cut its running matches off)."""
    supervisor = run_supervisor(SLEEPER)
    child = wait_for_child(supervisor)
    try:
        assert os.getpgid(child) == child != os.getpgid(supervisor.pid)
    finally:
        supervisor.send_signal(signal.SIGINT)
        assert supervisor.wait(timeout=20) == 128 + signal.SIGINT
    assert gone(child)
