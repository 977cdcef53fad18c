"""The keeper of a ``cmd:`` bot: run as a script, ``python -I -S keeper.py FOLDER COMMAND...``.

The referee starts this small process (standard library only, imports nothing of the project)
in a session and process group of its own, with its stdin a pipe whose other end only the
referee holds. The keeper runs COMMAND as its child, in the same group, and:

* ends with the bot's own status when the bot ends (so the referee sees how it died);
* when its stdin reaches end-of-file, which the kernel makes happen however the referee ends
  (SIGKILL included), stops the whole group: SIGTERM, then SIGKILL after the grace period.
  That takes with it whatever the bot started itself (``npm start``'s node, a shell's
  children), which the kernel's parent-death signal alone would leave behind. It then
  removes FOLDER, the bot's temporary output folder (``-``: none), which the referee could
  not remove;
* ignores SIGTERM and SIGINT itself, so that the referee's SIGTERM to the group reaches the
  bot and the keeper stays to report its status; and has the bot killed if the keeper itself
  is killed (Linux's parent-death signal, set in the bot before it runs).
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time

GRACE_S = 2.0
PR_SET_PDEATHSIG = 1
RESET = ("SIGTERM", "SIGINT", "SIGPIPE", "SIGXFSZ")
"""Signals whose disposition Python or the keeper changed: the bot gets the defaults."""


def run_bot(argv: list[str]) -> None:
    """In the forked child: become the bot (never returns)."""
    for name in RESET:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot run {argv[0]}: {exc.strerror}\n".encode())
    os._exit(127)


def wait_either(pid: int) -> int | None:
    """The bot's wait status once it ends, or ``None`` when the referee is gone first."""
    try:
        handle: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        handle = None
    watched = [0] if handle is None else [0, handle]
    while True:
        ready, _, _ = select.select(watched, [], [], 0.2 if handle is None else None)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if 0 in ready and not os.read(0, 4096):
            return None


def stop_group(pid: int, folder: str) -> None:
    """The referee is gone: end the whole group, the bot first, the keeper last."""
    os.killpg(0, signal.SIGTERM)
    end = time.monotonic() + GRACE_S
    while time.monotonic() < end:
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        time.sleep(0.05)
    if folder != "-":  # before the last signal, which ends the keeper too
        shutil.rmtree(folder, ignore_errors=True)
    os.killpg(0, signal.SIGKILL)


def main(folder: str, argv: list[str]) -> None:
    if os.getpgrp() != os.getpid():  # run by hand: a group of its own, to stop only its own
        os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:
        run_bot(argv)
    status = wait_either(pid)
    if status is None:
        stop_group(pid, folder)
        os._exit(1)
    if os.WIFSIGNALED(status):  # die the same way, so the referee reads the same status
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal whose default is not to end
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
