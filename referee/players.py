"""What sits in a seat, as the runner sees it: a :class:`Player`.

The runner knows nothing of HTTP or of any bot's insides. It hands a player a
:class:`DecisionRequest` and gets an :class:`Answer` back, always: a player never raises for a
bot's fault, it reports it as the answer's :class:`~referee.faults.Fault`.
In-process bots are wrapped by :class:`InProcessPlayer`; HTTP bots have their own player in the
transport module.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.core import Decision
from referee.faults import Fault, FaultReason
from referee.stall import CLOCK


@dataclass(frozen=True)
class MatchInfo:
    """What a player is told at the start of a match (the ``/start`` body, minus transport)."""

    match_id: str
    game: str
    seat: int
    players: tuple[tuple[int, str], ...]
    time_control: Mapping[str, int]
    board: Mapping[str, Any] | None = None
    """The board data in play (public knowledge): search bots need it to simulate."""


@dataclass
class DecisionRequest:
    """One decision put to one seat. ``view`` is built only when the player asks for it."""

    match_id: str
    game: str
    seat: int
    request_id: str
    decision: Decision
    view: Callable[[], dict[str, Any]]
    deadline_ms: int
    bank_ms: int


@dataclass(slots=True)
class Answer:
    """A player's reply: the chosen id (``None`` if none usable), how long it took, the bot's
    own ``log`` text, and the :class:`~referee.faults.Fault` if the answer cannot be used.
    ``stderr``: what a bot the referee runs (``cmd:``, ``py:``) wrote meanwhile, as lines.
    ``elapsed_ms`` is the time charged to the bot: the wall clock less ``stall_ms``, the time
    the referee's own process was stalled meanwhile (:mod:`referee.stall`)."""

    choice: str | None
    elapsed_ms: float = 0.0
    log: str | None = None
    fault: Fault | None = None
    stall_ms: float = 0.0
    stderr: list[str] | None = None


@dataclass
class Player(ABC):
    """A seat's controller. ``remote`` players are asked concurrently for simultaneous decisions."""

    name: str
    remote: bool = field(default=False, init=False)
    notes: list[str] = field(default_factory=list, init=False)
    """Protocol deviations that are not strikes (read by the bot check)."""

    @property
    def clocked(self) -> bool:
        """Whether the time limit applies: an answer later than the deadline is a strike."""
        return True

    def start(self, info: MatchInfo) -> Fault | None:
        """Announce the match. Returns the fault, or ``None`` when fine."""
        return None

    @abstractmethod
    def decide(self, request: DecisionRequest) -> Answer:
        """Answer one decision; never raises for the bot's own faults."""

    def end(self, match_id: str, result: Mapping[str, Any]) -> Fault | None:
        """Announce the result. Returns the fault, or ``None`` when fine."""
        return None

    def close(self) -> None:
        """Release connections or threads."""


class LazyView(Mapping[str, Any]):
    """A view that is built on first access: most in-process bots (``random``) never look."""

    __slots__ = ("_build", "_data")

    def __init__(self, build: Callable[[], dict[str, Any]]) -> None:
        self._build: Callable[[], dict[str, Any]] | None = build
        self._data: dict[str, Any] = {}

    def _get(self) -> dict[str, Any]:
        if self._build is not None:
            self._data, self._build = self._build(), None
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


class Bot(ABC):
    """An in-process bot. Reads only the decision and its view, exactly like a remote bot.

    ``decide`` returns an option id, or ``(option id, log text)``.
    """

    name: str = "bot"
    timed: bool = True
    """Whether the bot's play depends on the wall clock (a time budget). An in-process bot
    that does a fixed amount of work instead (``random``, ``greedy``, ``mcts:playouts=200``)
    plays the same moves for the same seed however busy the machine is: striking it for a
    late answer would make the match depend on the machine, so the runner never does. The
    built-in registry sets this per spec; a bot made otherwise is held to the clock."""

    def start(self, info: MatchInfo) -> None:
        """Called once per match before the first decision."""

    @abstractmethod
    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str | tuple[str, str]:
        """The chosen option id for ``decision``."""


@dataclass
class InProcessPlayer(Player):
    """Runs a :class:`Bot` in the referee's process; a bot exception is a ``bot_error`` fault."""

    bot: Bot | None = None

    @property
    def clocked(self) -> bool:
        return self.bot is None or self.bot.timed

    def start(self, info: MatchInfo) -> Fault | None:
        try:
            assert self.bot is not None
            self.bot.start(info)
        except Exception as exc:  # a broken bot must not break the referee
            return Fault(FaultReason.BOT_ERROR, repr(exc))
        return None

    def decide(self, request: DecisionRequest) -> Answer:
        return self.answer(request.decision, request.view)

    def answer(self, decision: Decision, view: Callable[[], dict[str, Any]]) -> Answer:
        """:meth:`decide` from the decision and the view's builder alone: the runner's fast
        path for a seat played in-process, which needs no request (its id, deadline and bank
        are for a bot behind HTTP). A bot held to the clock is charged its time less the
        referee's stalls, as an HTTP bot is (:mod:`referee.stall`), but never less than the
        CPU time of its own thread."""
        if not self.clocked:
            return self._answer(decision, view)
        CLOCK.hold()
        try:
            stalled, cpu = CLOCK.stalled(), time.thread_time()
            answer = self._answer(decision, view)
            stall_ms = (CLOCK.stalled() - stalled) * 1000
            cpu_ms = (time.thread_time() - cpu) * 1000
        finally:
            CLOCK.release()
        # a bot holding the interpreter in one long C call looks like a stall to the clock's
        # thread: whatever else stalled, the bot is charged the CPU its own thread used
        charged = max(answer.elapsed_ms - stall_ms, min(cpu_ms, answer.elapsed_ms))
        answer.stall_ms = answer.elapsed_ms - charged
        answer.elapsed_ms = charged
        return answer

    def _answer(self, decision: Decision, view: Callable[[], dict[str, Any]]) -> Answer:
        assert self.bot is not None
        began = time.perf_counter()
        try:
            out = self.bot.decide(decision, LazyView(view))
        except Exception as exc:  # a broken bot must not break the referee
            elapsed = (time.perf_counter() - began) * 1000
            return Answer(None, elapsed, fault=Fault(FaultReason.BOT_ERROR, repr(exc)))
        elapsed = (time.perf_counter() - began) * 1000
        if isinstance(out, tuple):
            return Answer(out[0], elapsed, log=out[1])
        return Answer(out, elapsed)
