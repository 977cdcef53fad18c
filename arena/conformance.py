"""Does a bot speak the protocol? :func:`check_bot` reads its ``GET /``, plays short matches
against ``random`` and returns a typed :class:`ConformanceReport`.

What ``referee bot check URL`` prints, and what the service's bot registration stores and
answers (``POST /bots/{id}/check``): per call (``GET /``, ``/start``, ``/decide``, ``/end``) the
count of each status, the latency's median and 95th percentile and the start of the first bad
body; per decision kind the latency; the ``GET /`` document's problems, each naming its field;
the strikes with their reasons; ``/end`` failures (never strikes, but the protocol wants a 2xx);
and deviations that are not strikes (notes). A bot passes when none of those is found.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.description import (
    DescriptionError, MatchDescription, Seat, is_command, is_pull, runs_here,
)
from arena.play import play_match
from referee.display import printable, redact
from referee.faults import Fault
from referee.games import find_game
from referee.match import FaultRecord, MatchRecord, TimeControl
from referee.matchlog import FORFEITED, OK

if TYPE_CHECKING:
    from referee.relay import Relay
    from referee.transport import ConnectGuard

CHECK_OPPONENT = "random"
"""The built-in bot in the other seats of a check match."""


@dataclass(frozen=True)
class CallStats:
    """One kind of call to the bot over the whole check: how often each status came back
    (``"ok"`` or a fault reason), latency percentiles (nearest rank: a time that was really
    measured; ``None`` when never timed), and the start of the first bad body."""

    call: str
    statuses: dict[str, int]
    p50_ms: float | None
    p95_ms: float | None
    max_ms: float | None
    bad_body: str | None = None

    @property
    def count(self) -> int:
        return sum(self.statuses.values())

    def to_dict(self) -> dict[str, Any]:
        return {"call": self.call, "count": self.count, "statuses": dict(self.statuses),
                "p50_ms": self.p50_ms, "p95_ms": self.p95_ms, "max_ms": self.max_ms,
                "bad_body": self.bad_body}


@dataclass(frozen=True)
class KindLatency:
    """The bot's answer times for one kind of decision."""

    kind: str
    count: int
    p50_ms: float
    p95_ms: float
    max_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count, "p50_ms": self.p50_ms,
                "p95_ms": self.p95_ms, "max_ms": self.max_ms}


@dataclass(frozen=True)
class CheckMatch:
    """One check match: its seed, the bot's seat and rank, and whether the bot forfeited."""

    seed: int
    seat: int
    rank: int
    seats: int
    forfeited: bool

    def line(self) -> str:
        forfeit = " (forfeited)" if self.forfeited else ""
        return f"seed {self.seed} seat {self.seat}: rank {self.rank} of {self.seats}{forfeit}"


