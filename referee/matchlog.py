"""The match log: its type, its format constants, its JSON Schema, and reading and writing it.

One JSON document per match (a contract: bots' authors, ``referee replay``, the viewer, the
ladder and anyone's tools read it): format and version, game and rules version, seed, players,
options, board, every decision asked (seat, kind, option count, the choice, how long it took and
its status) and both results, the game's and the one with forfeits applied. The runner writes
it (:class:`MatchLog`); replay, the frames, the ladder and the CLI read it, and the schema in
``docs/schemas/match-log.json`` is generated from :data:`LOG_SCHEMA`, whose enumerations come
from the Python enums (:class:`~referee.core.EndReason`, :class:`~referee.faults.FaultReason`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, get_origin, get_type_hints

from referee.core import EndReason, ResultDoc
from referee.errors import RefereeError
from referee.faults import FaultReason

LOG_FORMAT = "referee-match-log"
LOG_VERSION = 1
MAX_LOG_CHARS = 4096
"""A bot's ``log`` text is kept up to this many characters (the match log stores it)."""
MAX_STDERR_LINES = 50
MAX_STDERR_CHARS = 4096
"""A decision's ``stderr`` (what a bot the referee started wrote meanwhile) is kept up to
this many lines and characters in all; past them, a last line says how many were left out."""

UNFINISHED = "interrupted"
"""``unfinished`` of a match stopped by Ctrl-C (``referee match --log`` keeps what was played)."""
OK = "ok"
"""Status of a decision the seat's bot answered with an offered id in time."""
FORFEITED = "forfeited"
"""Status of a decision taken by the fallback because the seat had already forfeited."""
STATUSES: tuple[str, ...] = (OK, FORFEITED, *FaultReason)
"""Every decision status: ok, forfeited, or the :class:`~referee.faults.FaultReason` struck."""
LIFECYCLE_STRIKES = ("start",)
"""Lifecycle calls whose failure is a strike (``/end`` never is: the game is over)."""


def cap_stderr(lines: list[str]) -> list[str]:
    """``lines`` as a decision's ``stderr`` keeps them: the first ones, up to
    :data:`MAX_STDERR_LINES` lines and :data:`MAX_STDERR_CHARS` characters in all (a line is
    cut to what is left), and a last line saying how many were left out."""
    kept: list[str] = []
    room = MAX_STDERR_CHARS
    for line in lines:
        if len(kept) == MAX_STDERR_LINES or room <= 0:
            break
        kept.append(line[:room])
        room -= len(kept[-1])
    if len(kept) < len(lines):
        kept.append(f"[{len(lines) - len(kept)} more line(s) in the bot's stderr file]")
    return kept


class LogError(RefereeError, ValueError):
    """A file that is not a readable match log; the message says what is wrong."""


# -- the document ------------------------------------------------------------------------------


class TimeControlDoc(TypedDict):
    decision_ms: int
    bank_ms: int


class PlayerEntry(TypedDict):
    seat: int
    name: str
    strikes: int
    forfeited: bool
    time_control: NotRequired[TimeControlDoc]
    """The seat's own time control, when it is not the match's (a tournament's per-entrant
    ``--time-ms NAME=MS``)."""


class DecisionEntry(TypedDict):
    """One decision asked: ``status`` is one of :data:`STATUSES`; ``log`` the bot's own text."""

    step: int
    seat: int
    kind: str
    options: int
    choice: str
    ms: float
    status: str
    log: NotRequired[str]
    stderr: NotRequired[list[str]]
    """The lines a ``cmd:`` bot wrote on stderr (a ``py:`` bot: printed) while it decided
    (see :func:`cap_stderr`)."""
    stall_ms: NotRequired[float]
    """Time the referee's own process was stalled during the call, not charged to the bot
    (``ms`` is the bot's time without it); absent when there was none."""


class FaultEntry(TypedDict):
    """A strike (or an ``/end`` failure): ``step`` is ``None`` for ``/start`` and ``/end``,
    whose ``kind`` is then ``"start"`` or ``"end"``; ``reason`` a
    :class:`~referee.faults.FaultReason` value."""

    step: int | None
    seat: int
    kind: str
    reason: str
    detail: str


class MatchLog(TypedDict):
    """The match log as the runner writes it (and :data:`LOG_SCHEMA` describes it)."""

    format: str
    version: int
    match_id: str
    game: str
    rules_version: str
    seed: int
    options: dict[str, Any]
    board: Any
    """The board's data (``None`` for a game without one); a replay needs no file."""
    time_control: TimeControlDoc
    strike_limit: int
    players: list[PlayerEntry]
    decisions: list[DecisionEntry]
    faults: list[FaultEntry]
    forfeited: list[int]
    game_result: NotRequired[ResultDoc]
    """The game's result; absent only from an unfinished log (as ``result``)."""
    result: NotRequired[ResultDoc]
    unfinished: NotRequired[str]
    """Present only in the log of a match stopped before its end: why (:data:`UNFINISHED`).
    Such a log has no results; its decisions replay as far as they go."""


def summary_of(log: Mapping[str, Any]) -> dict[str, Any]:
    """The ``referee match --json`` summary of a match log.

    The result's ``extra`` (e.g. that the solo Automa played placeholder numbers) is kept when
    it says anything: a reader of the JSON must learn what a reader of the text learns.
    """
    result = log["result"]
    players = log["players"]
    # A result seat with no player is played by the engine (Tokaido Duo's solo Automa).
    engine_seat = {"name": "automa", "strikes": 0}
    extra = result.get("extra") or {}
    return {
        "game": log["game"],
        "seed": log["seed"],
        "seats": [
            {
                "seat": s["seat"],
                "bot": (players[s["seat"]] if s["seat"] < len(players) else engine_seat)["name"],
                "score": s["score"],
                "breakdown": s["breakdown"],
                "rank": s["rank"],
                "strikes": (players[s["seat"]] if s["seat"] < len(players) else engine_seat)
                .get("strikes", 0),
            }
            for s in result["seats"]
        ],
        "winners": result["winners"],
        "end": result["end"],
        "rounds": result["rounds"],
        **({"turns": result["turns"]} if "turns" in result else {}),
        "reason": result.get("reason", ""),
        "faults": log.get("faults", []),
        **({"extra": dict(extra)} if extra else {}),
    }


