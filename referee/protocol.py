"""Bot protocol v1, both ways: the wire messages built by named functions, and parsed back.

The referee builds ``/start``, ``/decide`` and ``/end`` bodies and parses the bot's answers; a
bot server (``bots.server``) parses those bodies (:func:`parse_start`, :func:`parse_decide`,
:func:`parse_end`, each the inverse of its builder) and builds the answers. One module owns the
shape of every message so that the HTTP transport, the bot server, the
starter kit's documentation and the JSON Schemas (``docs/schemas``) cannot drift apart: the
schemas are kept here as data (:data:`SCHEMAS`), written out to ``docs/schemas`` by
``python -m referee.protocol DIR``, and the tests check both that the files are current and
that every message built here validates against them.

The seed is never sent (it would reveal the dice); a bot sees only its decision and its view.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

import orjson

from referee.board_schemas import BOARD_OF_GAME, BOARD_SCHEMAS
from referee.core import Decision, Option
from referee.errors import RefereeError
from referee.faults import Fault, FaultReason, body_excerpt
from referee.matchlog import (
    LOG_SCHEMA, MAX_LOG_CHARS, RESULT_SCHEMA, SCHEMA_BASE, TIME_CONTROL_SCHEMA,
)
from referee.players import DecisionRequest, MatchInfo
from referee.view_schemas import VIEW_OF_GAME, VIEW_SCHEMAS

PROTOCOL_VERSION = 1


# -- messages the referee sends -------------------------------------------------------------


def start_message(info: MatchInfo) -> dict[str, Any]:
    """The ``POST /start`` body: who plays which seat and the time control (and the board)."""
    return {
        "protocol": PROTOCOL_VERSION,
        "match_id": info.match_id,
        "game": info.game,
        "seat": info.seat,
        "players": [{"seat": seat, "name": name} for seat, name in info.players],
        "time_control": dict(info.time_control),
        "board": info.board,
    }


def decision_message(decision: Decision) -> dict[str, Any]:
    """A :class:`~referee.core.Decision` as JSON: kind, prompt, and every option."""
    return {
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": [{"id": o.id, "label": o.label, "data": o.data} for o in decision.options],
    }


def decide_message(request: DecisionRequest) -> dict[str, Any]:
    """The ``POST /decide`` body. ``deadline_ms`` already includes the remaining ``bank_ms``."""
    return {
        "protocol": PROTOCOL_VERSION,
        "match_id": request.match_id,
        "game": request.game,
        "seat": request.seat,
        "request_id": request.request_id,
        "deadline_ms": request.deadline_ms,
        "bank_ms": request.bank_ms,
        "decision": decision_message(request.decision),
        "view": request.view(),
    }


def decide_body(request: DecisionRequest) -> bytes:
    """The encoded ``/decide`` body, equal to ``encode(decide_message(request))`` but faster.

    It runs for every decision, so only the view is encoded afresh each time. What stays the
    same is encoded once and cached: the head of the message (protocol, match, game, seat),
    the decision's kind and prompt, and each option tuple (engines reuse theirs: a Doubletrack
    bid offers the same 70-odd options every time a seat holds the same money).
    """
    d = request.decision
    return b"".join((
        _head(request.match_id, request.game, request.seat),
        b',"request_id":', encode(request.request_id),
        b',"deadline_ms":', _number(request.deadline_ms),
        b',"bank_ms":', _number(request.bank_ms),
        b',"decision":{"kind":', _text(d.kind), b',"prompt":', _text(d.prompt),
        b',"options":', options_json(d.options), b'},"view":', encode(request.view()), b"}",
    ))


_CACHE_MAX = 4096
_HEADS: dict[tuple[str, str, int], bytes] = {}
_TEXTS: dict[str, bytes] = {}


def _head(match_id: str, game: str, seat: int) -> bytes:
    """``{"protocol":1,"match_id":…,"game":…,"seat":…`` (no closing brace), cached."""
    key = (match_id, game, seat)
    head = _HEADS.get(key)
    if head is None:
        head = encode({"protocol": PROTOCOL_VERSION, "match_id": match_id, "game": game,
                       "seat": seat})[:-1]
        if len(_HEADS) >= _CACHE_MAX:
            _HEADS.clear()
        _HEADS[key] = head
    return head


def _text(text: str) -> bytes:
    """A JSON string, cached (decision kinds and prompts repeat all match long)."""
    data = _TEXTS.get(text)
    if data is None:
        data = encode(text)
        if len(_TEXTS) >= _CACHE_MAX:
            _TEXTS.clear()
        _TEXTS[text] = data
    return data


def _number(value: int) -> bytes:
    return str(value).encode() if type(value) is int else encode(value)


_OPTIONS_JSON: dict[int, tuple[tuple[Option, ...], bytes]] = {}
_OPTIONS_JSON_MAX = 8192


def options_json(options: tuple[Option, ...]) -> bytes:
    """The JSON array of ``options``, cached by the tuple's identity (the cache holds the tuple,
    so its id cannot be reused by another object while cached)."""
    hit = _OPTIONS_JSON.get(id(options))
    if hit is not None and hit[0] is options:
        return hit[1]
    data = encode([{"id": o.id, "label": o.label, "data": o.data} for o in options])
    if len(_OPTIONS_JSON) >= _OPTIONS_JSON_MAX:
        _OPTIONS_JSON.clear()
    _OPTIONS_JSON[id(options)] = (options, data)
    return data


def end_message(match_id: str, game: str, seat: int, result: Mapping[str, Any]) -> dict[str, Any]:
    """The ``POST /end`` body: the final result (forfeits applied)."""
    return {
        "protocol": PROTOCOL_VERSION,
        "match_id": match_id,
        "game": game,
        "seat": seat,
        "result": dict(result),
    }


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""``json.dumps`` with these arguments builds a new encoder on every call."""


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON, the bytes that go on the wire.

    Every ``/decide`` encodes a whole view (a few KiB), the largest share of the referee's own
    CPU per HTTP decision with the standard library's encoder; orjson writes it about seven
    times faster, byte for byte the same but for a float's spelling (``1e16`` for ``1e+16``)
    and NaN (``null``, where the standard encoder writes invalid JSON). What orjson refuses (an
    integer beyond 64 bits in a user's board file, a mapping that is not a dict) goes to the
    standard encoder, which decides.
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return _ENCODER.encode(message).encode("utf-8")


# -- answers the bot sends ------------------------------------------------------------------

MAX_DEPTH = 64
"""Deepest nesting of a document read from the wire. No protocol document comes near it (a
view nests about six deep); past it, code walking the document recursively (a schema check,
an equality, a ``repr``) would hit Python's recursion limit."""
_BOM = b"\xef\xbb\xbf"


def decode_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document ``body`` holds, or ``ValueError`` saying why it is not one we read.

    Strict JSON in UTF-8: no NaN or Infinity, no lone surrogate (it could be neither printed
    nor stored), no number beyond a double (a 100,000-digit integer would cost seconds to
    convert), at most ``max_depth`` levels deep. A UTF-8 byte order mark is skipped, as
    RFC 8259 allows (some platforms write one by default). orjson checks all of it but the
    depth without recursion, and refuses anything deeper than 1024 levels itself; the API
    reads its requests with it too, before its schemas' parser (which recurses) sees them.
    """
    doc = orjson.loads(body[3:] if body.startswith(_BOM) else body)
    if isinstance(doc, (dict, list)):
        _check_depth(doc, max_depth)
    return doc


def _check_depth(doc: dict[str, Any] | list[Any], max_depth: int) -> None:
    level: list[Any] = [doc]
    for _ in range(max_depth):
        level = [child for node in level
                 for child in (node.values() if isinstance(node, dict) else node)
                 if isinstance(child, (dict, list))]
        if not level:
            return
    raise ValueError(f"nested deeper than {max_depth} levels")


class ParsedAnswer(NamedTuple):
    """A ``/decide`` answer: ``fault`` is ``None`` when it is usable; ``notes`` are protocol
    deviations that are not strikes (a non-string ``log``, which is dropped)."""

    choice: str | None
    log: str | None
    fault: Fault | None
    notes: tuple[str, ...] = ()


def read_answer(body: bytes, option_ids: tuple[str, ...], who: str) -> ParsedAnswer:
    """:func:`parse_answer`, with anything it raises made the seat's fault (logged with its
    traceback): checking one seat's answer must never end the match. Every player that reads
    a bot's answer (HTTP, pull mode) reads it here."""
    try:
        return parse_answer(body, option_ids)
    except Exception as exc:  # checking a seat's answer: its fault, never the match's
        logging.getLogger("referee.protocol").exception("reading an answer of %s", who)
        return ParsedAnswer(None, None, Fault(
            FaultReason.BAD_JSON, f"an answer the referee cannot read ({type(exc).__name__})",
            body_excerpt(body)))


