"""The HTTP bot as a player: :class:`HttpPlayer` speaks protocol v1 to a bot's base URL, each
call through a :class:`~referee.transport.exchange.Transport` under a hard deadline; and
:func:`fetch_info`, the ``GET /`` probe.

Nothing a bot sends, or fails to send, raises out of here: a failed call is the fault it came
back as, and an answer the referee cannot read is a ``bad_json`` fault, the seat's and never
the match's. Deviations from the protocol that are not strikes are kept as notes (for
``referee bot check``).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from referee import protocol
from referee.display import printable
from referee.faults import Fault, FaultReason, body_excerpt
from referee.players import Answer, DecisionRequest, MatchInfo, Player
from referee.transport.adapter import ConnectGuard
from referee.transport.exchange import MAX_BODY, Transport

LIFECYCLE_MS = 2000
"""Budget of ``/start``, ``/end`` and ``GET /`` calls."""


@dataclass
class HttpPlayer(Player):
    """A seat played by a bot behind ``url`` (protocol v1). Never raises for the bot's faults."""

    url: str = field(default="", repr=False)
    """The real address, credentials included: used to connect, never shown (the name is)."""
    max_body: int = MAX_BODY
    lifecycle_ms: int = LIFECYCLE_MS
    guard: ConnectGuard | None = None
    remote: bool = field(default=True, init=False)
    notes: list[str] = field(default_factory=list, init=False)
    """Protocol deviations that are not strikes (for ``referee bot check``)."""

    def __post_init__(self) -> None:
        self._transport = Transport(self.url, self.max_body, label=f"bot:{self.name}"[:40],
                                    guard=self.guard)
        self._game, self._seat = "", 0

    def start(self, info: MatchInfo) -> Fault | None:
        self._game, self._seat = info.game, info.seat
        body = protocol.encode(protocol.start_message(info))
        return self._lifecycle("/start", body)

    def decide(self, request: DecisionRequest) -> Answer:
        body = protocol.decide_body(request)
        ex = self._transport.call("POST", "/decide", body, request.deadline_ms)
        if ex.fault is not None:
            return Answer(None, ex.ms, fault=ex.fault, stall_ms=ex.stall_ms)
        assert ex.body is not None
        parsed = protocol.read_answer(ex.body, request.decision.option_ids(), self.name)
        for note in parsed.notes:
            self._note(f"/decide {request.decision.kind}: {note}")
        if ex.content_type and "json" not in ex.content_type.lower():
            self._note(f"/decide answer has Content-Type {ex.content_type!r}, expected JSON")
        return Answer(parsed.choice, ex.ms, parsed.log, parsed.fault, ex.stall_ms)

    def end(self, match_id: str, result: Any) -> Fault | None:
        body = protocol.encode(protocol.end_message(match_id, self._game, self._seat, result))
        return self._lifecycle("/end", body)

    def close(self) -> None:
        self._transport.close()

    def _lifecycle(self, path: str, body: bytes) -> Fault | None:
        return self._transport.call("POST", path, body, self.lifecycle_ms).fault

    def _note(self, text: str) -> None:
        text = printable(text)
        if len(self.notes) < 50 and text not in self.notes:
            self.notes.append(text)


def fetch_infos(urls: Iterable[str], budget_ms: float = LIFECYCLE_MS
                ) -> dict[str, tuple[Any, Fault | None]]:
    """:func:`fetch_info` of every distinct URL, all at once: bots that are down cost one
    connect timeout together, not one each."""
    distinct = list(dict.fromkeys(urls))
    if not distinct:
        return {}
    with ThreadPoolExecutor(min(16, len(distinct)), thread_name_prefix="bot-info") as pool:
        return dict(zip(distinct, pool.map(lambda url: fetch_info(url, budget_ms), distinct)))


def fetch_info(url: str, budget_ms: float = LIFECYCLE_MS,
               guard: ConnectGuard | None = None) -> tuple[Any, Fault | None]:
    """``GET /`` of a bot: ``(document, None)`` or ``(None, fault)``."""
    transport = Transport(url, label="bot-info", guard=guard)
    try:
        ex = transport.call("GET", "/", None, budget_ms)
    finally:
        transport.close()
    if ex.fault is not None:
        return None, ex.fault
    assert ex.body is not None
    try:
        return protocol.decode_json(ex.body), None
    except ValueError as exc:
        return None, Fault(FaultReason.BAD_JSON, f"GET / is not JSON ({exc})",
                           body_excerpt(ex.body))
