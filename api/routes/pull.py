"""Pull bots' connections: a bot without an address takes its requests here (a long-poll)
and posts each answer to a URL named by the request.

Why a long-poll and not a stream: the embedded server (waitress) and gunicorn's sync workers
hold a thread for as long as a request lasts, so a stream would hold one per connected bot for
hours, past gunicorn's worker timeout (30 s by default) and many proxies' idle timeouts. A
poll lasts at most :data:`~api.schemas.POLL_WAIT_MAX_S` and a bot that is playing is answered
at once; a waiting poll still holds a thread, so a server is sized for one thread per
connected pull bot (waitress ``threads``, gunicorn ``--threads`` with gthread workers).

The documents are the protocol's (``docs/protocol.md``, "Pull mode"); the relay
(:mod:`referee.relay`) carries them to the match and the answer back, and the match reads the
answer as it reads an HTTP bot's (the same faults).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import marshmallow as ma
from flask import Response, g, request
from flask_limiter import Limiter
from flask_smorest import Blueprint, abort

from api.auth import BEARER, require_owner
from api.context import service
from api.relays import arrived, available, process_relay, relay_down
from api.schemas import ID_RULE as ID, AnswerOut, PollArgs, PollOut
from ladder import registry
from ladder.accounts import Principal
from ladder.models import PULL
from referee.faults import Fault, FaultReason
from referee.relay import Delivered, RelayError, Replaced
from referee.transport.exchange import MAX_BODY

log = logging.getLogger("referee.api")
RELAY_DOWN = "the service cannot reach its relay now: poll again in a moment"
RAW_BODY = "_raw_body"
MAX_WAITING_POLLS = 4
"""Polls of one owner that may wait at once in one web process. Each holds one of the
server's request threads for up to ``wait`` seconds, and those threads serve the whole site:
without a bound, one owner's pull bots could hold them all. A poll past it is a 429 (the
bridge backs off and polls again); one with ``wait=0`` takes no thread for long and passes."""
_waiting: Counter[int] = Counter()
_waiting_lock = threading.Lock()


@contextmanager
def waiting_slot(owner_id: int, wait: int) -> Iterator[None]:
    """Hold one of the owner's :data:`MAX_WAITING_POLLS` while a poll waits (429 beyond)."""
    if wait == 0:
        yield
        return
    with _waiting_lock:
        if _waiting[owner_id] >= MAX_WAITING_POLLS:
            abort(429, message=f"{MAX_WAITING_POLLS} polls of this owner's bots are waiting "
                               "already: poll with wait=0, or again in a moment")
        _waiting[owner_id] += 1
    try:
        yield
    finally:
        with _waiting_lock:
            _waiting[owner_id] -= 1
            if not _waiting[owner_id]:
                del _waiting[owner_id]
"""A view attribute: the view reads its body itself, as a bot's answer (the guards let any
body through, up to the size cap it enforces as a strike)."""


def raw_body(view: Any) -> Any:
    """Mark ``view`` as reading its own body (:data:`RAW_BODY`); innermost decorator."""
    setattr(view, RAW_BODY, True)
    return view


