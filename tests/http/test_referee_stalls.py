"""The referee's stalls are the referee's: time its process could not run is never a bot's.

A worker frozen mid-decision (SIGSTOP, a debugger, swapping) once struck a bot whose answer
had been waiting in the socket all along. The clock of :mod:`referee.stall` takes the time the
process was not running out of the bot's time and out of its deadline: checked here on a fake
clock, then for real, by freezing a process that plays a match over HTTP.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from referee.stall import StallClock

from support.http_bots import HostileServer

TICK, TOLERANCE = 0.01, 0.015


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def clock_on(fake: FakeTime) -> StallClock:
    return StallClock(TICK, TOLERANCE, now=fake, ticking=False)


def test_ticks_on_time_are_no_stall():
    fake = FakeTime()
    clock = clock_on(fake)
    clock.hold()
    for _ in range(100):
        fake.t += TICK + TOLERANCE  # as late as ordinary scheduling may be
        clock.look()
    assert clock.stalled() == 0.0
    clock.release()


def test_a_late_tick_is_a_stall_counted_at_once_and_once():
    fake = FakeTime()
    clock = clock_on(fake)
    clock.hold()
    before = clock.awake()
    fake.t += 3.0  # frozen for three seconds
    stall = 3.0 - TICK - TOLERANCE  # what ordinary scheduling would not explain
    assert clock.stalled() == pytest.approx(stall)  # before the clock's thread noticed
    clock.look()
    clock.look()
    assert clock.stalled() == pytest.approx(stall)
    assert clock.awake() - before == pytest.approx(TICK + TOLERANCE)
    clock.release()


def test_the_awake_clock_never_runs_backwards():
    fake = FakeTime()
    clock = clock_on(fake)
    clock.hold()
    readings = []
    for step in [0.001] * 40 + [0.5] + [0.003] * 20 + [2.0, 0.0, 0.02]:
        fake.t += step
        readings.append(clock.awake())
        if step > 0.1:
            clock.look()
            readings.append(clock.awake())
    assert readings == sorted(readings)
    clock.release()


def test_a_deadline_is_kept_in_awake_time():
    fake = FakeTime()
    clock = clock_on(fake)
    fired: list[float] = []
    clock.call_at(clock.awake() + 0.1, lambda: fired.append(fake.t))
    fake.t += 5.0  # a stall longer than the deadline: the call is not cut off on waking
    clock.look()
    assert fired == []
    for _ in range(12):  # 0.12 s of ordinary ticks later, it is
        fake.t += TICK
        clock.look()
    assert len(fired) == 1


def test_a_cancelled_timer_never_fires_and_nothing_ticks_when_idle():
    fake = FakeTime()
    clock = clock_on(fake)
    timer = clock.call_at(clock.awake() + 0.05, lambda: pytest.fail("cancelled timer fired"))
    timer.cancel()
    fake.t += 1.0
    clock.look()  # the stall of that second is booked, then the clock goes idle
    booked = clock.stalled()
    assert booked == pytest.approx(1.0 - TICK - TOLERANCE)
    fake.t += 10.0  # idle time is nobody's stall
    assert clock.stalled() == booked


def test_a_broken_action_does_not_stop_the_other_deadlines():
    fake = FakeTime()
    clock = clock_on(fake)
    fired = []
    clock.call_at(clock.awake() + 0.01, lambda: 1 / 0)
    clock.call_at(clock.awake() + 0.02, lambda: fired.append(True))
    for _ in range(3):
        fake.t += TICK
        clock.look()
    assert fired == [True]


def test_a_forked_child_has_a_clock_of_its_own():
    """A deadline the parent was keeping when it forked is not the child's: the child's clock
    starts idle and times its own calls."""
    from referee.stall import CLOCK

    CLOCK.hold()
    try:
        pid = os.fork()
        if pid == 0:  # the child: its clock must tick and fire by itself
            import threading
            done = threading.Event()
            ok = not CLOCK._active
            CLOCK.call_at(CLOCK.awake() + 0.05, done.set)
            os._exit(0 if ok and done.wait(10) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        CLOCK.release()
    assert os.waitstatus_to_exitcode(status) == 0


# -- for real: a process frozen while the bot's answer waits in its socket ----------------------

PLAYER = """
import json, sys
from bots.random_bot import RandomBot
from referee.games import find_game, register_game
from referee.match import TimeControl, play
from referee.players import InProcessPlayer
from referee.transport import HttpPlayer
register_game("toy-race", "support.toy")
record = play(find_game("toy-race"),
              [HttpPlayer(name="bot", url=sys.argv[1]),
               InProcessPlayer(name="random", bot=RandomBot("toy-race", 1))],
              5, time_control=TimeControl(int(sys.argv[2]), 0))