def parse_answer(body: bytes, option_ids: tuple[str, ...]) -> ParsedAnswer:
    """Check a raw ``/decide`` answer body: a JSON object whose ``choice`` is an offered id.

    Fast on purpose (it runs for every decision): a hand check equivalent to the ``answer``
    schema, plus the one thing a schema cannot know, that the id was offered.
    """
    try:
        doc = decode_json(body)
    except ValueError as exc:
        return _bad(body, f"not JSON ({exc}): {_preview(body)}")
    if not isinstance(doc, dict):
        return _bad(body, f"expected a JSON object, got {_kind(doc)}")
    choice = doc.get("choice")
    if not isinstance(choice, str):
        what = "missing" if "choice" not in doc else f"a {_kind(choice)}, not a string"
        return _bad(body, f"field 'choice' is {what}")
    log, notes = doc.get("log"), cast(tuple[str, ...], ())
    if log is not None and not isinstance(log, str):
        log, notes = None, (f"field 'log' is a {_kind(doc['log'])}, not a string (ignored)",)
    if log is not None and len(log) > MAX_LOG_CHARS:
        log = log[:MAX_LOG_CHARS]
    if choice not in option_ids:
        shown = ", ".join(option_ids[:8]) + (", ..." if len(option_ids) > 8 else "")
        fault = Fault(FaultReason.UNKNOWN_OPTION, f"{choice[:80]!r} is not one of: {shown}",
                      body_excerpt(body))
        return ParsedAnswer(choice, log, fault, notes)
    return ParsedAnswer(choice, log, None, notes)


