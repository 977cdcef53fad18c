"""The match runner: asks seats for decisions, enforces time, strikes and fallbacks, logs.

It knows no game's rules: it only sees :class:`~referee.core.State` and
:class:`~referee.players.Player`.  A bot's fault never raises here; it becomes a strike with a
reason, a fallback option drawn from a generator seeded by the match seed (so the match stays
reproducible), and after ``strikes`` strikes a forfeit: the seat is ranked last and the game is
played out by the fallback so the other seats still get their result.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

from referee.core import (
    Decision, EndReason, Game, GameOptionsError, Result, SeatResult, State, option_index,
    ranks_from_keys,
)
from referee.display import printable
from referee.faults import Fault, FaultReason
from referee.matchlog import (
    FORFEITED, LOG_FORMAT, LOG_VERSION, MAX_LOG_CHARS, OK, UNFINISHED, DecisionEntry, FaultEntry,
    MatchLog, PlayerEntry, TimeControlDoc, cap_stderr, summary_of,
)
from referee.players import Answer, DecisionRequest, InProcessPlayer, MatchInfo, Player

MAX_STEPS = 1_000_000
"""A guard against an engine bug that never ends a game; no real game comes near it."""


DEFAULT_STRIKES = 3
"""Strikes that forfeit a seat unless a match says otherwise (the CLI's and the service's)."""


@dataclass(frozen=True)
class TimeControl:
    """Per-decision limit plus an optional per-seat overage bank (both in milliseconds)."""

    decision_ms: int = 1000
    bank_ms: int = 0

    def to_dict(self) -> TimeControlDoc:
        return {"decision_ms": self.decision_ms, "bank_ms": self.bank_ms}


@dataclass(frozen=True)
class FaultRecord:
    """A fault of one seat in a match: at decision ``step`` (of ``kind``), or at ``/start``
    or ``/end`` (``step`` ``None``, ``kind`` ``"start"`` or ``"end"``). The typed form of a
    log's ``faults`` entry, with the start of a bad body, which the log does not keep."""

    step: int | None
    seat: int
    kind: str
    fault: Fault

    @property
    def reason(self) -> FaultReason:
        return self.fault.reason

    def to_log(self) -> FaultEntry:
        return {"step": self.step, "seat": self.seat, "kind": self.kind,
                "reason": self.fault.reason.value, "detail": printable(self.fault.detail)}


@dataclass
class SeatRecord:
    """Running tally for one seat during a match, and what its calls showed."""

    name: str
    strikes: int = 0
    bank_ms: float = 0.0
    forfeited: bool = False
    faults: list[FaultRecord] = field(default_factory=list)
    start_ms: float | None = None
    """How long ``/start`` took (``None``: not called)."""
    end_ms: float | None = None
    """How long ``/end`` took (``None``: not called)."""
    notes: list[str] = field(default_factory=list)
    """The player's protocol deviations that are not strikes (see ``arena.conformance``)."""


@dataclass
class MatchRecord:
    """A finished match: the final result (forfeits applied), the log document, and each
    seat's tally (its faults typed, its lifecycle timings and notes: what the log leaves out)."""

    result: Result
    log: MatchLog
    seats: list[SeatRecord]
    faults: list[FaultRecord] = field(default_factory=list)
    """Every seat's faults in the order they happened (the log's ``faults``, typed)."""

    def summary(self) -> dict[str, Any]:
        """The ``referee match --json`` object."""
        return summary_of(self.log)


