"""A match's frames as plain text (``referee replay LOG --trace``), like a PGN move list.

One line per step, flush left: ply, turn, who decided what (the option's label), the kind, the
time taken and any strike; simultaneous decisions (sealed bids) share their step's line. The
events of the step follow, indented, in plain words. When the frames carry the bots' own words
(``build_frames(log, notes=True)``), they come right under the decision, before the events,
marked ``|`` so that ``grep '|'`` finds them: ``| seat 0 log: ...`` for the text a bot sent with
its answer (one line per line of it), ``| seat 0 stderr: ...`` for each line the referee
captured from a bot it started. So ``grep -v '^ '`` leaves the move list, and the text reads
the same in a terminal and in a pipe (no colour, no width tricks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from referee.matchlog import FORFEITED, OK

INDENT = "      "
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def trace_lines(doc: Mapping[str, Any]) -> Iterator[str]:
    """The lines of the trace of a frames document (see :func:`referee.frames.build_frames`)."""
    match = doc["match"]
    yield f"{match['title']} ({match['game']}), match {match['match_id']}"
    for seat in match["seats"]:
        colour = f" ({seat['colour']})" if seat.get("colour") else ""
        yield f"  seat {seat['seat']}{colour}: {seat['name']}"
    tag = match["turn_name"][:1].upper()
    for frame in doc["frames"]:
        if frame["decisions"]:
            yield decision_line(frame, tag)
        for d in frame["decisions"]:
            yield from note_lines(d)
        for fault in frame["faults"]:
            yield f"{INDENT}fault at {fault['kind']}: seat {fault['seat']} {fault['reason']}" \
                  + (f" ({fault['detail']})" if fault["detail"] else "")
        for text in frame["texts"]:
            yield INDENT + text
    yield f"Result: {match['outcome']}"


def decision_line(frame: Mapping[str, Any], tag: str) -> str:
    """``  12. R3   seat 0: pilgrim die (3) [choose_die 0.4 ms]``; the decisions of one step
    (sealed bids) share its line, joined with ``;``."""
    turn = frame["turn"] if frame["turn"] is not None else "?"
    parts = [f"{d['who']}: {d['label']} [{_timing(d)}]" for d in frame["decisions"]]
    return f"{frame['ply']:>4}. {tag}{turn:<4}" + "; ".join(parts)


def note_lines(d: Mapping[str, Any]) -> Iterator[str]:
    """A decision's bot's own words, one line each, under its decision line."""
    for field in ("log", "stderr"):
        value = d.get(field) or ()
        for line in (part for item in ([value] if isinstance(value, str) else value)
                     for part in item.splitlines() or [""]):
            yield f"{INDENT}| {d['who']} {field}: {_printable(line)}".rstrip()


def _printable(text: str) -> str:
    """A bot's line with its control characters (terminal colours, bells) written as escapes,
    so that the trace stays plain text whatever the bot printed."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _timing(d: Mapping[str, Any]) -> str:
    ms = d.get("ms")
    text = f"{d['kind']} " + ("? ms" if ms is None else f"{ms:.1f} ms")
    if d["status"] == FORFEITED:
        text += ", forfeited: fallback"
    elif d["status"] != OK:
        fault = d.get("fault") or {}
        detail = f": {fault['detail']}" if fault.get("detail") else ""
        text += f", STRIKE {d['strikes']} {d['status']}{detail}"
    return text