@dataclass(frozen=True)
class ConformanceReport:
    """What the check found about the bot at ``url`` (shown without credentials)."""

    url: str
    game: str
    name: str
    time_ms: int
    info: Any
    """The ``GET /`` document, or ``None`` when it did not come (see :attr:`info_fault`)."""
    info_fault: Fault | None
    info_problems: tuple[str, ...]
    calls: tuple[CallStats, ...]
    kinds: tuple[KindLatency, ...]
    matches: tuple[CheckMatch, ...]
    strikes: tuple[FaultRecord, ...]
    end_failures: tuple[FaultRecord, ...]
    notes: tuple[str, ...]

    @property
    def reachable(self) -> bool:
        """Whether ``GET /`` reached the bot at all (if not, no match was played)."""
        return self.info_fault is None or not self.info_fault.reason.unreachable

    @property
    def problems(self) -> list[str]:
        """Every problem found, one line each (escaped: the bot's words are in them)."""
        return [f"protocol error: {printable(p)}" for p in self.info_problems] + self.match_problems

    @property
    def match_problems(self) -> list[str]:
        """The problems the check matches showed (strikes, ``/end`` failures, notes)."""
        out = [f"strike: {f.kind} ({f.reason}) {printable(f.fault.detail)}" for f in self.strikes]
        out += [f"protocol error: /end failed, {f.reason}: {printable(f.fault.detail)} (not a "
                "strike)" for f in self.end_failures]
        out += [f"protocol error: {n}" for n in self.notes]
        return out

    @property
    def passed(self) -> bool:
        return self.reachable and not self.problems

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (for the service's answer and its database)."""
        return {
            "url": self.url, "game": self.game, "name": self.name, "time_ms": self.time_ms,
            "passed": self.passed, "reachable": self.reachable,
            "info": self.info, "info_problems": list(self.info_problems),
            "calls": [c.to_dict() for c in self.calls],
            "kinds": [k.to_dict() for k in self.kinds],
            "matches": [{"seed": m.seed, "seat": m.seat, "rank": m.rank, "seats": m.seats,
                         "forfeited": m.forfeited} for m in self.matches],
            "strikes": [_fault_dict(f) for f in self.strikes],
            "end_failures": [_fault_dict(f) for f in self.end_failures],
            "notes": list(self.notes),
            "problems": self.problems,
        }


def _fault_dict(record: FaultRecord) -> dict[str, Any]:
    return {**record.to_log(), "body": record.fault.body}


def check_bot(url: str, game: str, time_ms: int = 1000, games: int = 1,
              seed: int | None = None, guard: ConnectGuard | None = None,
              relay: Relay | None = None) -> ConformanceReport:
    """Check the bot at ``url`` for ``game``: its ``GET /``, then ``games`` matches against
    :data:`CHECK_OPPONENT` in the fewest seats the game allows (the bot's seat rotates; match
    ``n`` is seeded ``seed + n``). On the command line ``url`` may also be a ``cmd:`` program
    (started for its ``GET /`` and for each match) or a ``py:`` file (which has no ``GET /``).

    Raises :class:`~referee.transport.BotUrlError` for a URL that cannot be a bot's,
    :class:`~referee.core.UnknownGameError` for an unknown game, and for a ``cmd:`` or
    ``py:`` bot :class:`~arena.launch.LaunchError` or :class:`~arena.py_seat.PySeatError`
    (:class:`~arena.description.DescriptionError` with a ``guard``: the service plays
    neither); everything the bot does wrong is in the report. A bot that ``GET /`` cannot
    reach plays no match (:attr:`ConformanceReport.reachable`). Every connection goes through
    ``guard`` when one is given (the service's address policy). A service's pull bot
    (``pull:KEY``) has no ``GET /`` either: its matches are played through ``relay``.
    """
    find_game(game)
    if guard is not None and runs_here(url):
        raise DescriptionError("cmd: and py: bots run programs on this machine; only the "
                               "command line checks them")
    info, fault, info_ms = _read_info(url, guard)
    name = bot_name(info) if info is not None or not runs_here(url) else printable(url[:64])
    info_call = None if info is None and fault is None else CallStats(
        "GET /", {(fault.reason.value if fault else OK): 1}, info_ms, info_ms, info_ms,
        fault.body if fault else None)
    tally = _Tally(info_call)
    if _playable(url, info, fault, game):
        first = secrets.randbits(63) if seed is None else seed
        for record, seat in _play(url, name, game, time_ms, games, first, guard, relay):
            tally.add(record, seat)
    problems = info_problems(info, fault, game) if info is not None or fault else []
    return ConformanceReport(
        url=redact(url), game=game, name=name, time_ms=time_ms, info=info, info_fault=fault,
        info_problems=tuple(problems), calls=tally.calls(),
        kinds=tally.kinds(), matches=tuple(tally.matches), strikes=tuple(tally.strikes),
        end_failures=tuple(tally.end_failures), notes=tuple(tally.notes),
    )


def _playable(bot: str, info: Any, fault: Fault | None, game: str) -> bool:
    """Whether to play the check matches: not for a bot ``GET /`` cannot reach, nor for a
    ``cmd:`` bot whose ``GET /`` does not list the game (each match would refuse to start
    it; the report says why)."""
    if fault is not None:
        return not fault.reason.unreachable
    games = info.get("games") if isinstance(info, dict) else None
    return not (is_command(bot) and isinstance(games, list) and game not in games)


def _read_info(bot: str, guard: ConnectGuard | None) -> tuple[Any, Fault | None, float]:
    """The ``GET /`` document of ``bot``, the fault if it did not come, and the time it took;
    a ``py:`` bot has none (``None``, no fault) but must load."""
    from referee.transport import check_url  # loads requests

    if is_command(bot):
        from arena.launch import launch

        started = launch(bot, None)
        try:
            return _timed_info(started.url, None)
        finally:
            started.stop()
    if is_pull(bot):  # connects out: no address to read (its connection is the relay's)
        return None, None, 0.0
    if runs_here(bot):
        from arena.py_seat import load_bot

        load_bot(bot)
        return None, None, 0.0
    return _timed_info(check_url(bot), guard)


def _timed_info(url: str, guard: ConnectGuard | None) -> tuple[Any, Fault | None, float]:
    from referee.transport import fetch_info

    began = time.perf_counter()
    info, fault = fetch_info(url, guard=guard)
    return info, fault, (time.perf_counter() - began) * 1000


def _play(url: str, name: str, game: str, time_ms: int, games: int, seed: int,
          guard: ConnectGuard | None, relay: Relay | None) -> list[tuple[MatchRecord, int]]:
    counts = find_game(game).player_counts
    seats = min((n for n in counts if n >= 2), default=min(counts))
    played = []
    for n in range(games):
        bot_seat = n % seats
        description = MatchDescription(
            game=game, seed=seed + n, time_control=TimeControl(time_ms),
            seats=tuple(Seat(url, name) if s == bot_seat else Seat(CHECK_OPPONENT)
                        for s in range(seats)),
        )
        played.append((play_match(description, guard, relay=relay), bot_seat))
    return played


class _Tally:
    """The check matches' records, added up for the bot's seat."""

    def __init__(self, info_call: CallStats | None) -> None:
        self.info_call = info_call
        self.decide: list[tuple[str, str, float]] = []  # kind, status, ms
        self.lifecycle: dict[str, list[tuple[str, float | None]]] = {"/start": [], "/end": []}
        self.bodies: list[str] = []
        self.matches: list[CheckMatch] = []
        self.strikes: list[FaultRecord] = []
        self.end_failures: list[FaultRecord] = []
        self.notes: list[str] = []

    def add(self, record: MatchRecord, seat: int) -> None:
        log, mine = record.log, record.seats[seat]
        self.decide += [(d["kind"], d["status"], d["ms"]) for d in log["decisions"]
                        if d["seat"] == seat and d["status"] != FORFEITED]
        by_call = {f.kind: f.fault for f in mine.faults if f.step is None}
        for call, ms in (("/start", mine.start_ms), ("/end", mine.end_ms)):
            fault = by_call.get(call[1:])
            self.lifecycle[call].append((fault.reason.value if fault else OK, ms))
        self.bodies += [f.fault.body for f in mine.faults if f.fault.body and f.step is not None]
        self.strikes += [f for f in mine.faults if f.kind != "end"]
        self.end_failures += [f for f in mine.faults if f.kind == "end"]
        self.notes += [n for n in mine.notes if n not in self.notes]
        rank = log["result"]["seats"][seat]["rank"]
        self.matches.append(CheckMatch(log["seed"], seat, rank, len(log["players"]),
                                       seat in log["forfeited"]))

    def calls(self) -> tuple[CallStats, ...]:
        out = [] if self.info_call is None else [self.info_call]
        if self.matches:
            out.append(_stats("/start", self.lifecycle["/start"]))
            out.append(_stats("/decide", [(status, ms) for _, status, ms in self.decide],
                              self.bodies[0] if self.bodies else None))
            out.append(_stats("/end", self.lifecycle["/end"]))
        return tuple(out)

    def kinds(self) -> tuple[KindLatency, ...]:
        by_kind: dict[str, list[float]] = {}
        for kind, _, ms in self.decide:
            by_kind.setdefault(kind, []).append(ms)
        return tuple(KindLatency(kind, len(v), percentile(v, 50), percentile(v, 95), max(v))
                     for kind, v in sorted(by_kind.items()))


def _stats(call: str, results: Sequence[tuple[str, float | None]],
           bad_body: str | None = None) -> CallStats:
    statuses: dict[str, int] = {}
    for status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    times = [ms for _, ms in results if ms is not None]
    if not times:
        return CallStats(call, statuses, None, None, None, bad_body)
    return CallStats(call, statuses, percentile(times, 50), percentile(times, 95), max(times),
                     bad_body)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation: a reported time was really measured)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def bot_name(info: Any) -> str:
    """The name a bot gives in ``GET /``, fit to print (escaped, at most 64 characters)."""
    name = info.get("name") if isinstance(info, dict) else None
    return printable(name[:64]) if isinstance(name, str) and name else "bot"


def info_problems(info: Any, fault: Fault | None, game: str) -> list[str]:
    """What is wrong with the ``GET /`` answer, each naming the field."""
    from referee.protocol import info_errors  # loads jsonschema: only the checks pay for it

    if fault:
        return [f"GET /: {fault}"]
    problems = [f"info.{e}" if not e.startswith("(") else f"info: {e}" for e in info_errors(info)]
    games = info.get("games") if isinstance(info, dict) else None
    if isinstance(games, list) and game not in games:
        problems.append(f"info.games: {game!r} is not listed (the bot says it plays {games})")
    return problems
