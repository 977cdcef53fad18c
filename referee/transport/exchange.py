"""One call to a bot, complete within its budget or cut off: :class:`Transport`.

* Who shuts the socket down at the deadline (:mod:`referee.transport.deadline`) depends on the
  address. A host name needs a DNS lookup, which nothing can interrupt: such calls run on a
  worker thread and the caller waits on the future until the deadline, then shuts the socket
  down (so the worker is freed too). An IP address needs no lookup: the call runs in the
  caller's own thread and the process's clock thread (:mod:`referee.stall`) shuts the socket
  down at the deadline. Same guarantee, without two thread switches per decision (they cost
  about 0.1 ms, as much as the referee's own work). Either way the deadline is in awake time:
  a stall of the referee moves it.
* Only what a peer can provoke is a bot's fault: socket, TLS, HTTP and encoding errors
  (:data:`PEER_ERRORS`). Any other exception is a bug of the referee (a library upgrade
  breaking the hooks that the adapter and its connections override would strike every bot at
  once): it is logged with its traceback and raised, never charged.
* The body is read with ``raw.read1(..., decode_content=False)``, counting raw bytes against the
  cap (64 KiB by default); compressed bodies are refused (a zip bomb is small on the wire).
* One session per transport (:func:`~referee.transport.adapter.new_session`), used by one call
  at a time: one kept-alive connection to the bot for the whole match. Each request is prepared
  once per method and path and reused (preparing costs a third of a keep-alive exchange).
"""

from __future__ import annotations

import http.client
import ipaddress
import logging
import ssl
import threading
from concurrent.futures import (
    CancelledError, Future, ThreadPoolExecutor, TimeoutError as FutureTimeout,
)
from typing import NamedTuple
from urllib.parse import urlsplit

import orjson
import requests
import urllib3.exceptions
from requests import PreparedRequest

from referee.display import printable, redact
from referee.errors import RefereeError
from referee.faults import Fault, FaultReason
from referee.stall import CLOCK
from referee.transport.adapter import ConnectGuard, new_session, send, with_body
from referee.transport.deadline import Call, Stopwatch, current

log = logging.getLogger("referee.transport")

MAX_BODY = 64 * 1024
PLAIN_HTTP_HINT = "is the bot serving plain http? then use an http:// URL"
CONNECT_TIMEOUT_S = 1.0
"""A bot that is not up is struck quickly, not waited for."""
READ_SLACK_S = 30.0
"""The socket's own read timeout beyond the budget: a last resort only, since the clock thread
cuts a call off at its deadline in awake time, which a frozen referee's wall clock overtakes."""
PEER_ERRORS: tuple[type[BaseException], ...] = (
    OSError, http.client.HTTPException, urllib3.exceptions.HTTPError, ValueError, EOFError,
)
"""What bytes from a peer (or its absence) can make the HTTP stack raise: the bot's fault.
``OSError`` covers sockets, TLS and every ``requests`` error; ``ValueError`` bad encodings and
numbers in the status line, headers or chunk sizes, and the service's address policy refusing
where the bot's host now points."""


class BotUrlError(RefereeError, ValueError):
    """A bot address that cannot be a protocol v1 base URL; the message says why."""


