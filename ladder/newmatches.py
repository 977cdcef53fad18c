"""A new service match: how it is played (:class:`MatchSettings`) and its rows.

Every service match is created here, a challenge's (``ladder.work``) and a ladder fixture's
(``ladder.matchmaking``) alike: one place decides what a ``scheduled`` row holds, so a column
added to matches is filled in once.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import Connection, insert, select

from ladder import metrics
from ladder.models import SCHEDULED, Bot, Match, MatchSeat
from referee.match import DEFAULT_STRIKES, TimeControl

_CLOCK = TimeControl()


@dataclass(frozen=True)
class MatchSettings:
    """How a service match is played: the time control, the strikes that forfeit, the
    game's options.  The defaults are the referee's own (``referee match`` plays the same)."""

    time_ms: int = _CLOCK.decision_ms
    bank_ms: int = _CLOCK.bank_ms
    strikes: int = DEFAULT_STRIKES
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}),
                                       hash=False)
    """The game's options, read-only (a mapping hashes by nothing: equal settings with
    different options hash alike, and compare unequal)."""

    def to_json(self) -> dict[str, Any]:
        """What ``matches.settings`` stores."""
        return {"time_ms": self.time_ms, "bank_ms": self.bank_ms, "strikes": self.strikes,
                "options": dict(self.options)}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any] | None) -> MatchSettings:
        """A row's settings; what it lacks (or a row without any) takes the defaults."""
        doc = doc or {}
        std = cls()
        return cls(int(doc.get("time_ms", std.time_ms)), int(doc.get("bank_ms", std.bank_ms)),
                   int(doc.get("strikes", std.strikes)),
                   MappingProxyType(dict(doc.get("options") or {})))


STANDARD = MatchSettings()
"""The settings of ladder fixtures and challenges unless told otherwise."""


@dataclass(frozen=True)
class NewMatch:
    """One match to create: its bots in seat order and its seed; ``pair_key`` groups the
    matches sharing a seed (no log public until all are over), ``round_id`` and ``fixture_id``
    link a ladder match to its round and fixture, ``held`` keeps it from the workers until the
    matchmaker releases it."""

    bots: Sequence[int]
    seed: int
    pair_key: str | None = None
    round_id: int | None = None
    fixture_id: int | None = None
    held: bool = False


def new_match_id() -> str:
    """A service match's public id (unguessable: a log is not found by counting)."""
    return f"svc-{secrets.token_hex(12)}"


def insert_matches(conn: Connection, game: str, new: Sequence[NewMatch], now: datetime, *,
                   rated: bool, settings: MatchSettings = STANDARD,
                   challenge_id: int | None = None) -> list[int]:
    """Insert ``scheduled`` matches and their seats (each bot at its current version) in
    the caller's transaction; their ids, in the order of ``new``.  Enqueue the released ones
    after the commit (the sweeper re-enqueues any whose enqueue was lost)."""
    from referee.games import find_game

    if not new:
        return []
    rules = find_game(game).rules_version
    doc = settings.to_json()
    rows = [{"match_id": new_match_id(), "game": game, "rules_version": rules,
             "num_seats": len(m.bots), "recorded_at": now, "state": SCHEDULED, "rated": rated,
             "seed": m.seed, "settings": doc, "attempt": 0, "held": m.held,
             "enqueued_at": None if m.held else now, "challenge_id": challenge_id,
             "round_id": m.round_id, "pair_key": m.pair_key, "fixture_id": m.fixture_id}
            for m in new]
    ids = list(conn.execute(
        insert(Match).returning(Match.id, sort_by_parameter_order=True), rows).scalars())
    versions = dict(conn.execute(select(Bot.id, Bot.version).where(
        Bot.id.in_({b for m in new for b in m.bots}))).all())
    conn.execute(insert(MatchSeat), [
        {"match_pk": pk, "seat": seat, "bot_id": bot, "bot_version": versions[bot]}
        for pk, m in zip(ids, new) for seat, bot in enumerate(m.bots)])
    for pk, m in zip(ids, new):
        metrics.changed(SCHEDULED, game, [pk], bots=list(m.bots), rated=rated,
                        challenge=challenge_id)
    return ids
