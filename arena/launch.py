"""Bots the referee starts itself: a ``cmd:COMMAND`` seat's process, from launch to stop.

:func:`launch` runs the command (split like a shell would, run without one) with a free
loopback port in its ``{port}`` placeholders and in ``PORT``, waits until it answers ``GET /``
and returns a :class:`Launched` that the seat then plays through exactly as through a URL. Its
stdout goes to a file; its stderr to a file too, read as it comes so that the lines a bot
writes during one decision can be put in that decision's log entry (:meth:`Launched.mark`,
:meth:`Launched.lines_since`).

No bot process may outlive the referee, however the referee ends, so each is started in a
session (and process group) of its own, away from the terminal's Ctrl-C, under a small keeper
process (:mod:`arena.keeper`), and its whole group is stopped (SIGTERM, then SIGKILL after
:data:`GRACE_S`):

* by :meth:`Launched.stop`, which the seat calls in a ``finally`` when its match ends;
* by an ``atexit`` hook and by SIGTERM and SIGHUP handlers (which then let the signal do what
  it did before), for every bot still running when the referee exits;
* by the keeper, when the referee is killed outright: the pipe it reads from, whose other end
  only the referee holds, then ends, and the keeper stops the group (what the bot started
  itself included, which the kernel's parent-death signal alone would miss). The bot gets the
  parent-death signal from its keeper (Linux), should the keeper itself be killed.

A thread's death cannot end a bot: the parent-death signal follows the thread that forked,
which is why the referee's own children (the keepers) do not rely on it.
"""

from __future__ import annotations

import atexit
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from referee.display import printable
from referee.errors import RefereeError

CMD_PREFIX = "cmd:"
READY_S = 20.0
"""How long a started bot has to answer ``GET /`` (an interpreter and its imports)."""
DYING_S = 0.5
"""How long a bot whose connection dropped is given to show that it has ended."""
GRACE_S = 2.0
"""How long a bot has to end after SIGTERM before it is killed."""
SIGNALLED_GRACE_S = 0.2
"""The grace a bot gets when the referee itself was told to end (SIGTERM, SIGHUP)."""
POLL_S = 0.05
TAIL_LINES = 5
"""Lines of a bot's stderr shown when it fails to start or dies."""
KEPT_LINES = 4000
"""Most recent stderr lines held in memory (the file holds them all)."""
MAX_LINE = 65536
"""Longest stderr line held whole in memory; a longer one is cut in pieces."""
KEEPER = str(Path(__file__).with_name("keeper.py"))
"""The script that runs a bot and ends its group when the referee ends (:mod:`arena.keeper`)."""


class LaunchError(RefereeError):
    """A ``cmd:`` bot that cannot be started, or does not answer ``GET /`` in time; the
    message is one line with the end of its stderr and where its output is kept."""


def command_argv(spec: str) -> list[str]:
    """The words of a ``cmd:`` spec; :class:`LaunchError` for one that is empty, does not
    split (an open quote) or names a program that is not there."""
    text = spec[len(CMD_PREFIX):] if spec.startswith(CMD_PREFIX) else spec
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise LaunchError(f"{spec}: cannot split the command ({exc})") from None
    if not argv:
        raise LaunchError(f"{spec!r}: no command after {CMD_PREFIX}")
    if shutil.which(argv[0]) is None:
        raise LaunchError(f"{spec}: no program {argv[0]!r} (not on PATH, or not executable)")
    return argv