def check_url(url: str) -> str:
    """``url`` without a trailing slash, or :class:`BotUrlError` naming the problem.

    Every way a URL can be malformed ends here as a :class:`BotUrlError` (``urlsplit`` and
    ``.port`` raise a bare ``ValueError`` for ``http://[::1`` or a port out of range), so that
    callers need to catch one error type to give a one-line message.
    """
    if not isinstance(url, str) or any(ch <= " " or ch == "\x7f" for ch in url):
        raise BotUrlError(f"bad bot URL {printable(redact(str(url)))!r}: contains whitespace "
                          "or a control character")
    shown = redact(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise BotUrlError(f"bad bot URL {shown!r}: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise BotUrlError(f"bad bot URL {shown!r}: must start with http:// or https://")
    if not parts.hostname:
        raise BotUrlError(f"bad bot URL {shown!r}: no host")
    if parts.query or parts.fragment:
        raise BotUrlError(f"bad bot URL {shown!r}: a base URL has no query or fragment")
    return url.rstrip("/")


class Exchange(NamedTuple):
    """What one call gave: the body, or the fault; ``ms`` is the round trip charged to the bot
    (its wall-clock time less ``stall_ms``, the time the referee's process was stalled)."""

    body: bytes | None
    fault: Fault | None
    ms: float
    content_type: str = ""
    stall_ms: float = 0.0


class Transport:
    """Calls to one bot, one at a time, each complete within its budget or cut off."""

    def __init__(self, base_url: str, max_body: int = MAX_BODY, label: str = "bot",
                 guard: ConnectGuard | None = None) -> None:
        self.base_url = check_url(base_url)
        self.max_body = max_body
        self.guard = guard
        self.inline = _is_ip(urlsplit(self.base_url).hostname or "")
        """Run calls in the caller's thread (an IP address: no DNS lookup to wait out)."""
        self._label = label
        self._session_lock = threading.Lock()
        """One session (one kept-alive connection) per player, used by one call at a time."""
        self._session: requests.Session | None = None
        self._templates: dict[tuple[str, str], PreparedRequest] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False

    def call(self, method: str, path: str, body: bytes | None, budget_ms: float) -> Exchange:
        """One request, answered completely within ``budget_ms`` or cut off as a timeout."""
        if self._closed:
            return _closed()
        if self.inline:
            return self._call_inline(method, path, body, budget_ms)
        return self._call_on_worker(method, path, body, budget_ms)

    def _call_inline(self, method: str, path: str, body: bytes | None,
                     budget_ms: float) -> Exchange:
        call, watch = Call(), Stopwatch(budget_ms)
        timer = CLOCK.call_at(watch.due, call.abort)
        try:
            outcome = self._work(call, method, path, body, budget_ms / 1000)
        finally:
            call.finish()
            timer.cancel()
        if call.aborted and outcome.fault is not None:
            outcome = _timeout(call, budget_ms)
        ms, stall_ms = watch.stop()
        return outcome._replace(ms=ms, stall_ms=stall_ms)

    def _call_on_worker(self, method: str, path: str, body: bytes | None,
                        budget_ms: float) -> Exchange:
        call = Call()
        CLOCK.hold()  # the clock measures stalls while the call is timed
        try:
            watch = Stopwatch(budget_ms)
            try:
                future: Future[Exchange] = self._pool().submit(
                    self._work, call, method, path, body, budget_ms / 1000
                )
            except RuntimeError:  # the pool was shut down: the player is closed
                return _closed()
            while True:  # until the deadline in awake time: a stall of the referee moves it
                try:
                    outcome = future.result(timeout=max(0.0, watch.due - CLOCK.awake()))
                    break
                except FutureTimeout:
                    if CLOCK.awake() >= watch.due:
                        call.abort()
                        future.cancel()
                        outcome = _timeout(call, budget_ms)
                        break
                except CancelledError:  # closed meanwhile (a referee's failure raises as is)
                    return _closed()
            ms, stall_ms = watch.stop()
            return outcome._replace(ms=ms, stall_ms=stall_ms)
        finally:
            CLOCK.release()

    def close(self) -> None:
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        session, self._session = self._session, None
        if session is not None:
            session.close()

    def _pool(self) -> ThreadPoolExecutor:
        if self._closed:
            raise RuntimeError("closed")
        if self._executor is None:
            # More than one thread only matters when a worker is stuck connecting past a deadline.
            self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix=self._label)
        return self._executor

    def _work(self, call: Call, method: str, path: str, body: bytes | None,
              timeout_s: float) -> Exchange:
        if call.aborted:
            return _fault(FaultReason.TIMEOUT, "deadline passed before the call started")
        current.call = call
        try:
            with self._session_lock:
                if self._session is None:
                    self._session = new_session(self.guard)
                response = send(self._session, self._prepared(method, path, body),
                                (min(CONNECT_TIMEOUT_S, timeout_s), timeout_s + READ_SLACK_S))
                return self._read(call, response)
        except requests.exceptions.ConnectTimeout:
            if call.aborted:
                return _fault(FaultReason.TIMEOUT, "cut off at the deadline while connecting")
            limit = min(CONNECT_TIMEOUT_S, timeout_s)
            return _fault(FaultReason.CONNECTION_ERROR, f"could not connect within {limit:.1f} s")
        except requests.exceptions.ReadTimeout:
            return _fault(FaultReason.TIMEOUT, "read timed out")
        except requests.exceptions.SSLError as exc:
            if call.aborted:
                return _fault(FaultReason.TIMEOUT,
                              "cut off at the deadline during the TLS handshake")
            return _fault(FaultReason.CONNECTION_ERROR, _tls_failure(exc))
        except PEER_ERRORS as exc:  # what a hostile or broken peer provokes: the bot's fault
            if call.aborted:
                return _fault(FaultReason.TIMEOUT, "cut off at the deadline")
            return _fault(FaultReason.CONNECTION_ERROR, _describe(exc))
        except Exception:
            if call.aborted:  # a socket shut down under the HTTP stack may surface as anything
                return _fault(FaultReason.TIMEOUT, "cut off at the deadline")
            log.exception("%s %s%s: the referee failed, not the bot", method,
                          redact(self.base_url), path)
            raise
        finally:
            current.call = None

    def _prepared(self, method: str, path: str, body: bytes | None) -> PreparedRequest:
        """The request, prepared by the session once per method and path (its headers, the
        URL's credentials as Basic auth) and reused: preparing costs a third of an exchange.
        Called under the session lock, so that one call at a time uses it."""
        assert self._session is not None
        template = self._templates.get((method, path))
        if template is None:
            template = self._session.prepare_request(
                requests.Request(method, self.base_url + path))
            self._templates[(method, path)] = template
        return with_body(template, body)

    def _read(self, call: Call, response: requests.Response) -> Exchange:
        """Status, encoding and size checks, then the body counted in raw bytes."""
        raw = response.raw
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        if not 200 <= status < 300:
            location = response.headers.get("location")
            said = _error_text(response) if location is None else None
            response.close()
            detail = f"HTTP {status} {response.reason or ''}".strip()
            if location:
                detail += f", redirect to {location[:100]!r} (never followed)"
            if said:
                detail += f": {said}"
            return _fault(FaultReason.HTTP_STATUS, detail)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            response.close()
            return _fault(FaultReason.BAD_JSON,
                          f"compressed body refused (Content-Encoding: {encoding})")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            response.close()
            return _fault(FaultReason.TOO_LARGE,
                          f"Content-Length {declared} > cap of {self.max_body} bytes")
        data = bytearray()
        while True:
            chunk = raw.read1(self.max_body + 1 - len(data), decode_content=False)
            if not chunk:
                break
            data += chunk
            if len(data) > self.max_body:
                response.close()
                return _fault(FaultReason.TOO_LARGE, f"body over the cap of {self.max_body} bytes")
        if not call.finish():
            response.close()
            return _fault(FaultReason.TIMEOUT, "cut off at the deadline")
        raw.release_conn()
        return Exchange(bytes(data), None, 0.0, content_type)


ERROR_BODY_BYTES = 4096
"""How much of a non-2xx answer's body is read for the bot's own words about its error."""
ERROR_TEXT_CHARS = 200
"""How much of those words a fault keeps."""


def _error_text(response: requests.Response) -> str | None:
    """What a bot said about its own failure in a non-2xx answer: the ``error`` string of a
    JSON body (``{"error": "ZeroDivisionError: division by zero"}``, as the starter kit's bots
    answer when their code raises) or the first line of a plain-text body, at most
    :data:`ERROR_TEXT_CHARS` characters; ``None`` for anything else. Read within the call's
    deadline (the clock still watches the socket), at most :data:`ERROR_BODY_BYTES` bytes."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if kind not in ("application/json", "text/plain") or encoding not in ("", "identity"):
        return None
    data = bytearray()
    try:
        while len(data) < ERROR_BODY_BYTES:
            chunk = response.raw.read1(ERROR_BODY_BYTES - len(data), decode_content=False)
            if not chunk:
                break
            data += chunk
    except PEER_ERRORS:  # cut off at the deadline, or dropped: the status is the fault
        return None
    text = bytes(data).decode("utf-8", "replace")
    if kind == "application/json":
        try:
            said = orjson.loads(data).get("error")
        except (orjson.JSONDecodeError, AttributeError):
            return None
        text = said if isinstance(said, str) else ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:ERROR_TEXT_CHARS] or None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _closed() -> Exchange:
    return Exchange(None, Fault(FaultReason.CONNECTION_ERROR, "the player was closed"), 0.0)


def _timeout(call: Call, budget_ms: float) -> Exchange:
    detail = f"no complete answer within {budget_ms:.0f} ms"
    if call.in_tls:
        detail += f" (stuck in the TLS handshake: {PLAIN_HTTP_HINT})"
    return Exchange(None, Fault(FaultReason.TIMEOUT, detail), 0.0)


def _fault(reason: FaultReason, detail: str) -> Exchange:
    """A fault whose detail quotes the bot (its status line, an exception about its bytes):
    escaped and redacted here, before anything can print or store it."""
    return Exchange(None, Fault(reason, printable(redact(detail))), 0.0)


def _innermost(exc: BaseException) -> BaseException:
    inner: BaseException = exc
    while True:
        nxt = inner.__cause__ or inner.__context__ or (
            inner.args[0] if inner.args and isinstance(inner.args[0], BaseException) else None
        )
        if nxt is None or nxt is inner:
            return inner
        inner = nxt


def _describe(exc: BaseException) -> str:
    """The innermost cause, short: 'Connection refused' rather than three nested reprs."""
    inner = _innermost(exc)
    reason = getattr(inner, "reason", None)
    text = str(reason if isinstance(reason, BaseException) else inner) or type(inner).__name__
    if "refused" in text.lower():
        return "connection refused (is the bot running?)"
    return f"{type(inner).__name__}: {text}"[:200]


def _tls_failure(exc: BaseException) -> str:
    """A failed TLS handshake, with its likely cause. A bot serving plain HTTP answers the
    ClientHello with an HTTP error page, which OpenSSL reports only as 'wrong version number'
    or 'record layer failure': the bot author needs to hear "use http://" instead."""
    if isinstance(_innermost(exc), ssl.SSLCertVerificationError):
        return f"TLS certificate not accepted ({_describe(exc)})"
    return f"TLS handshake failed ({_describe(exc)}): {PLAIN_HTTP_HINT}"