# -- files -------------------------------------------------------------------------------------


def read_log(path: str) -> Any:
    """The JSON document in the file ``path`` (checked as a match log by whoever reads it);
    :class:`LogError` naming the file for one that cannot be read or is not JSON."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise LogError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:  # where, then what: file:line:col, as compilers say it
        raise LogError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except ValueError as exc:
        raise LogError(f"{path}: {exc}") from exc
    except RecursionError:  # the JSON decoder recurses once per level of nesting
        raise LogError(f"{path}: not a match log: nested too deep") from None


def check_log_path(path: str) -> None:
    """Refuse, before a match is played, a path its log could not be written to: the folder
    must exist and be writable. (The file itself is written only once the match is over, so a
    match that fails leaves an earlier log at that path alone.)"""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise LogError(f"folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise LogError(f"cannot write in folder {folder}")


def write_log(path: str, log: Mapping[str, Any]) -> None:
    """Write ``log`` to ``path`` as JSON; :class:`LogError` naming the file if it cannot be."""
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(log, fh)
    except OSError as exc:
        raise LogError(f"cannot write the log {path}: {exc.strerror or exc}") from exc


# -- the JSON Schema (draft 2020-12) ------------------------------------------------------------

SCHEMA_BASE = "https://referee.invalid/schemas/"
"""Where the published schemas say they live (``$id``); they refer to each other by it."""
_STR = {"type": "string"}
_NAT = {"type": "integer", "minimum": 0}

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["seats", "winners", "end", "rounds"],  # reason and extra came later
    "properties": {
        "seats": {"type": "array", "items": {
            "type": "object",
            "required": ["seat", "score", "breakdown", "rank"],
            "properties": {
                "seat": _NAT, "score": {"type": "integer"}, "rank": {"type": "integer", "minimum": 1},
                "breakdown": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
        }},
        "winners": {"type": "array", "items": _NAT},
        "end": {"enum": [reason.value for reason in EndReason]},
        "rounds": _NAT,
        "turns": _NAT,
        "reason": _STR,
        "extra": {"type": "object"},
    },
}
"""A result (:class:`~referee.core.ResultDoc`), in the log and in ``/end``."""
TIME_CONTROL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["decision_ms", "bank_ms"],
    "properties": {"decision_ms": {"type": "integer", "minimum": 1}, "bank_ms": _NAT},
}
_FAULT_REASONS = [reason.value for reason in FaultReason]


def _required(doc_type: Any) -> list[str]:
    """The keys of a ``TypedDict`` that are not ``NotRequired``, in order. (Its own
    ``__required_keys__`` cannot tell under postponed annotations: they are strings here.)"""
    hints = get_type_hints(doc_type, include_extras=True)
    return [key for key, kind in hints.items() if get_origin(kind) is not NotRequired]


LOG_SCHEMA: dict[str, Any] = {
    "$id": SCHEMA_BASE + "match-log.json",
    "title": "A match log: replayable from seed and choices",
    "type": "object",
    "required": _required(MatchLog),
    "properties": {
        "format": {"const": LOG_FORMAT},
        "version": {"const": LOG_VERSION},
        "match_id": _STR, "game": _STR, "rules_version": _STR,
        "seed": {"type": "integer"},
        "options": {"type": "object"},
        "board": {"type": ["object", "null"]},
        "time_control": TIME_CONTROL_SCHEMA,
        "strike_limit": {"type": "integer", "minimum": 1},
        "players": {"type": "array", "items": {
            "type": "object", "required": _required(PlayerEntry),
            "properties": {"seat": _NAT, "name": _STR, "strikes": _NAT,
                           "forfeited": {"type": "boolean"},
                           "time_control": TIME_CONTROL_SCHEMA},
        }},
        "decisions": {"type": "array", "items": {
            "type": "object",
            "required": _required(DecisionEntry),
            "properties": {
                "step": _NAT, "seat": _NAT, "kind": _STR, "options": _NAT, "choice": _STR,
                "ms": {"type": "number", "minimum": 0},
                "status": {"enum": list(STATUSES)},
                "log": {"type": "string", "maxLength": MAX_LOG_CHARS},
                "stall_ms": {"type": "number", "minimum": 0},
                "stderr": {"type": "array", "maxItems": MAX_STDERR_LINES + 1,
                           "items": {"type": "string", "maxLength": MAX_STDERR_CHARS}},
            },
        }},
        "faults": {"type": "array", "items": {
            "type": "object", "required": _required(FaultEntry),
            "properties": {
                "step": {"type": ["integer", "null"]}, "seat": _NAT, "kind": _STR,
                "reason": {"enum": _FAULT_REASONS}, "detail": _STR,
            },
        }},
        "forfeited": {"type": "array", "items": _NAT},
        "game_result": RESULT_SCHEMA,
        "result": RESULT_SCHEMA,
        "unfinished": {"enum": [UNFINISHED]},
    },
    # a finished match has both results; only an unfinished one may lack them
    "anyOf": [{"required": ["game_result", "result"]}, {"required": ["unfinished"]}],
}
"""The schema of :class:`MatchLog`, published as ``docs/schemas/match-log.json``."""