def _bad(body: bytes, detail: str) -> ParsedAnswer:
    return ParsedAnswer(None, None, Fault(FaultReason.BAD_JSON, detail, body_excerpt(body)))


# -- messages a bot receives, parsed (the bot server's side) ---------------------------------

MAX_SEATS = 16
MAX_NAME = 64
MAX_MATCH_ID = 256
MAX_NUMBER = 10**6
"""No number in a real view comes near this (money, positions and counts are small); a
bigger one would have a bot's simulation allocate or loop in proportion to it."""
MAX_VIEW_NODES = 100_000


class MessageError(RefereeError, ValueError):
    """A message a bot cannot act on; the message names the field (a bot server answers 400)."""


def decode_message(raw: bytes) -> dict[str, Any]:
    """A request body as the JSON object every message is, or :class:`MessageError`."""
    try:
        doc = decode_json(raw or b"null")
    except ValueError as exc:
        raise MessageError(f"body is not JSON this bot reads: {exc}") from None
    if not isinstance(doc, dict):
        raise MessageError("body must be a JSON object")
    return doc


def parse_start(msg: dict[str, Any]) -> MatchInfo:
    """The :class:`~referee.players.MatchInfo` of a ``/start`` body (the inverse of
    :func:`start_message`), keeping the protocol's fields only, bounded: at most
    :data:`MAX_SEATS` players, names cut to :data:`MAX_NAME` characters."""
    match_id, game, seat = _match_id(msg), _field(msg, "game", str), _seat(msg)
    raw_players = _field(msg, "players", list, [])
    if len(raw_players) > MAX_SEATS:
        raise MessageError(f"field players has {len(raw_players)} entries; at most {MAX_SEATS}")
    players = []
    for i, p in enumerate(raw_players):
        where = f"players[{i}]."
        players.append((_seat(_object(p, where), where),
                        _field(p, "name", str, "", where)[:MAX_NAME]))
    clock = _field(msg, "time_control", dict, {})
    return MatchInfo(
        match_id=match_id, game=game, seat=seat, players=tuple(players),
        time_control={k: int(v) for k, v in clock.items()
                      if k in ("decision_ms", "bank_ms") and _is_int(v)},
        board=_field(msg, "board", (dict, type(None)), None),
    )


def parse_decide(msg: dict[str, Any]) -> DecisionRequest:
    """The :class:`~referee.players.DecisionRequest` of a ``/decide`` body (the inverse of
    :func:`decide_message`). ``label``, ``prompt``, ``data``, ``request_id``, ``deadline_ms``
    and ``bank_ms`` may be left out (for people driving a bot by hand), but not given with the
    wrong type; numbers in the view and decision are bounded (:data:`MAX_NUMBER`)."""
    decision, view = _decision(msg), _field(msg, "view", dict)
    _check_bounded(view, "view")
    _check_bounded(msg["decision"], "decision")
    return DecisionRequest(
        match_id=_match_id(msg), game=_field(msg, "game", str), seat=decision.seat,
        request_id=_field(msg, "request_id", str, ""), decision=decision, view=lambda: view,
        deadline_ms=_field(msg, "deadline_ms", int, 0), bank_ms=_field(msg, "bank_ms", int, 0),
    )


