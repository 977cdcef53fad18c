"""Time as the referee lived it: the clock less the time this process could not run.

A bot's time is measured by the referee, so when the referee itself stops (its worker frozen
by SIGSTOP or a debugger, its machine swapping, its process starved of CPU by a neighbour) the
clock goes on while nothing reads the bot's answer, which sits in the socket, on time. Charged
to the bot, that is a timeout strike for the referee's hiccup, and a bot already on two
strikes forfeits for it.

So while anything is being timed, one daemon thread ticks every :data:`TICK_S` and notes how
late each tick came. Lateness beyond :data:`TOLERANCE_S` means the process was not running:
that excess is *stall*, and :meth:`StallClock.awake` (the monotonic clock less every stall so
far) is the clock deadlines are kept on; it never runs backwards. A bot is charged its
wall-clock time less the stall during its call; deadlines are aborted in awake time, so a
frozen referee never cuts off a bot when it wakes up. A late tick is noticed by whichever runs
first after a freeze, the ticking thread or a reader asking :meth:`StallClock.stalled` (the
gap since the last tick counts at once), so there is no race between the two.

Lateness within the tolerance is ordinary scheduling (a thread waits up to the interpreter's
switch interval for the GIL) and counts for nothing. Nothing ticks while nothing is timed. A
process forked from one that timed something starts with a clock of its own.

The clock cannot tell a frozen process from one whose own thread holds the interpreter for
long (a bot's C call in the referee's process): in-process bots are therefore charged at
least the CPU time their own thread used (``referee.players``).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger("referee.stall")

TICK_S = 0.01
"""How often the clock looks while something is timed: a wake-up, not work."""
TOLERANCE_S = 0.015
"""Lateness of a tick that is still ordinary scheduling, not a stall."""


class Timer:
    """An action due at an awake moment; :meth:`cancel` it once it is not needed."""

    __slots__ = ("due", "action", "live")

    def __init__(self, due: float, action: Callable[[], None]) -> None:
        self.due, self.action, self.live = due, action, True

    def cancel(self) -> None:
        self.live = False


class StallClock:
    """The process's awake clock and its timers (one per process: :data:`CLOCK`)."""

    def __init__(self, tick_s: float = TICK_S, tolerance_s: float = TOLERANCE_S,
                 now: Callable[[], float] = time.monotonic, ticking: bool = True) -> None:
        """``now`` and ``ticking=False`` are for tests: a clock of their own, looked at only
        when they call :meth:`look`."""
        self.tick_s, self.tolerance_s, self._now = tick_s, tolerance_s, now
        self._ticking = ticking
        self._cond = threading.Condition()
        self._timers: list[tuple[float, int, Timer]] = []
        self._seq = itertools.count()
        self._holds = 0
        self._stalled = 0.0
        self._last = 0.0
        """When the clock last looked (meaningful while it is active)."""
        self._active = False
        self._thread: threading.Thread | None = None

    # -- reading --------------------------------------------------------------------------

    def stalled(self) -> float:
        """Seconds this process has been stalled while something was timed, so far."""
        with self._cond:
            return self._stalled + self._pending(self._now())

    def awake(self) -> float:
        """The monotonic clock less every stall: the clock deadlines are kept on."""
        with self._cond:
            now = self._now()
            return now - self._stalled - self._pending(now)

    def _pending(self, now: float) -> float:
        """The stall since the last tick, counted before the ticking thread notices it."""
        if not self._active:
            return 0.0
        return max(0.0, now - self._last - self.tick_s - self.tolerance_s)

    # -- timing ---------------------------------------------------------------------------

    def call_at(self, due: float, action: Callable[[], None]) -> Timer:
        """Run ``action`` (on the clock's thread: keep it short) once :meth:`awake` passes
        ``due``, unless the returned timer is cancelled first."""
        timer = Timer(due, action)
        with self._cond:
            heapq.heappush(self._timers, (due, next(self._seq), timer))
            self._activate()
        return timer

    def hold(self) -> None:
        """Keep the clock ticking (something is being timed) until :meth:`release`."""
        with self._cond:
            self._holds += 1
            self._activate()

    def release(self) -> None:
        with self._cond:
            self._holds -= 1

    def _activate(self) -> None:
        """Start ticking if idle. A ticking clock is not woken: it looks again within a tick,
        and waking it for every call would cost a thread switch per decision."""
        if self._active:
            return
        self._active, self._last = True, self._now()
        if self._ticking and (self._thread is None or not self._thread.is_alive()):
            self._thread = threading.Thread(target=self._run, name="stall-clock", daemon=True)
            self._thread.start()
        self._cond.notify()

    def _forget(self) -> None:
        """In a forked child: the parent's thread, timers and holds are not this process's."""
        self._cond = threading.Condition()
        self._timers, self._holds, self._active, self._thread = [], 0, False, None

    def _run(self) -> None:
        with self._cond:
            while True:
                if self._active:
                    self._look(self._now())
                self._cond.wait(self.tick_s if self._active else None)

    def look(self) -> None:
        """Book the stall since the last look, then run the timers that are due. The clock's
        thread looks every tick; a test with a clock of its own may look when it likes."""
        with self._cond:
            if self._active:
                self._look(self._now())

    def _look(self, now: float) -> None:
        """Book the stall since the last look, run the timers that are due, and go idle when
        nothing is timed any more."""
        self._stalled += self._pending(now)
        self._last = now
        awake = now - self._stalled
        timers = self._timers
        while timers and (timers[0][0] <= awake or not timers[0][2].live):
            timer = heapq.heappop(timers)[2]
            if timer.live:
                timer.live = False
                try:
                    timer.action()
                except Exception:  # one broken action must not stop every deadline
                    log.exception("a timed action failed")
        if not timers and not self._holds:
            self._active = False


CLOCK = StallClock()
"""The process's clock: every timed call of the referee keeps its deadline on it."""
os.register_at_fork(after_in_child=CLOCK._forget)
