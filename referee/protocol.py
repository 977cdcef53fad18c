"""Bot protocol v1: the wire messages, built by named functions, and the bot's answers parsed.

One module owns the shape of every message so that the HTTP transport, the bot server, the
starter kit's documentation and the JSON Schemas (``docs/schemas``) cannot drift apart: the
schemas are kept here as data (:data:`SCHEMAS`), written out to ``docs/schemas`` by
``python -m referee.protocol DIR``, and the tests check both that the files are current and
that every message built here validates against them.

The seed is never sent (it would reveal the dice); a bot sees only its decision and its view.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from referee.core import Decision, Option
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

    Engines reuse their option tuples (a Doubletrack bid offers the same 70-odd options every
    time a seat holds the same money), so each tuple's JSON is encoded once and cached: on
    decisions with many options that halves the referee's own time per request.
    """
    head = encode({
        "protocol": PROTOCOL_VERSION,
        "match_id": request.match_id,
        "game": request.game,
        "seat": request.seat,
        "request_id": request.request_id,
        "deadline_ms": request.deadline_ms,
        "bank_ms": request.bank_ms,
    })
    d = request.decision
    return b"".join((
        head[:-1], b',"decision":{"kind":', encode(d.kind), b',"prompt":', encode(d.prompt),
        b',"options":', options_json(d.options), b'},"view":', encode(request.view()), b"}",
    ))


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


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON, the bytes that go on the wire."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# -- answers the bot sends ------------------------------------------------------------------


class ParsedAnswer(NamedTuple):
    """A ``/decide`` answer: ``fault`` is ``None`` when it is usable; ``notes`` are protocol
    deviations that are not strikes (a non-string ``log``, which is dropped)."""

    choice: str | None
    log: str | None
    fault: Fault | None
    notes: tuple[str, ...] = ()


def parse_answer(body: bytes, option_ids: tuple[str, ...]) -> ParsedAnswer:
    """Check a raw ``/decide`` answer body: a JSON object whose ``choice`` is an offered id.

    Fast on purpose (it runs for every decision): a hand check equivalent to the ``answer``
    schema, plus the one thing a schema cannot know, that the id was offered.
    """
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
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
            "board": {"type": ["object", "null"]},
        },
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