print(json.dumps({"faults": record.log["faults"], "decisions": record.log["decisions"]}))
"""


def wait_stopped(pid: int) -> None:
    """Until every thread of ``pid`` has stopped: a signal takes a moment to reach a thread
    running on another core, which could read the answer meanwhile."""
    tasks = f"/proc/{pid}/task"
    for _ in range(1000):
        states = []
        for tid in os.listdir(tasks):
            with open(f"{tasks}/{tid}/stat") as fh:
                states.append(fh.read().rpartition(")")[2].split()[0])
        if all(state in "tT" for state in states):
            return
        time.sleep(0.005)
    raise AssertionError(f"process {pid} did not stop: {states}")


class FreezingBot(HostileServer):
    """Answers at once, but at its ``at``-th decision freezes the referee's process first, so
    that the answer waits in the socket while the referee cannot read it."""

    def __init__(self, at: int, freeze_s: float) -> None:
        super().__init__("ok")
        self.at, self.freeze_s, self.pid = at, freeze_s, 0

    def _decide(self, out, doc):
        if len(self.arrivals) == self.at:
            os.kill(self.pid, signal.SIGSTOP)
            try:
                wait_stopped(self.pid)
                answered = super()._decide(out, doc)
                out.flush()
                time.sleep(self.freeze_s)
            finally:
                os.kill(self.pid, signal.SIGCONT)
            return answered
        return super()._decide(out, doc)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"], ids=["inline", "worker-thread"])
def test_a_referee_frozen_mid_decision_does_not_strike_the_bot(tmp_path, host):
    deadline_ms, freeze_s = 400, 1.0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        os.path.join(os.path.dirname(__file__), ".."), *sys.path]))}
    with FreezingBot(at=2, freeze_s=freeze_s) as bot:
        url = bot.url.replace("127.0.0.1", host)
        proc = subprocess.Popen([sys.executable, "-c", PLAYER, url, str(deadline_ms)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        bot.pid = proc.pid
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    log = json.loads(out)
    assert log["faults"] == []
    frozen = [d for d in log["decisions"] if d["seat"] == 0][1]  # the second one asked
    assert frozen["status"] == "ok"
    assert frozen["stall_ms"] >= freeze_s * 1000 * 0.8  # the freeze, seen as the referee's
    assert frozen["ms"] < deadline_ms  # and not charged to the bot


class StarvingBot(HostileServer):
    """Answers at once; from its first decision on, busy neighbours fill every core."""

    def __init__(self) -> None:
        super().__init__("ok")
        self.hogs: list[subprocess.Popen[bytes]] = []

    def _decide(self, out, doc):
        if not self.hogs:
            self.hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                         for _ in os.sched_getaffinity(0)]
        return super()._decide(out, doc)

    def stop_hogs(self) -> None:
        for hog in self.hogs:
            hog.kill()
            hog.wait()


def test_a_referee_starved_of_cpu_does_not_strike_a_prompt_bot():
    """The referee's process at the lowest share of a machine full of busy neighbours: the bot
    answers at once, so every late answer is the referee's, and none is a strike."""
    deadline_ms = 300
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        os.path.join(os.path.dirname(__file__), ".."), *sys.path]))}
    with StarvingBot() as bot:
        try:
            proc = subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", PLAYER, bot.url,
                                     str(deadline_ms)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env)
            out, err = proc.communicate(timeout=240)
        finally:
            bot.stop_hogs()
    assert proc.returncode == 0, err.decode()
    log = json.loads(out)
    assert log["faults"] == []
    mine = [d for d in log["decisions"] if d["seat"] == 0]
    assert all(d["ms"] <= deadline_ms for d in mine)


def test_an_in_process_bot_holding_the_interpreter_is_charged_its_own_time():
    """A clocked in-process bot whose one C call keeps the clock's thread from running: that is
    the bot's time, not a stall of the referee: it is charged at least the CPU it used."""
    import time as clock

    from referee.core import Decision, Option
    from referee.players import Bot, InProcessPlayer

    class Hog(Bot):
        cpu_ms = 0.0

        def decide(self, decision, view):
            began = clock.thread_time()
            sum(range(20_000_000))  # one long call that holds the GIL
            Hog.cpu_ms = (clock.thread_time() - began) * 1000
            return "a"

    decision = Decision(0, "pick", "pick", (Option("a", "a", {}), Option("b", "b", {})))
    answer = InProcessPlayer(name="hog", bot=Hog()).answer(decision, dict)
    assert answer.choice == "a" and Hog.cpu_ms > 20
    assert answer.elapsed_ms >= Hog.cpu_ms  # whatever the machine's load made the wall clock
