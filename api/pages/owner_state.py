"""Where a bot stands on each of its ladders, in words: on the ladder, in placement (games
played of how many), paused (why, since when, and what lifts it), or off it.  The bot's
public page and its owner's home (:mod:`api.pages.owner`) both say it from here, so they
never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.context import service
from ladder import registry
from ladder.health import GOOD_PROBES_TO_RESUME
from ladder.models import PAUSED, RETIRED, UNVERIFIED
from ladder.pauses import AWAY, FORFEITS, HEALTH, is_auto

OWNER = "owner"
AUTO = "probes"
CONNECTION = "connection"
ADMIN = "admin"
RETIREMENT = "retired"


@dataclass(frozen=True)
class LadderState:
    """One ladder entry as a person reads it.  ``kind``: ``playing`` (placed), ``placement``,
    ``paused``, ``left`` or ``waiting`` (the bot itself plays nothing yet, or any more).
    ``lifted_by``: who ends a pause (``owner``, ``probes``, ``connection``: a pull bot's next
    poll, ``admin``, ``retired``: nobody)."""

    game: str
    kind: str
    summary: str
    reason: str | None = None
    since: datetime | None = None
    lifts: str | None = None
    lifted_by: str | None = None
    placement_played: int = 0
    placement_of: int = 0


def bot_states(bot: dict[str, Any]) -> list[LadderState]:
    """The states of ``bot`` (a :func:`ladder.registry.bot_detail` dict) on every ladder it
    entered, by game."""
    entries = registry.ladder_entries(service().engine, bot["id"])
    return [entry_state(bot, e) for e in entries]


def entry_state(bot: dict[str, Any], entry: dict[str, Any]) -> LadderState:
    game = entry["game"]
    if bot["status"] == RETIRED:
        return LadderState(game, "left", "Retired: it plays no more.", lifted_by=RETIREMENT)
    if not entry["active"]:
        return LadderState(game, "left", "Off this ladder: its owner took it off (its "
                           "history stays).", lifts="Its owner can join it again.",
                           lifted_by=OWNER)
    if entry["paused"]:
        return paused_state(game, entry["paused_reason"], entry["paused_at"])
    if bot["status"] == PAUSED:
        return LadderState(game, "paused", "Paused: the bot is paused as a whole.",
                           reason="the bot is paused", lifts="The service's operator lifts "
                           "it (no form or API call does).", lifted_by=ADMIN)
    if bot["status"] == UNVERIFIED:
        return LadderState(game, "waiting", "Waiting: the bot is unverified, so it plays "
                           "nothing yet.", lifts="A check whose GET / echoes the bot's "
                           "nonce verifies it.", lifted_by=OWNER)
    left = entry["placement_remaining"]
    if left:
        of = placement_games(bot, left)
        return LadderState(game, "placement", f"Placement: {of - left} of {of} games "
                           f"played, {left} to go.", placement_played=of - left,
                           placement_of=of)
    return LadderState(game, "playing", "On the ladder, playing rated games.")


def solo_state(entry: dict[str, Any]) -> dict[str, Any]:
    """A solo entry (:func:`ladder.solo_ladder.entries_of`) with its pause in words
    (``state``, None while it plays)."""
    paused = entry["paused_reason"]
    return {**entry, "state": None if paused is None else
            paused_state(entry["game"], paused, entry["paused_at"])}


def paused_state(game: str, reason: str, since: datetime | None) -> LadderState:
    """Why a paused entry is paused and what lifts it, from the reason's prefix (the health
    rules write ``health: ...`` and ``forfeits: ...``; the owner's is
    :data:`ladder.registry.OWNER_PAUSE`)."""
    every = service().config.probe_interval_s / 60
    if reason == registry.OWNER_PAUSE:
        return LadderState(game, "paused", "Paused by its owner.", reason="paused by its owner",
                           since=since, lifts="Its owner resumes it.", lifted_by=OWNER)
    if reason.startswith(AWAY):
        return LadderState(game, "paused", f"Paused: {reason.split(':', 1)[1].strip()}.",
                           reason=reason, since=since, lifted_by=CONNECTION,
                           lifts="It resumes as soon as it polls again (`referee bot "
                                 "connect`).")
    if is_auto(reason):
        why = reason.split(":", 1)[1].strip()
        cause = {HEALTH: "its health probes failed", FORFEITS: "it forfeited its matches"}[
            reason.split(":", 1)[0]]
        return LadderState(
            game, "paused", f"Paused automatically: {cause} ({why}).", reason=reason,
            since=since, lifted_by=AUTO, lifts=(
                f"It resumes by itself after {GOOD_PROBES_TO_RESUME} good probes in a row "
                f"(the service probes it every {every:.0f} minutes); its owner can run a "
                "check to see what fails."))
    if reason == "retired":
        return LadderState(game, "left", "Retired: it plays no more.", reason=reason,
                           since=since, lifted_by=RETIREMENT)
    return LadderState(game, "paused", f"Paused by an admin: {reason}.", reason=reason,
                       since=since, lifts="Only an admin lifts it.", lifted_by=ADMIN)


def placement_games(bot: dict[str, Any], left: int) -> int:
    """How many placement games the entry started with: a new bot's, or a new version's
    (fewer), never fewer than it has left."""
    config = service().config.matchmaker()
    start = config.placement_games if bot["version"] == 1 else config.new_version_games
    return max(start, left)
