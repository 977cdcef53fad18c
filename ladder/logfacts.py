"""What the ladder reads from a match log, validated before any transaction begins.

A log comes from a runner in this process, from a tournament's state file or from a worker:
:func:`match_facts` checks everything the ladder stores from it (ids and names within their
columns' widths, seats ``0..n-1``, one bot per seat, the log itself JSON) and raises one
:class:`~ladder.LadderError` line naming the log and the problem, so a bad log never fails
half-way through recording it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ladder import LadderError
from ladder.models import GAME_LEN, MATCH_ID_LEN, NAME_LEN
from ladder.ratings import standings

MAX_SEATS = 16


@dataclass(frozen=True)
class SeatFact:
    seat: int
    bot: str
    rank: int
    standing: int
    score: float | None
    forfeited: bool
    strikes: int


@dataclass(frozen=True)
class MatchFacts:
    """What the ladder needs from a match log, validated."""

    match_id: str
    game: str
    rules_version: str
    end_reason: str
    rounds: int
    seats: tuple[SeatFact, ...]


def match_facts(log: Mapping[str, Any], bots: Mapping[int, str] | None = None) -> MatchFacts:
    """Validate a Runner log (``referee.match.Runner._log``); LadderError names the problem."""
    try:
        return _match_facts(log, bots or {})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise LadderError(f"bad match log {_log_id(log)}: {what}") from None


def seat_score(value: Any) -> float | None:
    """A seat's score as stored: a number, or None for anything else (a bool is no score)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _log_id(log: Any) -> str:
    return repr(log.get("match_id")) if isinstance(log, Mapping) else "(not a mapping)"


def _match_facts(log: Mapping[str, Any], bots: Mapping[int, str]) -> MatchFacts:
    match_id = _text(log["match_id"], "match_id", MATCH_ID_LEN)
    try:  # stored as JSON for replays: refuse here, not half-way through a transaction
        json.dumps(log, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise LadderError(f"bad match log {match_id!r}: not JSON: {exc}") from None
    game = _text(log["game"], "game", GAME_LEN)
    result, players = log["result"], log["players"]
    seats = sorted(result["seats"], key=lambda s: int(s["seat"]))
    if not 2 <= len(seats) <= MAX_SEATS or [int(s["seat"]) for s in seats] != list(range(len(seats))):
        raise LadderError(f"bad match log {match_id!r}: seats must be 0..n-1 with 2 <= n <= {MAX_SEATS}")
    if len(players) != len(seats):
        raise LadderError(f"bad match log {match_id!r}: {len(players)} players for {len(seats)} seats")
    forfeits = {int(i) for i in log.get("forfeited", [])} | {
        i for i, p in enumerate(players) if p.get("forfeited")
    }
    names = [_text(bots.get(i, players[i]["name"]), f"bot name of seat {i}", NAME_LEN)
             for i in range(len(seats))]
    if len(set(names)) != len(names):
        raise LadderError(f"match {match_id!r}: the same bot sits in two seats ({', '.join(names)});"
                          " enter it twice under different names")
    ranks = [int(s["rank"]) for s in seats]
    forfeited = [i in forfeits for i in range(len(seats))]
    places = standings(ranks, forfeited)
    facts = tuple(
        SeatFact(i, names[i], ranks[i], places[i], seat_score(s.get("score")), forfeited[i],
                 int(players[i].get("strikes", 0)))
        for i, s in enumerate(seats)
    )
    return MatchFacts(match_id, game, str(log.get("rules_version", "")), str(result["end"]),
                      int(result["rounds"]), facts)


def _text(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str) or not value or len(value) > limit:
        raise LadderError(f"{what} must be a non-empty string of at most {limit} characters")
    return value
