"""Worker processes that end with their parent, however the parent ends.

A process pool's workers wait for work on a pipe that they also hold open for writing, so
when the parent is killed outright (SIGKILL by the OOM killer or a CI time limit) they never
see end-of-file and wait forever, and with them multiprocessing's resource tracker, which
lives as long as anyone holds its pipe. So each worker watches its parent itself:

* on Linux the kernel signals it when the parent goes (``prctl(PR_SET_PDEATHSIG)``); the
  signal also comes when only the parent *thread* that started the worker ends, so the
  handler exits only if the parent process is really gone;
* everywhere, a daemon thread polls ``os.getppid()``, which changes when the parent dies
  (the orphan is adopted by init or a subreaper).

:func:`die_with_parent` asks the same of the kernel for a child that is a program of its own
(the Celery process that ``referee worker`` supervises).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType

PR_SET_PDEATHSIG = 1

POLL_S = 0.5
"""How often the portable watch looks at the parent; the cost is a wake-up, not work."""
EXIT_CODE = 70
"""The worker's exit status when it leaves because its parent died (EX_SOFTWARE)."""


def exit_with_parent(parent_pid: int) -> None:
    """Make this process exit as soon as ``parent_pid`` is no longer its parent, or, for a
    worker that a fork server started on behalf of ``parent_pid``, as soon as that process
    ends (the fork server outlives it as long as its workers do, so it cannot be watched)."""
    if os.getppid() != parent_pid:
        if _alive(parent_pid):
            _watch_process(parent_pid)
            return
        os._exit(EXIT_CODE)  # the parent died before we got here
    if sys.platform.startswith("linux"):
        _ask_the_kernel(parent_pid)
    thread = threading.Thread(target=_poll, args=(parent_pid,), name="parent-watch",
                              daemon=True)
    thread.start()


def _ask_the_kernel(parent_pid: int) -> None:
    import ctypes

    def parent_gone(signum: int, frame: FrameType | None) -> None:
        if os.getppid() != parent_pid:
            os._exit(EXIT_CODE)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        signal.signal(signal.SIGUSR1, parent_gone)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGUSR1), 0, 0, 0) != 0:
            signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    except (OSError, AttributeError, ValueError):  # no libc symbol, or not the main thread
        pass
    if os.getppid() != parent_pid:  # it died between the first check and the prctl
        os._exit(EXIT_CODE)


def _poll(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_S)
    os._exit(EXIT_CODE)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but another user's
        return True
    return True


def _watch_process(pid: int) -> None:
    """Exit when ``pid``, which is not our parent, ends: told by the kernel through a pidfd
    where there is one (no wake-ups), else by polling it."""
    try:
        handle = os.pidfd_open(pid)  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        handle = None

    def wait_for_it() -> None:
        if handle is not None:
            select.select([handle], [], [])
        else:
            while _alive(pid):
                time.sleep(POLL_S)
        os._exit(EXIT_CODE)

    threading.Thread(target=wait_for_it, name="parent-watch", daemon=True).start()
    if not _alive(pid):  # it ended before the watch began
        os._exit(EXIT_CODE)


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel send ``sig`` to the child when its parent ends
    (Linux; ``None`` elsewhere). Everything that could take a lock is done here, before the
    fork; the child only makes the call (and exits at once if the parent is already gone)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the call
            os._exit(1)

    return arm
