"""The pull bot as a player: :class:`RelayPlayer` asks a bot that connects out, through a
:class:`~referee.relay.Relay`, exactly what :class:`~referee.transport.HttpPlayer` would POST
to a bot's address: the same ``/start``, ``/decide`` and ``/end`` documents, the same time
limits (``/start`` and ``/end`` 2 s, a decision its deadline), the same reading of the answer
(:func:`referee.protocol.parse_answer`), so the same faults.

Nothing the bot does raises out of here; a failure of the relay itself does
(:class:`~referee.relay.RelayError`): it is the referee's, never a strike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee import protocol
from referee.faults import Fault
from referee.players import Answer, DecisionRequest, MatchInfo, Player
from referee.relay import Relay, Reply, Request

LIFECYCLE_MS = 2000
"""Budget of ``/start`` and ``/end``, as for an HTTP bot."""


@dataclass
class RelayPlayer(Player):
    """A seat played by the pull bot ``bot`` (its relay key) through ``relay``."""

    relay: Relay | None = field(default=None, repr=False)
    bot: str = ""
    lifecycle_ms: int = LIFECYCLE_MS
    remote: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self._match, self._game, self._seat = "", "", 0

    def start(self, info: MatchInfo) -> Fault | None:
        self._match, self._game, self._seat = info.match_id, info.game, info.seat
        body = protocol.encode(protocol.start_message(info))
        return self._ask(f"{info.match_id}:start:{info.seat}", "/start", body,
                         self.lifecycle_ms).fault

    def decide(self, request: DecisionRequest) -> Answer:
        reply = self._ask(request.request_id, "/decide", protocol.decide_body(request),
                          request.deadline_ms)
        if reply.fault is not None:
            return Answer(None, reply.ms, fault=reply.fault)
        assert reply.body is not None
        parsed = protocol.read_answer(reply.body, request.decision.option_ids(), self.name)
        return Answer(parsed.choice, reply.ms, parsed.log, parsed.fault)

    def end(self, match_id: str, result: Any) -> Fault | None:
        body = protocol.encode(protocol.end_message(match_id, self._game, self._seat, result))
        return self._ask(f"{match_id}:end:{self._seat}", "/end", body, self.lifecycle_ms).fault

    def _ask(self, request_id: str, path: str, body: bytes, deadline_ms: int) -> Reply:
        assert self.relay is not None, "a RelayPlayer needs its relay"
        return self.relay.exchange(self.bot, Request(request_id, path, body, deadline_ms))
