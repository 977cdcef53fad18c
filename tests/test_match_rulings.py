"""The runner's rulings as a specification, on the toy game and a fake clock.

A decision's deadline is the per-decision limit plus what is left of the seat's overage bank;
an answer exactly at the deadline is on time, one a hair later is a timeout; only the time
over the per-decision limit is taken from the bank, and the bank never goes below zero.  A
forfeited seat is never a winner, whatever its rank.  A lone decision is asked on the
runner's own thread, simultaneous remote decisions on the pool's, and the pool is shut when
the match ends.  A bot's log line is kept up to the cap.

Times are scripted (a player that reports how long it took, or a bot that moves a fake
``perf_counter``), so nothing here depends on how busy the machine is.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import FrozenInstanceError
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest

from referee.core import Decision, EndReason, Result, SeatResult
from referee.faults import Fault, FaultReason
from referee.match import Runner, TimeControl, apply_forfeits
from referee.matchlog import MAX_LOG_CHARS
from referee.players import Answer, Bot, DecisionRequest, InProcessPlayer, MatchInfo, Player

LIMIT_MS, BANK_MS = 100, 50
SCRIPT = [100.5, 129.5, 120.0, 100.5]
"""One seat's answer times: half a millisecond into the bank (deadline 100 + 50), 29.5 ms more
(deadline 100 + 49: whole milliseconds of the bank are offered), exactly at the deadline that
leaves (100 + 20), then half a millisecond past the bare limit (the bank is empty)."""


class Scripted(Player):
    """A player that answers the first option, taking the scripted time (then 0 ms), and
    records what it was asked and on which thread."""

    def __init__(self, name: str, times: list[float] | None = None, remote: bool = False,
                 clocked: bool = True, log: str | None = None) -> None:
        super().__init__(name)
        self.remote, self._clocked, self.log = remote, clocked, log
        self.times: Iterator[float] = iter(times or [])
        self.requests: list[DecisionRequest] = []
        self.threads: list[threading.Thread] = []

    @property
    def clocked(self) -> bool:
        return self._clocked

    def decide(self, request: DecisionRequest) -> Answer:
        self.requests.append(request)
        self.threads.append(threading.current_thread())
        return Answer(request.decision.options[0].id, next(self.times, 0.0), log=self.log)


def run(toy_game: Any, *seats: Player, strikes: int = 3) -> Any:
    return Runner(toy_game, list(seats), seed=4, strikes=strikes,
                  time_control=TimeControl(LIMIT_MS, BANK_MS)).run()


def own(record: Any, seat: int) -> list[dict[str, Any]]:
    return [d for d in record.log["decisions"] if d["seat"] == seat]


# -- the clock: deadline, bank, boundary ------------------------------------------------------

def test_the_deadline_is_the_limit_plus_the_bank_left_and_on_time_at_the_deadline(toy_game):
    timed = Scripted("timed", SCRIPT)
    record = run(toy_game, timed, Scripted("other"))
    deadlines = [(r.deadline_ms, r.bank_ms) for r in timed.requests[:5]]
    assert deadlines == [(150, 50), (149, 49), (120, 20), (100, 0), (100, 0)]
    assert [d["status"] for d in own(record, 0)[:4]] == ["ok", "ok", "ok", "timeout"]
    assert record.seats[0].strikes == 1 and record.seats[0].bank_ms == 0
    assert [f["reason"] for f in record.log["faults"]] == ["timeout"]


def test_an_unclocked_player_is_never_late_and_keeps_its_bank(toy_game):
    slow = Scripted("slow", [10_000.0] * 3, clocked=False)
    record = run(toy_game, slow, Scripted("other"))
    assert record.log["faults"] == [] and record.seats[0].bank_ms == BANK_MS
    assert [r.deadline_ms for r in slow.requests[:3]] == [150, 150, 150]


class FakeClock:
    """``perf_counter`` and ``thread_time`` of the players module: time moves only when a
    bot says it thought, in exact fractions (so 120 ms is 120 ms, not 119.99999...)."""

    def __init__(self) -> None:
        self.now = Fraction(1000)

    def perf_counter(self) -> Fraction:
        return self.now

    def thread_time(self) -> Fraction:
        return self.now


class Thinker(Bot):
    """An in-process bot held to the clock, thinking the scripted times on the fake clock."""

    def __init__(self, clock: FakeClock, times: list[float]) -> None:
        self.clock, self.times = clock, iter(times)

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        self.clock.now += Fraction(str(next(self.times, 0.0))) / 1000
        return decision.options[0].id


def test_the_in_process_fast_path_rules_the_clock_the_same_way(toy_game, monkeypatch):
    import referee.players

    clock = FakeClock()
    monkeypatch.setattr(referee.players, "time", clock)
    thinker = InProcessPlayer(name="thinker", bot=Thinker(clock, SCRIPT))
    record = run(toy_game, thinker, InProcessPlayer(name="other", bot=Thinker(clock, [])))
    mine = own(record, 0)
    # lone moves go by the fast path, the sealed bid (both seats at once) by a request
    assert {d["kind"] for d in mine[:4]} == {"move", "bid"}
    assert [(d["status"], d["ms"]) for d in mine[:4]] == [
        ("ok", 100.5), ("ok", 129.5), ("ok", 120.0), ("timeout", 100.5)]
    assert record.seats[0].strikes == 1 and record.seats[0].bank_ms == 0


def test_the_third_strike_forfeits_by_default(toy_game):
    late = Scripted("late", [LIMIT_MS + 1.0] * 50)
    record = Runner(toy_game, [late, Scripted("other")], seed=4,
                    time_control=TimeControl(LIMIT_MS, 0)).run()
    statuses = [d["status"] for d in own(record, 0)]
    assert statuses[:4] == ["timeout", "timeout", "timeout", "forfeited"]
    assert len(late.requests) == 3  # a forfeited seat is not asked again
    assert record.log["players"][0] == {"seat": 0, "name": "late", "strikes": 3,
                                        "forfeited": True}
    with pytest.raises(FrozenInstanceError):  # a fault is what the log says it was
        record.faults[0].seat = 1  # type: ignore[misc]


def test_the_board_given_is_the_board_played_and_logged(toy_game):
    board = SimpleNamespace(data={"goal": 10, "note": "mine"})
    record = Runner(toy_game, [Scripted("a"), Scripted("b")], seed=4, board=board).run()
    assert record.log["board"] == {"goal": 10, "note": "mine"}
    plain = Runner(toy_game, [Scripted("a"), Scripted("b")], seed=4).run()
    assert plain.log["board"] == {"goal": 10}


class Announced(Scripted):
    """A player whose ``/start`` and ``/end`` take scripted time on a fake clock and may fail."""

    def __init__(self, name: str, clock: FakeClock, start_fault: Fault | None = None,
                 end_fault: Fault | None = None) -> None:
        super().__init__(name)
        self.clock, self.start_fault, self.end_fault = clock, start_fault, end_fault
        self.infos: list[MatchInfo] = []

    def start(self, info: MatchInfo) -> Fault | None:
        self.infos.append(info)
        self.clock.now += Fraction(25, 1000)
        return self.start_fault

    def end(self, match_id: str, result: Mapping[str, Any]) -> Fault | None:
        self.clock.now += Fraction(5, 1000)
        return self.end_fault


def test_start_and_end_announce_the_match_and_only_a_failed_start_is_a_strike(
        toy_game, monkeypatch):
    import referee.match

    clock = FakeClock()
    monkeypatch.setattr(referee.match, "time", clock)
    seats = [Announced("a", clock, start_fault=Fault(FaultReason.TIMEOUT, "slow start")),
             Announced("b", clock, end_fault=Fault(FaultReason.BAD_JSON, "bad end"))]
    record = run(toy_game, *seats)
    assert [info.players for s in seats for info in s.infos] == [((0, "a"), (1, "b"))] * 2
    assert [info.seat for s in seats for info in s.infos] == [0, 1]
    assert [(s.start_ms, s.end_ms) for s in record.seats] == [(25.0, 5.0), (25.0, 5.0)]
    assert [(f["seat"], f["kind"], f["reason"]) for f in record.log["faults"]] == [
        (0, "start", "timeout"), (1, "end", "bad_json")]
    assert [s.strikes for s in record.seats] == [1, 0]


# -- forfeits ---------------------------------------------------------------------------------

def game_result(ranks: list[int]) -> Result:
    seats = tuple(SeatResult(i, 10 - r, {}, r) for i, r in enumerate(ranks))
    return Result(seats, tuple(i for i, r in enumerate(ranks) if r == 1), EndReason.NORMAL,
                  7, "over")


def test_a_forfeited_seat_is_last_and_never_a_winner():
    one = apply_forfeits(game_result([1, 2, 3]), [0])
    assert [s.rank for s in one.seats] == [3, 1, 2] and one.winners == (1,)
    assert one.end is EndReason.FORFEIT and one.reason == "seat(s) 0 forfeited; over"
    every = apply_forfeits(game_result([1, 2]), [0, 1])
    assert [s.rank for s in every.seats] == [1, 2]  # the game's order among forfeits
    assert every.winners == ()  # rank 1, forfeited: no winner
    assert apply_forfeits(game_result([2, 1]), []) == game_result([2, 1])


def test_a_match_every_seat_forfeits_has_no_winner(toy_game):
    record = run(toy_game, Scripted("a", [500.0] * 9), Scripted("b", [500.0] * 9), strikes=1)
    assert record.result.end is EndReason.FORFEIT and record.result.winners == ()
    assert record.log["forfeited"] == [0, 1]
    assert record.log["result"]["winners"] == []


# -- threads ----------------------------------------------------------------------------------

def test_a_lone_decision_is_asked_on_the_runners_thread_and_simultaneous_ones_on_the_pool(
        toy_game):
    seats = [Scripted("a", remote=True), Scripted("b", remote=True)]
    record = run(toy_game, *seats)
    me = threading.current_thread()
    kinds: dict[str, set[bool]] = {"move": set(), "bid": set()}
    for seat in seats:
        for request, thread in zip(seat.requests, seat.threads):
            kinds[request.decision.kind].add(thread is me)
    assert kinds == {"move": {True}, "bid": {False}}
    assert record.result.end is EndReason.NORMAL


def test_the_pool_is_shut_when_the_match_ends(toy_game):
    seats = [Scripted("a", remote=True), Scripted("b", remote=True)]
    runner = Runner(toy_game, seats, seed=4)  # held: a dropped pool would end its threads too
    runner.run()
    pooled = {t for s in seats for t in s.threads if t is not threading.current_thread()}
    assert pooled
    for thread in pooled:
        thread.join(timeout=10)  # a bounded wait: an idle worker of a live pool never ends
        assert not thread.is_alive()
    assert runner.seats[0].strikes == 0


# -- the log ----------------------------------------------------------------------------------

@pytest.mark.parametrize("length, kept", [(MAX_LOG_CHARS, MAX_LOG_CHARS),
                                          (MAX_LOG_CHARS + 1, MAX_LOG_CHARS), (5, 5)])
def test_a_bots_log_line_is_kept_up_to_the_cap(toy_game, length, kept):
    line = "".join(chr(ord("a") + i % 26) for i in range(length))
    record = run(toy_game, Scripted("chatty", log=line), Scripted("quiet"))
    logs = {d.get("log") for d in own(record, 0)}
    assert logs == {line[:kept]}
    assert all("log" not in d for d in own(record, 1))
    assert MAX_LOG_CHARS == 4096  # the documented cap (docs/protocol.md)
