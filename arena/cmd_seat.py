"""A ``cmd:`` seat's player: an HTTP bot the referee started (:mod:`arena.launch`).

It plays exactly as :class:`~referee.transport.HttpPlayer` does (same requests, deadlines,
strikes), and adds what only a bot the referee started can give: the stderr lines it wrote
during each decision (the runner puts them in the decision's log entry), and, when it has
died, why its calls fail (its exit status and the end of its stderr, in the fault's detail).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from arena.launch import DYING_S, Launched
from referee.faults import Fault, FaultReason
from referee.players import Answer, DecisionRequest, MatchInfo
from referee.transport import HttpPlayer

log = logging.getLogger("referee.launch")


@dataclass
class LaunchedPlayer(HttpPlayer):
    """:class:`HttpPlayer` of a :class:`~arena.launch.Launched` bot (the seat stops it)."""

    bot: Launched | None = field(default=None, repr=False)
    match_id: str = field(default="", init=False)

    def start(self, info: MatchInfo) -> Fault | None:
        self.match_id = info.match_id
        return self._explained(super().start(info))

    def decide(self, request: DecisionRequest) -> Answer:
        assert self.bot is not None
        mark = self.bot.mark()
        answer = super().decide(request)
        answer.stderr = self.bot.lines_since(mark) or None
        answer.fault = self._explained(answer.fault)
        return answer

    def end(self, match_id: str, result: Any) -> Fault | None:
        return self._explained(super().end(match_id, result))

    def close(self) -> None:
        """Also say, as a warning on the referee's log (stderr, unless configured otherwise),
        that the bot's program died during the match: a tournament goes on (the next match
        starts it afresh), and this is where its operator hears of it."""
        super().close()
        if self.bot is not None and self.bot.exit_status() is not None:
            log.warning("bot %s: its program ended during match %s (%s); it is started "
                        "afresh for the next match", self.name, self.match_id or "?",
                        self.bot.death())

    def _explained(self, fault: Fault | None) -> Fault | None:
        """``fault`` saying that the bot's process has ended, and how, when it has (the
        reason stays the transport's: a dead bot is a connection error)."""
        assert self.bot is not None
        if fault is None or not fault.reason.unreachable:
            return fault
        dying = fault.reason is FaultReason.CONNECTION_ERROR
        if self.bot.exit_status(DYING_S if dying else 0.0) is None:
            return fault
        return replace(fault, detail=f"{fault.detail}; the bot's process ended: "
                                     f"{self.bot.death()}")
