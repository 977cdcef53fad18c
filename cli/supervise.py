"""Keep a Celery worker or beat running through its own crashes.

A worker rides out a broker outage by itself (it reconnects, retrying for ever), but not every
outage: on some reconnections kombu's Redis transport raises out of the worker's consumer
("Unrecoverable error: AttributeError …") and the worker exits for good, while matches wait.
A container's restart policy covers that where there is one; this covers every other way of
running ``referee worker`` and ``referee beat``: the command runs the Celery process as its
child, starts it again (after a pause that grows while it keeps failing) whenever it ends on
its own, and passes SIGTERM, SIGINT and SIGHUP on to it, ending with it when asked to stop.
The child runs in a process group of its own, so a terminal's Ctrl-C reaches it once, through
the supervisor (a second SIGINT would make Celery cut its running matches off), and it is told
to stop if the supervisor is killed outright (Linux: the kernel's parent-death signal), so no
Celery process outlives it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import click

from arena.watchdog import die_with_parent

RESTART_PAUSES_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
"""Pauses before each restart in a row; the last repeats."""
STEADY_S = 60.0
"""A child that ran this long was healthy: its next failure starts the pauses over."""
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
CHILD_FLAG = "--no-supervise"


def keep_running(what: str, args: Sequence[str] | None = None,
              pauses: Sequence[float] = RESTART_PAUSES_S) -> int:
    """Run ``args`` (default: this very command, with :data:`CHILD_FLAG`) until it ends
    because it was asked to (a forwarded signal) or by itself with status 0; its status."""
    args = list(args) if args is not None else [sys.executable, *sys.orig_argv[1:], CHILD_FLAG]
    stop = threading.Event()
    child: subprocess.Popen[bytes] | None = None

    def forward(signum: int, frame: object) -> None:
        stop.set()
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        failures = 0
        while True:
            began = time.monotonic()
            # SIGTERM when the supervisor dies: a warm shutdown
            child = subprocess.Popen(args, preexec_fn=die_with_parent(signal.SIGTERM),
                                     process_group=0)
            if stop.is_set():  # asked to stop while the child was starting
                child.terminate()
            code = child.wait()
            if stop.is_set() or code == 0:
                return code if code >= 0 else 128 - code
            failures = 0 if time.monotonic() - began >= STEADY_S else failures
            pause = pauses[min(failures, len(pauses) - 1)]
            failures += 1
            click.echo(f"referee {what}: the Celery {what} ended ({_status(code)}); "
                       f"starting it again in {pause:g} s", err=True)
            if stop.wait(pause):
                return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _status(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"