def parse_end(msg: dict[str, Any]) -> tuple[str, int]:
    """The match id and seat of an ``/end`` body (seat 0 when absent: the end schema does
    not require it)."""
    return _match_id(msg), _seat(msg, default=0)


def _match_id(msg: dict[str, Any]) -> str:
    match_id: str = _field(msg, "match_id", str)
    if len(match_id) > MAX_MATCH_ID:
        raise MessageError(f"field match_id is {len(match_id)} characters; at most {MAX_MATCH_ID}")
    return match_id


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**9


def _check_bounded(doc: Any, where: str) -> None:
    """:class:`MessageError` for a number beyond :data:`MAX_NUMBER` or more than
    :data:`MAX_VIEW_NODES` values anywhere in ``doc`` (iteratively: no recursion limit)."""
    stack, seen = [doc], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_VIEW_NODES:
            raise MessageError(f"field {where} holds more than {MAX_VIEW_NODES} values")
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and (
                not math.isfinite(value) or abs(value) > MAX_NUMBER):
            raise MessageError(f"field {where} holds the number {value!r:.40}, beyond "
                               f"±{MAX_NUMBER}: no game's view does")


_MISSING = object()
_KIND_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "an array"}


def _field(doc: dict[str, Any], name: str, kind: type | tuple[type, ...],
           default: Any = _MISSING, where: str = "") -> Any:
    """``doc[name]`` if it is a ``kind`` (a boolean is no integer); ``default`` if absent and
    one is given; otherwise :class:`MessageError` naming the field as ``where + name``."""
    value = doc.get(name, _MISSING)
    if value is _MISSING and default is not _MISSING:
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return value
    expected = " or ".join(_KIND_NAMES.get(k, "null") for k in kinds)
    raise MessageError(f"field {where}{name} is " + (
        "missing" if value is _MISSING else f"not {expected}"))


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MessageError(f"field {where.rstrip('.')} is not an object")
    return value


def _seat(doc: dict[str, Any], where: str = "", default: Any = _MISSING) -> int:
    seat: int = _field(doc, "seat", int, default, where)
    if seat < 0:
        raise MessageError(f"field {where}seat is negative")
    return seat


def _decision(msg: dict[str, Any]) -> Decision:
    """The ``decision`` of a ``/decide`` body."""
    d = _field(msg, "decision", dict)
    raw = _field(d, "options", list, _MISSING, "decision.")
    if not raw:
        raise MessageError("field decision.options is empty")
    options = []
    for i, o in enumerate(raw):
        where = f"decision.options[{i}]."
        _object(o, where)
        options.append(Option(_field(o, "id", str, _MISSING, where),
                              _field(o, "label", str, "", where),
                              _field(o, "data", dict, {}, where)))
    return Decision(_seat(msg), _field(d, "kind", str, _MISSING, "decision."),
                    _field(d, "prompt", str, "", "decision."), tuple(options))


# -- checking documents against the schemas ---------------------------------------------------


def info_errors(doc: Any) -> list[str]:
    """Every way a ``GET /`` document breaks the ``info`` schema, each naming its field."""
    return schema_errors("info", doc)


def schema_errors(name: str, doc: Any) -> list[str]:
    """Validate ``doc`` against :data:`SCHEMAS[name]`; messages read ``field.path: problem``."""
    validator = schema_validator(SCHEMAS[name], SCHEMAS.values())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{field_path(e.absolute_path) or '(document)'}: {e.message}" for e in errors]


def schema_validator(schema: Mapping[str, Any], known: Any) -> Any:
    """A draft 2020-12 validator for ``schema`` that resolves ``$ref`` among the ``known``
    schemas by their ``$id`` (``decide`` refers to each game's view schema), offline."""
    import jsonschema  # only the checking tools pay for the import
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Any = Registry().with_resources(
        (s["$id"], Resource.from_contents(dict(s), default_specification=DRAFT202012))
        for s in known if "$id" in s
    )
    return jsonschema.Draft202012Validator(dict(schema), registry=registry)


