"""The deadline machinery: a call that another thread can cut off, and its time in awake time.

* ``requests`` timeouts apply per socket read, not to the whole answer: a bot that drips one
  byte every 100 ms never trips them. So the deadline is enforced from outside the call: when
  it passes, the socket in use is shut down, which ends the blocked read at once. The deadline
  therefore covers connecting, sending, the status line, the headers and the body alike. For
  that, the connections hand their socket to the :class:`Call` their thread is making
  (:data:`current`) as soon as it exists (before a TLS handshake) and whenever a kept-alive
  connection is reused; :meth:`Call.abort` shuts it down from whichever thread keeps the time.
* Deadlines are kept in the referee's awake time (:mod:`referee.stall`): time the referee's
  process could not run (frozen, swapped, starved of CPU) is not the bot's. A bot is charged
  its wall-clock time less that stall (:class:`Stopwatch`), and is never cut off because the
  referee woke late.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from urllib3.connection import HTTPConnection, HTTPSConnection

from referee.stall import CLOCK


class Call:
    """One HTTP exchange that another thread may abort by shutting down its socket."""

    __slots__ = ("lock", "aborted", "finished", "sock", "in_tls")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.aborted = False
        self.finished = False
        self.sock: socket.socket | None = None
        self.in_tls = False
        """Connected but the TLS handshake not done: a cut-off here is worth a hint."""

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self.lock:
            self.sock = sock
            if self.aborted:
                _shutdown(sock)

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            if self.sock is not None and not self.finished:
                _shutdown(self.sock)

    def finish(self) -> bool:
        """Mark the exchange complete (before its connection goes back to the pool, so that a
        late abort cannot hit the next call's socket); ``False`` if it was aborted first."""
        with self.lock:
            self.finished = True
            return not self.aborted


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked recv; the owner closes the fd
    except OSError:
        pass


current = threading.local()
"""``current.call``: the :class:`Call` this thread is making (read by the connection hooks)."""


class _Tracked:
    """Mixin for urllib3 connections: hand the socket to the current call as soon as it
    exists (before a TLS handshake) and whenever a kept-alive connection is reused."""

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        self._track(sock)
        return sock

    def request(self, *args: Any, **kwargs: Any) -> None:
        self._track(getattr(self, "sock", None))
        super().request(*args, **kwargs)  # type: ignore[misc]

    def _track(self, sock: socket.socket | None) -> None:
        call = getattr(current, "call", None)
        if call is not None:
            call.attach(sock)


class TrackedHTTPConnection(_Tracked, HTTPConnection):
    pass


class TrackedHTTPSConnection(_Tracked, HTTPSConnection):
    """Also marks the call while its TLS handshake runs (between the TCP connection and the
    end of ``connect``): a plain-HTTP bot behind an https:// URL often just never answers it."""

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        call = getattr(current, "call", None)
        if call is not None:
            call.in_tls = True
        return sock

    def connect(self) -> None:
        super().connect()
        call = getattr(current, "call", None)
        if call is not None:
            call.in_tls = False


class Stopwatch:
    """A call's time on the wall clock and the referee's stall within it."""

    __slots__ = ("began", "stalled", "due")

    def __init__(self, budget_ms: float) -> None:
        self.began, self.stalled = time.perf_counter(), CLOCK.stalled()
        self.due = CLOCK.awake() + budget_ms / 1000
        """When the call is cut off, in awake time."""

    def stop(self) -> tuple[float, float]:
        """``(ms, stall_ms)``: the time charged to the bot (wall-clock time less the stall)
        and the time the referee's process was stalled, since the watch started."""
        stall = CLOCK.stalled() - self.stalled
        wall = time.perf_counter() - self.began
        return max(0.0, wall - stall) * 1000, stall * 1000