def blueprint(limiter: Limiter, games: list[str]) -> Blueprint:
    blp = Blueprint("pull", __name__, url_prefix="/api/v1", description=(
        "Bots without a public address (`\"mode\": \"pull\"`): the bot's connection takes "
        "its requests (a long-poll) and answers each at a URL named by its request id, with "
        "its owner's token. The documents, deadlines and faults are an HTTP bot's."))

    @blp.route(f"/bots/<{ID}:bot_id>/requests", methods=["GET"])
    @limiter.exempt
    @pull_owner_required
    @blp.doc(security=BEARER)
    @blp.arguments(PollArgs, location="query", unknown=ma.RAISE, as_kwargs=True)
    @blp.response(200, PollOut)
    @blp.alt_response(409, response="CONFLICT")
    @blp.alt_response(429, response="DEFAULT_ERROR")
    @blp.alt_response(503, response="DEFAULT_ERROR")
    def poll(bot_id: int, wait: int, resume: bool) -> Any:
        """Your pull bot's connection: its next requests, waiting up to `wait` seconds.

        Each request's clock starts when this answer hands it over: answer it within its
        `deadline_ms` at `POST /bots/{id}/requests/{request_id}`, then poll again (a match
        asks only once the previous answer is in). A request no poll takes within its
        deadline (at least 2 s) is a `connection_error` strike; a bot polling is connected,
        one that stops for 10 s is away. One connection per bot: a newer poll replaces a
        waiting one, which answers 409. At most 4 polls of one owner's bots wait at once
        (each holds a server thread): more answer 429, `wait=0` always passes.

        `resume=true` on a connection's first poll (after a start or a lost connection):
        the requests handed before and not answered are handed again (`"resent": true`),
        each with the time left of its deadline; a poll without it never gets a request
        twice."""
        pulled_bot(bot_id)
        try:
            arrived(service().engine, bot_id)
        except RelayError as exc:
            log.exception("presence of bot %s", bot_id)
            relay_down(service().engine, bot_id, exc)
            abort(503, message=RELAY_DOWN)
        try:
            with waiting_slot(require_owner().owner_id, wait):
                taken = process_relay().take(str(bot_id), float(wait), resume)
        except Replaced as exc:
            abort(409, message=f"{exc}: one connection per bot")
        except RelayError as exc:
            log.exception("poll of bot %s", bot_id)
            relay_down(service().engine, bot_id, exc)
            abort(503, message=RELAY_DOWN)
        body = b'{"requests":[' + b",".join(taken) + b"]}"
        return Response(body, 200, mimetype="application/json")

    @blp.route(f"/bots/<{ID}:bot_id>/requests/<string(maxlength=300):request_id>",
               methods=["POST"])
    @limiter.exempt
    @pull_owner_required
    @blp.doc(security=BEARER, requestBody={
        "required": True, "description": "the answer, exactly as an HTTP bot answers the "
        "request's path (`/decide`: `{\"choice\": ..., \"log\"?: ...}`; `/start` and `/end`: "
        "any body, e.g. `{}`), at most 64 KiB; the match reads it as it reads an HTTP bot's",
        "content": {"application/json": {"schema": {"type": "object"}}}})
    @blp.response(200, AnswerOut)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(409, response="CONFLICT")
    @blp.alt_response(413, response="DEFAULT_ERROR")
    @blp.alt_response(503, response="DEFAULT_ERROR")
    @raw_body
    def answer(bot_id: int, request_id: str) -> Any:
        """Answer one request your pull bot was handed.

        404 for a request that is not this bot's or was never handed to it; 409 for an
        answer after its deadline (the match has struck it: `timeout`). A second answer to a
        request answered in time is `200 {"status": "duplicate"}`: the first answer stands
        (this one is dropped, whatever it says) and there is no strike; `ms` is the first's.
        A body over 64 KiB is a `too_large` strike (413), a compressed one `bad_json`; what
        the body says is read by the match, as an HTTP bot's answer is."""
        pulled_bot(bot_id)
        body, fault = read_answer()
        try:
            outcome, ms = process_relay().answer(str(bot_id), request_id, body, fault)
        except RelayError as exc:
            log.exception("answer of bot %s", bot_id)
            relay_down(service().engine, bot_id, exc)
            abort(503, message=RELAY_DOWN)
        if outcome is Delivered.UNKNOWN:
            abort(404, message=f"bot {bot_id} has no request {request_id!r} waiting for an "
                               "answer")
        if outcome is Delivered.LATE:
            abort(409, message=f"request {request_id!r} was answered too late"
                               + (f" ({ms:.0f} ms)" if ms else "") + ": a timeout strike")
        if (outcome is Delivered.ACCEPTED and fault is not None
                and fault.reason is FaultReason.TOO_LARGE):
            abort(413, message=f"the answer is over {MAX_BODY // 1024} KiB: a strike")
        return Response(b'{"status":"%s","ms":%s}' % (outcome.value.encode(),
                                                      repr(round(ms, 3)).encode()),
                        200, mimetype="application/json")  # AnswerOut, written directly

    return blp


_principals: dict[tuple[int, str], tuple[Principal, float]] = {}
"""(database engine, ``Authorization`` header) found to be a live token, its principal and
until when (monotonic): a pull bot polls and answers twice a decision, and reading its token
each time cost as much as the rest of the request (a revoked token still passes here for at
most :data:`CHECKED_S`)."""
_principals_lock = threading.Lock()


def pull_owner_required(view: Any) -> Any:
    """:func:`api.auth.owner_required` with the token's principal kept :data:`CHECKED_S`
    per process (:data:`_principals`)."""
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key, now = (id(service().engine), request.headers.get("Authorization", "")), (
            time.monotonic())
        hit = _principals.get(key)
        if hit is not None and hit[1] > now:
            g.principal = hit[0]
        else:
            who = require_owner()
            with _principals_lock:
                if len(_principals) > 10_000:
                    _principals.clear()
                _principals[key] = (who, now + CHECKED_S)
        return view(*args, **kwargs)
    return wrapper


_checked: dict[tuple[int, int, int], float] = {}
"""(database engine, owner, bot) found to be the owner's live pull bot, until when
(monotonic): a bot polls and answers for every decision, and its row need not be read each
time."""
CHECKED_S = 5.0
"""How long a passed check is trusted: a bot retired or handed over is refused this soon."""


def pulled_bot(bot_id: int) -> None:
    """401/403/404/409 unless ``bot_id`` is the caller's live pull bot; 503 where the
    service's layout cannot carry pull bots."""
    who = require_owner()
    svc = service()
    refused = available(svc.mode)
    if refused is not None:
        abort(503, message=refused)
    key, now = (id(svc.engine), who.owner_id, bot_id), time.monotonic()
    if _checked.get(key, 0.0) > now:
        return
    bot = registry.owned_bot(svc.engine, who.owner_id, bot_id)
    if bot["mode"] != PULL:
        abort(409, message=f"bot {bot_id} is called at its URL (push mode): it has no "
                           "requests to take")
    if len(_checked) > 10_000:
        _checked.clear()
    _checked[key] = now + CHECKED_S


def read_answer() -> tuple[bytes | None, Fault | None]:
    """The answer's body, or the fault it is: over :data:`MAX_BODY` bytes (``too_large``,
    unread when its length says so), or compressed (``bad_json``), as for an HTTP bot."""
    size = request.content_length
    if size is not None and size > MAX_BODY:
        return None, Fault(FaultReason.TOO_LARGE, f"the answer is {size} bytes, over the "
                                                  f"{MAX_BODY}-byte cap")
    body = request.stream.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        return None, Fault(FaultReason.TOO_LARGE, f"the answer is over the {MAX_BODY}-byte cap")
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        return None, Fault(FaultReason.BAD_JSON, f"a compressed answer ({encoding}): send it "
                                                 "plain")
    return body, None