def free_port() -> int:
    """A TCP port free on the loopback now (the bot binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Launched:
    """A running ``cmd:`` bot: its URL, its process (leader of its own group), its output
    files, and the stderr lines read so far."""

    def __init__(self, spec: str, argv: Sequence[str], port: int, folder: Path, stem: str,
                 keep: bool) -> None:
        self.spec, self.port, self.url = spec, port, f"http://127.0.0.1:{port}"
        self.folder, self.keep = folder, keep
        self.info: Any = None
        """Its answer to ``GET /`` once it is ready."""
        self.stdout_path = folder / f"{stem}.stdout"
        self.stderr_path = folder / f"{stem}.stderr"
        env = {**os.environ, "PORT": str(port), "PYTHONUNBUFFERED": "1"}
        with open(self.stdout_path, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", KEEPER, "-" if keep else str(folder), *argv],
                stdin=subprocess.PIPE,
                stdout=out, stderr=subprocess.PIPE, env=env, start_new_session=True)
        assert self.process.stderr is not None
        self._fd = self.process.stderr.fileno()
        os.set_blocking(self._fd, False)
        self._err = open(self.stderr_path, "wb")
        self._lock = threading.Lock()
        self._partial = b""
        self._lines: deque[str] = deque(maxlen=KEPT_LINES)
        self._count = 0
        self._eof = False
        self._stopped = False
        _LIVE.add(self)
        self._reader = threading.Thread(target=self._read_on, name=f"stderr-{port}",
                                        daemon=True)
        self._reader.start()

    # -- stderr ----------------------------------------------------------------------------

    def _read_on(self) -> None:
        while not self._eof:
            try:
                select.select([self._fd], [], [], 0.5)
            except (OSError, ValueError):  # closed under us by stop()
                return
            self.drain()

    def drain(self) -> None:
        """Read whatever stderr the bot has written (it cannot block: the pipe is set
        non-blocking); the reader thread calls it too, so a chatty bot never fills the pipe."""
        with self._lock:
            while not self._eof:
                try:
                    chunk = os.read(self._fd, 65536)
                except BlockingIOError:
                    return
                except (OSError, ValueError):
                    chunk = b""
                if not chunk:
                    self._eof = True
                    if self._partial:
                        self._add(self._partial)
                    self._partial = b""
                    return
                self._err.write(chunk)
                self._err.flush()
                *whole, self._partial = (self._partial + chunk).split(b"\n")
                if len(self._partial) > MAX_LINE:  # a line without end: cut it here
                    whole.append(self._partial)
                    self._partial = b""
                for line in whole:
                    self._add(line)

    def _add(self, raw: bytes) -> None:
        self._lines.append(raw.decode("utf-8", "replace").rstrip("\r"))
        self._count += 1

    def mark(self) -> int:
        """Where the stderr read so far ends: give it to :meth:`lines_since` later."""
        self.drain()
        return self._count

    def lines_since(self, mark: int) -> list[str]:
        """The stderr lines written since ``mark`` (those still held in memory)."""
        self.drain()
        with self._lock:
            new = self._count - mark
            return list(self._lines)[-new:] if new > 0 else []

    def tail(self, lines: int = TAIL_LINES) -> list[str]:
        self.drain()
        with self._lock:
            return list(self._lines)[-lines:]

    # -- life and death --------------------------------------------------------------------

    def exit_status(self, wait_s: float = 0.0) -> int | None:
        """The status the bot ended with on its own (``None``: running, or stopped by us),
        waiting up to ``wait_s`` for it to end (a dropped connection comes a moment before
        the process it came from is gone)."""
        if self._stopped:
            return None
        try:
            return self.process.wait(wait_s) if wait_s > 0 else self.process.poll()
        except subprocess.TimeoutExpired:
            return None

    def death(self) -> str:
        """What to say of a bot that ended on its own: its status, the end of its stderr and
        where its output is."""
        status = self.process.poll()
        how = ("still running" if status is None else
               f"exit status {status}" if status >= 0 else f"killed by {_signal_name(-status)}")
        tail = " | ".join(printable(line)[:200] for line in self.tail() if line.strip())
        said = f"; its stderr ends: {tail}" if tail else "; it wrote nothing on stderr"
        return f"{how}{said} (output in {self.folder})"

    def stop(self, grace_s: float = GRACE_S) -> None:
        """End the bot's whole process group (SIGTERM, SIGKILL after ``grace_s``), close
        its files and remove its output folder if it was temporary and the bot did not
        crash (a crash keeps it: the error names it)."""
        if self._stopped:
            return
        crashed = self.process.poll() is not None  # it ended before we stopped it
        self._stopped = True
        _LIVE.discard(self)
        kill_group(self.process, grace_s)
        self._reader.join(GRACE_S)
        self.drain()
        with self._lock:
            self._eof = True
            self._err.close()
            assert self.process.stderr is not None and self.process.stdin is not None
            self.process.stderr.close()
            self.process.stdin.close()
        if not self.keep and not crashed:
            shutil.rmtree(self.folder, ignore_errors=True)


def kill_group(process: subprocess.Popen[Any], grace_s: float) -> None:
    """SIGTERM to the group ``process`` leads, SIGKILL to whatever of it is left after
    ``grace_s`` (processes of the group that outlive its leader included)."""
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def launch(spec: str, game: str | None, outputs: str | None = None, stem: str = "bot",
           ready_s: float = READY_S) -> Launched:
    """Start the ``cmd:`` bot ``spec`` and wait until its ``GET /`` says it plays ``game``
    (any answer, for ``game`` ``None``: the bot check reads the document itself).

    Its output goes to ``outputs`` + ``.stdout`` and ``.stderr`` when ``outputs`` (a path
    prefix) is given, else to ``stem.*`` in a temporary folder, removed when the bot is
    stopped unless it crashed. Raises :class:`LaunchError` (the bot stopped) if it cannot
    start, dies, or does not answer within ``ready_s``.
    """
    argv = command_argv(spec)
    install_hooks()
    port = free_port()
    argv = [word.replace("{port}", str(port)) for word in argv]
    if outputs is not None:
        folder = Path(outputs).parent
        stem, keep = Path(outputs).name, True
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LaunchError(f"{spec}: cannot write its output in {folder}: "
                              f"{exc.strerror or exc}") from None
    else:
        folder, keep = Path(tempfile.mkdtemp(prefix="referee-bot-")), False
    try:
        bot = Launched(spec, argv, port, folder, stem, keep)
    except OSError as exc:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
        raise LaunchError(f"{spec}: cannot start it: {exc.strerror or exc}") from None
    try:
        bot.info = _wait_ready(bot, game, ready_s)
    except BaseException:
        bot.keep = True  # so that the folder the error names is there
        bot.stop()
        raise
    return bot


def declared_info(spec: str, game: str) -> Any:
    """What the ``cmd:`` bot ``spec`` says of itself in ``GET /``: started, asked and stopped
    (:class:`LaunchError` as :func:`launch`), so that a tournament can name it before its
    first game, and knows by then that it starts."""
    bot = launch(spec, game)
    bot.stop()
    return bot.info


def _wait_ready(bot: Launched, game: str | None, ready_s: float) -> Any:
    """Until the bot answers ``GET /`` (and plays ``game``): what it answered."""
    from arena.liveness import liveness_problem
    from referee.transport import fetch_info  # loads requests

    deadline = time.monotonic() + ready_s
    while True:
        if bot.process.poll() is not None:
            raise LaunchError(f"{bot.spec}: ended before answering GET / ({bot.death()})")
        info, fault = fetch_info(bot.url, budget_ms=1000)
        if fault is None:
            problem = None if game is None else liveness_problem(info, None, game)
            if problem:
                raise LaunchError(f"{bot.spec}: {problem}")
            if bot.process.poll() is not None:  # so who answered? another program's port
                raise LaunchError(f"{bot.spec}: ended as port {bot.port} answered GET / "
                                  f"({bot.death()})")
            return info
        if time.monotonic() >= deadline:
            raise LaunchError(f"{bot.spec}: no answer to GET / on port {bot.port} within "
                              f"{ready_s:g} s (does it listen on {{port}} or $PORT?); "
                              f"{bot.death()}")
        time.sleep(POLL_S)


# -- every bot still running when the referee ends ---------------------------------------------

_LIVE: set[Launched] = set()
_HOOKED = threading.Lock()
_at_exit = False
_on_signals = False


def stop_all(grace_s: float = GRACE_S) -> None:
    """Stop every bot still running (at exit)."""
    for bot in list(_LIVE):
        try:
            bot.stop(grace_s)
        except Exception:  # the others must still be stopped
            pass


def install_hooks() -> None:
    """:func:`stop_all` at exit (once per process), and :func:`end_all_now` before SIGTERM
    or SIGHUP does what it did (once, from the main thread: only it may set handlers; a
    process whose bots all start on other threads has the keepers, which see it end)."""
    global _at_exit, _on_signals
    with _HOOKED:
        if not _at_exit:
            atexit.register(stop_all)
            _at_exit = True
        if _on_signals or threading.current_thread() is not threading.main_thread():
            return
        _on_signals = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(sig)
        if previous is signal.SIG_IGN:
            continue
        signal.signal(sig, _chained(sig, previous))


def end_all_now(grace_s: float = SIGNALLED_GRACE_S) -> None:
    """Stop every bot still running from a signal handler: the groups signalled, the
    temporary folders of bots that had not crashed removed, and no lock taken (the handler
    may have interrupted this very thread inside one)."""
    bots = list(_LIVE)
    crashed = {id(bot) for bot in bots if bot.process.poll() is not None}
    for bot in bots:
        _signal_group(bot.process.pid, signal.SIGTERM)
    end = time.monotonic() + grace_s
    for bot in bots:
        try:
            bot.process.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        _signal_group(bot.process.pid, signal.SIGKILL)
        if not bot.keep and id(bot) not in crashed:
            shutil.rmtree(bot.folder, ignore_errors=True)


def _chained(sig: int, previous: Any) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        end_all_now()  # the referee is going: little time for each
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)

    return handler