def field_path(path: Any) -> str:
    """``['games', 0, 'x']`` -> ``games[0].x``: how a bot author finds the field."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean",
            type(None): "null"}.get(type(value), "number")


def _preview(body: bytes, limit: int = 60) -> str:
    text = body[:limit].decode("utf-8", "replace")
    return repr(text) + ("..." if len(body) > limit else "")


# -- JSON Schemas (draft 2020-12), one per message (the match log's is in referee.matchlog) --

_ID = SCHEMA_BASE
_STR = {"type": "string"}
_NAT = {"type": "integer", "minimum": 0}
_PROTO = {"const": PROTOCOL_VERSION}

SCHEMAS: dict[str, dict[str, Any]] = {
    "info": {
        "$id": _ID + "info.json",
        "title": "GET / answer: who the bot is and what it plays",
        "type": "object",
        "required": ["name", "games", "protocol"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 64},
            "author": _STR,
            "version": _STR,
            "games": {"type": "array", "minItems": 1, "uniqueItems": True, "items": _STR},
            "protocol": _PROTO,
            "max_connections": {
                "type": "integer", "minimum": 1,
                "description": "Connections the bot takes at once; the referee keeps one per "
                               "seat per match open, and a tournament warns when its "
                               "concurrency could need more.",
            },
        },
    },
    "start": {
        "$id": _ID + "start.json",
        "title": "POST /start body: a match begins",
        "type": "object",
        "required": ["protocol", "match_id", "game", "seat", "players", "time_control"],
        "properties": {
            "protocol": _PROTO, "match_id": _STR, "game": _STR, "seat": _NAT,
            "players": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["seat", "name"],
                "properties": {"seat": _NAT, "name": _STR},
            }},
            "time_control": TIME_CONTROL_SCHEMA,
            "board": {"type": ["object", "null"], "description": "the board data in play: "
                      "see the game's board schema (board-<game>.json) and docs/games/<game>.md"},
        },
        "allOf": [
            {"if": {"required": ["game"], "properties": {"game": {"const": game}}},
             "then": {"properties": {"board": {"$ref": f"{schema}.json"}}}}
            for game, schema in sorted(BOARD_OF_GAME.items())
        ],
    },
    "decide": {
        "$id": _ID + "decide.json",
        "title": "POST /decide body: one decision for one seat",
        "type": "object",
        "required": ["protocol", "match_id", "game", "seat", "request_id", "deadline_ms",
                     "decision", "view"],
        "properties": {
            "protocol": _PROTO, "match_id": _STR, "game": _STR, "seat": _NAT, "request_id": _STR,
            "deadline_ms": {"type": "integer", "minimum": 1},
            "bank_ms": _NAT,
            "decision": {
                "type": "object", "required": ["kind", "prompt", "options"],
                "properties": {
                    "kind": _STR, "prompt": _STR,
                    "options": {"type": "array", "minItems": 2, "items": {
                        "type": "object", "required": ["id", "label", "data"],
                        "properties": {"id": _STR, "label": _STR, "data": {"type": "object"}},
                    }},
                },
            },
            "view": {"type": "object", "description": "what the seat may see: see the game's "
                     "view schema (view-<game>.json) and docs/games/<game>.md"},
        },
        "allOf": [
            {"if": {"required": ["game"], "properties": {"game": {"const": game}}},
             "then": {"properties": {"view": {"$ref": f"{schema}.json"}}}}
            for game, schema in sorted(VIEW_OF_GAME.items())
        ],
    },
    "answer": {
        "$id": _ID + "answer.json",
        "title": "POST /decide answer: the chosen option id",
        "type": "object",
        "required": ["choice"],
        "properties": {"choice": _STR, "log": _STR},
    },
    "end": {
        "$id": _ID + "end.json",
        "title": "POST /end body: the match is over",
        "type": "object",
        "required": ["match_id", "result"],
        "properties": {
            "protocol": _PROTO, "match_id": _STR, "game": _STR, "seat": _NAT,
            "result": RESULT_SCHEMA,
        },
    },
    "match-log": LOG_SCHEMA,
}


SCHEMAS.update(VIEW_SCHEMAS)
SCHEMAS.update(BOARD_SCHEMAS)


def schema_text(name: str) -> str:
    """The exact text of ``docs/schemas/<name>.json``."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **SCHEMAS[name]}
    return json.dumps(schema, indent=2) + "\n"


def write_schemas(directory: str) -> list[str]:
    """Write every schema to ``directory``; returns the paths written."""
    import os

    paths = []
    for name in SCHEMAS:
        path = os.path.join(directory, f"{name}.json")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(schema_text(name))
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover - a maintainer's tool
    for written in write_schemas(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas"):
        print(written)