def apply_forfeits(result: Result, forfeited: Sequence[int]) -> Result:
    """Rank forfeited seats last (sharing last place), keep the others' order from the game."""
    if not forfeited:
        return result
    game_rank = {s.seat: s.rank for s in result.seats}
    keys = [(s.seat not in forfeited, -game_rank[s.seat]) for s in result.seats]
    ranks = ranks_from_keys(keys)
    seats = tuple(
        SeatResult(s.seat, s.score, s.breakdown, r) for s, r in zip(result.seats, ranks)
    )
    winners = tuple(s.seat for s in seats if s.rank == 1 and s.seat not in forfeited)
    reason = "seat(s) %s forfeited; %s" % (", ".join(map(str, forfeited)), result.reason)
    return Result(seats, winners, EndReason.FORFEIT, result.rounds, reason, result.extra,
                  result.turns)


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a match: a ``KeyboardInterrupt`` (whoever stops on one still does) that
    carries the log so far, marked unfinished (:data:`~referee.matchlog.UNFINISHED`), so that
    ``referee match --log`` can keep what was played, as ``tournament`` keeps its games."""

    def __init__(self, log: MatchLog) -> None:
        super().__init__(log)  # the only argument: it pickles (a worker process may raise it)
        self.log = log

    def __str__(self) -> str:
        return f"interrupted after {len(self.log['decisions'])} decisions"


class Runner:
    """Plays one match between ``players`` (one per seat, in seat order)."""

    def __init__(
        self,
        game: Game,
        players: Sequence[Player],
        seed: int,
        board: Any | None = None,
        options: Mapping[str, Any] | None = None,
        time_control: TimeControl = TimeControl(),
        strikes: int = DEFAULT_STRIKES,
        match_id: str | None = None,
        seat_time_controls: Sequence[TimeControl | None] = (),
    ) -> None:
        """``seat_time_controls``: a seat's own time control where it is not ``None`` (a
        time handicap, or an engine given more time), the match's ``time_control`` elsewhere."""
        if len(players) not in game.player_counts:
            counts = ", ".join(map(str, game.player_counts))
            raise GameOptionsError(
                f"{game.name} is played by {counts} seat(s); got {len(players)} bot(s)"
            )
        self.game, self.players, self.seed = game, list(players), seed
        self.board = board if board is not None else game.load_board()
        self.options = game.validate_options(options)
        self.time_control, self.strike_limit = time_control, strikes
        own = list(seat_time_controls)[:len(self.players)]
        self.clocks = [c or time_control for c in own + [None] * (len(self.players) - len(own))]
        """Each seat's time control."""
        self.match_id = match_id or uuid.uuid4().hex
        self.fallback_rng = random.Random(f"{seed}:fallback")
        self.seats = [SeatRecord(p.name, bank_ms=c.bank_ms)
                      for p, c in zip(self.players, self.clocks)]
        self.decisions: list[DecisionEntry] = []
        self.faults: list[FaultRecord] = []
        self._pool: ThreadPoolExecutor | None = None
        self._direct: list[InProcessPlayer | None] = [
            p if type(p) is InProcessPlayer else None for p in self.players]
        """Per seat, the player if it is asked on the fast path (:meth:`_ask_direct`) when
        alone to decide: a plain in-process player, whose answer needs no
        :class:`DecisionRequest`."""

    def run(self) -> MatchRecord:
        """Play the match to its end. Raises :class:`MatchInterrupted` (the log so far) on
        Ctrl-C during play."""
        state = self.game.new_state(len(self.players), self.seed, self.board, self.options)
        self._announce_start()
        try:
            try:
                self._play(state)
            except KeyboardInterrupt:
                raise MatchInterrupted(self._unfinished_log()) from None
            return self._finish(state)
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)

    def _play(self, state: State) -> None:
        """Ask for every decision until the game is over."""
        views = [partial(state.view, seat) for seat in range(len(self.players))]
        step = 0
        while True:
            pending = state.pending()
            if not pending:
                break
            if step >= MAX_STEPS:
                raise RuntimeError(f"{self.game.name}: no end after {MAX_STEPS} steps")
            if len(pending) == 1 and self._direct[pending[0].seat] is not None:
                decision = pending[0]
                state.apply({decision.seat: self._ask_direct(decision, step,
                                                             views[decision.seat])})
            else:
                state.apply(self._ask_all(state, pending, step))
            step += 1

    def _finish(self, state: State) -> MatchRecord:
        """The result (forfeits applied), ``/end`` for every seat, the log."""
        game_result = state.result()
        assert game_result is not None
        forfeited = [i for i, s in enumerate(self.seats) if s.forfeited]
        result = apply_forfeits(game_result, forfeited)
        self._announce_end(result)  # before the log: an /end failure is in it
        log = self._log(forfeited)
        log["game_result"], log["result"] = game_result.to_dict(), result.to_dict()
        for seat, player in zip(self.seats, self.players):
            seat.notes = list(player.notes)
        return MatchRecord(result, log, self.seats, self.faults)

    # -- asking ---------------------------------------------------------------------------

    def _ask_all(self, state: State, pending: list[Decision], step: int) -> dict[int, str]:
        requests = [self._request(state, d, step) for d in pending]
        if len(pending) > 1 and any(self.players[d.seat].remote for d in pending):
            pool = self._executor()
            futures = [pool.submit(self._ask_one, d, r) for d, r in zip(pending, requests)]
            answers = [f.result() for f in futures]
        else:
            answers = [self._ask_one(d, r) for d, r in zip(pending, requests)]
        return {
            d.seat: self._settle(d, a, step) for d, a in zip(pending, answers)
        }

    def _request(self, state: State, decision: Decision, step: int) -> DecisionRequest:
        seat = decision.seat
        bank = max(0, int(self.seats[seat].bank_ms))
        return DecisionRequest(
            match_id=self.match_id,
            game=self.game.name,
            seat=seat,
            request_id=f"{self.match_id}:{step}:{seat}",
            decision=decision,
            view=lambda: state.view(seat),
            deadline_ms=self.clocks[seat].decision_ms + bank,
            bank_ms=bank,
        )

    def _ask_direct(self, decision: Decision, step: int,
                    view: Callable[[], dict[str, Any]]) -> str:
        """The fast path of :meth:`_ask_all` for one decision of a plain in-process seat: the
        same answer, checks, booking and log entry, without building a request (and, as
        always, without the view unless the bot reads it: ``view`` builds the seat's)."""
        seat = decision.seat
        record = self.seats[seat]
        if record.forfeited:
            return self._settle(decision, None, step)
        player = self._direct[seat]
        assert player is not None
        answer = player.answer(decision, view)
        deadline = self.clocks[seat].decision_ms + max(0, int(record.bank_ms))
        return self._settle(decision, self._checked(decision, answer, deadline, player), step)

    def _ask_one(self, decision: Decision, request: DecisionRequest) -> Answer | None:
        """The seat's answer, its fault set if it cannot be used; ``None`` for a seat that has
        forfeited (it is not asked)."""
        if self.seats[decision.seat].forfeited:
            return None
        player = self.players[decision.seat]
        return self._checked(decision, player.decide(request), request.deadline_ms, player)

    @staticmethod
    def _checked(decision: Decision, answer: Answer, deadline_ms: int, player: Player) -> Answer:
        """``answer`` with its fault set if it came too late or names no offered option."""
        if answer.fault is None and answer.elapsed_ms > deadline_ms and player.clocked:
            answer.fault = Fault(FaultReason.TIMEOUT, f"answered after {answer.elapsed_ms:.0f} ms")
        if answer.fault is None and option_index(decision.options, answer.choice) is None:
            answer.fault = Fault(FaultReason.UNKNOWN_OPTION,
                                 f"{answer.choice!r} is not an offered id")
        return answer

    def _settle(self, decision: Decision, answer: Answer | None, step: int) -> str:
        """Book time and strikes; return the id to apply (the bot's, or the fallback)."""
        seat = self.seats[decision.seat]
        if answer is None:  # forfeited: the fallback plays the seat, no time is booked
            return self._book(decision, step, self.fallback_rng.choice(decision.options).id,
                              0.0, FORFEITED, None)
        over = answer.elapsed_ms - self.clocks[decision.seat].decision_ms
        if over > 0 and self.players[decision.seat].clocked:
            seat.bank_ms = max(0.0, seat.bank_ms - over)
        if answer.fault is None:
            assert answer.choice is not None
            return self._book(decision, step, answer.choice, answer.elapsed_ms, OK, answer.log,
                              answer.stall_ms, answer.stderr)
        choice = self.fallback_rng.choice(decision.options).id
        self._strike(FaultRecord(step, decision.seat, decision.kind, answer.fault))
        return self._book(decision, step, choice, answer.elapsed_ms, answer.fault.reason.value,
                          answer.log, answer.stall_ms, answer.stderr)

    def _strike(self, record: FaultRecord, strike: bool = True) -> None:
        """Record a fault; a strike counts towards the seat's forfeit."""
        seat = self.seats[record.seat]
        seat.faults.append(record)
        self.faults.append(record)
        if strike:
            seat.strikes += 1
            if seat.strikes >= self.strike_limit:
                seat.forfeited = True

    def _book(self, decision: Decision, step: int, choice: str, elapsed_ms: float, status: str,
              log: str | None, stall_ms: float = 0.0, stderr: list[str] | None = None) -> str:
        """Log one decision as settled; returns the id to apply. ``stall_ms``, the time the
        referee itself was stalled during the call (not charged to the bot), is logged when
        there was any, so that a slow decision of the referee's making reads as such;
        ``stderr``, the bot's stderr lines of the call (a bot the referee started), when any."""
        entry: DecisionEntry = {
            "step": step,
            "seat": decision.seat,
            "kind": decision.kind,
            "options": len(decision.options),
            "choice": choice,
            "ms": round(elapsed_ms, 3),
            "status": status,
        }
        if log:
            entry["log"] = log[:MAX_LOG_CHARS]
        if stall_ms >= 1.0:
            entry["stall_ms"] = round(stall_ms, 3)
        if stderr:
            entry["stderr"] = cap_stderr(stderr)
        self.decisions.append(entry)
        return choice

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=len(self.players))
        return self._pool

    # -- start, end, log ------------------------------------------------------------------

    def _announce_start(self) -> None:
        names = tuple((i, p.name) for i, p in enumerate(self.players))

        def start(seat: int, player: Player) -> Fault | None:
            info = MatchInfo(
                self.match_id, self.game.name, seat, names,
                cast(Mapping[str, int], self.clocks[seat].to_dict()),
                board_data(self.board),
            )
            return player.start(info)

        for seat, (fault, ms) in enumerate(self._each_player(start)):
            self.seats[seat].start_ms = ms
            if fault is not None:  # recorded, never fatal; a failed start is a strike
                self._strike(FaultRecord(None, seat, "start", fault))

    def _announce_end(self, result: Result) -> None:
        data = result.to_dict()
        faults = self._each_player(lambda seat, player: player.end(self.match_id, data))
        for seat, (fault, ms) in enumerate(faults):
            self.seats[seat].end_ms = ms
            if fault is not None:  # recorded, never a strike: the game is over
                self._strike(FaultRecord(None, seat, "end", fault), strike=False)

    def _each_player(self, call: Callable[[int, Player], Fault | None]
                     ) -> list[tuple[Fault | None, float]]:
        """``call`` for every seat, with how long it took; remote seats concurrently, so that
        one bot that is down (waiting out its connect timeout) does not delay the others'
        ``/start`` or ``/end``."""
        def timed(seat: int, player: Player) -> tuple[Fault | None, float]:
            began = time.perf_counter()
            fault = call(seat, player)
            return fault, (time.perf_counter() - began) * 1000

        remote = [s for s, p in enumerate(self.players) if p.remote]
        futures = {s: self._executor().submit(timed, s, self.players[s]) for s in remote}
        return [
            futures[s].result() if s in futures else timed(s, p)
            for s, p in enumerate(self.players)
        ]

    def _unfinished_log(self) -> MatchLog:
        """The log of the decisions taken so far, without results, marked unfinished."""
        log = self._log([i for i, s in enumerate(self.seats) if s.forfeited])
        log["unfinished"] = UNFINISHED
        return log

    def _log(self, forfeited: list[int]) -> MatchLog:
        """The log without its results (the caller adds them, or marks it unfinished)."""
        return {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "match_id": self.match_id,
            "game": self.game.name,
            "rules_version": self.game.rules_version,
            "seed": self.seed,
            "options": self.options,
            "board": board_data(self.board),
            "time_control": self.time_control.to_dict(),
            "strike_limit": self.strike_limit,
            "players": [self._player_entry(i) for i in range(len(self.seats))],
            "decisions": self.decisions,
            "faults": [f.to_log() for f in self.faults],
            "forfeited": forfeited,
        }

    def _player_entry(self, seat: int) -> PlayerEntry:
        """A seat in the log; its time control only when it is not the match's."""
        record = self.seats[seat]
        entry: PlayerEntry = {"seat": seat, "name": record.name, "strikes": record.strikes,
                              "forfeited": record.forfeited}
        if self.clocks[seat] != self.time_control:
            entry["time_control"] = self.clocks[seat].to_dict()
        return entry


def board_data(board: Any) -> Any:
    """The raw data a board was built from, embedded in logs so replays need no file."""
    return getattr(board, "data", None)


def play(
    game: Game,
    players: Sequence[Player],
    seed: int,
    **kwargs: Any,
) -> MatchRecord:
    """Convenience: run one match and close the players afterwards."""
    try:
        return Runner(game, players, seed, **kwargs).run()
    finally:
        for p in players:
            p.close()
