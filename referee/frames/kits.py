"""What frames need to know about each game: a :class:`SpectatorKit` per game.

A kit says who the seats are (labels, colours), describes the board for the viewer (facts read
from the validated board, so a replaced board file draws as itself), puts each event in plain
words, names the decisions whose answer a spectator must not see, and summarises a frame for
pages read without JavaScript. The base class is what an unknown game gets: every event still
renders (its type and fields), every frame still summarises (the view's plain fields).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

Section = tuple[str, list[str]]
"""A heading and its lines: one block of a frame's text summary."""
Event = Mapping[str, Any]
Seats = Sequence[Mapping[str, Any]]
"""The match's seats as :meth:`SpectatorKit.seats` describes them."""
Facts = Mapping[str, Any]
"""The board as :meth:`SpectatorKit.board_facts` describes it."""
Words = Callable[[Event, Seats, Facts], str]
"""Puts one type of event in words."""

_KITS: dict[str, str] = {
    "tokaido-duo": "referee.frames.tokaido_duo:KIT",
    "doubletrack": "referee.frames.doubletrack:KIT",
}


class SpectatorKit:
    """The defaults, good for any game; each game's kit overrides what it knows better."""

    secret_answers: ClassVar[Mapping[str, str]] = {}
    """Decision kinds whose answer stays secret -> what a spectator is told instead."""
    secret_options: ClassVar[frozenset[str]] = frozenset()
    """Decision kinds whose list of options depends on hidden information (a hand): frames
    do not say how many options there were."""
    words: ClassVar[Mapping[str, Words]] = {}
    """Event type -> its sentence; a type not here (or an event whose fields changed) is shown
    generically, never dropped."""
    turn_name: ClassVar[str] = "turn"
    """What the game calls the unit :meth:`turn` counts ("round" in Tokaido Duo)."""

    def seats(self, log: Mapping[str, Any], view: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One entry per seat of the game (engine-played seats too): ``seat``, ``name`` (the
        bot's), ``label`` (how sentences name the seat), ``colour``, ``engine``."""
        return [{"seat": p["seat"], "name": p["name"], "label": f"seat {p['seat']}",
                 "colour": None, "engine": False} for p in log["players"]]

    def board_facts(self, board: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """What the viewer draws the board from; the raw board data by default."""
        return {"data": getattr(board, "data", None)}

    def turn(self, view: Mapping[str, Any]) -> int | None:
        """The turn (or round) number a frame belongs to, for "jump to turn"."""
        for key in ("turn", "round"):
            value = view.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    def event_text(self, event: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
                   board: Mapping[str, Any]) -> str:
        """The event in plain words (``board``: this kit's :meth:`board_facts`)."""
        words = self.words.get(str(event.get("type")))
        try:
            return words(event, seats, board) if words else generic_text(event)
        except (KeyError, TypeError, ValueError, IndexError):  # the event's fields changed
            return generic_text(event)

    def result_text(self, result: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]) -> str:
        """One sentence: who won, the scores, why it ended; bots by name (with their seat's
        label: the seat, or the colour the board draws), engine seats by label."""
        names = [named(seats, w, with_label=True) for w in result.get("winners", [])]
        verb = "wins" if len(names) == 1 else "share the win"
        scores = ", ".join(f"{named(seats, s['seat'])} {s['score']}" for s in result["seats"])
        why = f" ({result['reason']})" if result.get("reason") else ""
        return f"{' and '.join(names) or 'nobody'} {verb}; scores {scores}{why}"

    def summary(self, frame: Mapping[str, Any], doc: Mapping[str, Any]) -> list[Section]:
        """A frame as text blocks, for a page read without JavaScript."""
        view = frame["view"]
        lines = [f"{k}: {v}" for k, v in view.items() if isinstance(v, (str, int, float, bool))]
        return [("Position", lines)]


@dataclass(frozen=True)
class Cast:
    """A kit bound to one match: its seats and its board facts, for putting events in words."""

    kit: SpectatorKit
    seats: list[dict[str, Any]]
    board: dict[str, Any]

    def text(self, event: Mapping[str, Any]) -> str:
        """The event as a sentence (capitalised: most start with a seat's label)."""
        words = self.kit.event_text(event, self.seats, self.board)
        return words[:1].upper() + words[1:]


def generic_text(event: Mapping[str, Any]) -> str:
    """``type: field value, ...``: how an event no renderer knows is still shown."""
    fields = ", ".join(f"{k} {_plain(v)}" for k, v in event.items() if k != "type")
    kind = str(event.get("type", "event")).replace("_", " ")
    return f"{kind}: {fields}" if fields else kind


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} {_plain(v)}" for k, v in value.items()) + "}"
    return "none" if value is None else str(value)


def label(seats: Sequence[Mapping[str, Any]], seat: Any) -> str:
    """How sentences name ``seat`` (a seat number; anything else is shown as it is)."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(seats):
        return str(seats[seat]["label"])
    return "nobody" if seat is None or seat == -1 else str(seat)


def named(seats: Sequence[Mapping[str, Any]], seat: Any, with_label: bool = False) -> str:
    """A seat by its bot's name (``alice (seat 0)`` with its label); an engine seat, or a seat
    without a name, by its label."""
    said = label(seats, seat)
    if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(seats)):
        return said
    entry = seats[seat]
    if entry.get("engine") or not entry.get("name") or entry["name"] == said:
        return said
    return f"{entry['name']} ({said})" if with_label else str(entry["name"])


def kit_for(game: str) -> SpectatorKit:
    """The kit of ``game``; the generic kit for a game without one."""
    target = _KITS.get(game)
    if target is None:
        return SpectatorKit()
    module, attr = target.split(":")
    kit: SpectatorKit = getattr(importlib.import_module(module), attr)
    return kit
