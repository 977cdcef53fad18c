"""HTTP bots: :class:`HttpPlayer` speaks protocol v1 to a bot's base URL under a hard deadline.

Why it is built this way (each point defends against a real bot failure):

* ``requests`` timeouts apply per socket read, not to the whole answer: a bot that drips one
  byte every 100 ms never trips them. So the deadline is enforced from outside the call: when
  it passes, the socket in use is shut down, which ends the blocked read at once. The deadline
  therefore covers connecting, sending, the status line, the headers and the body alike.
* Who shuts the socket down depends on the address. A host name needs a DNS lookup, which
  nothing can interrupt: such calls run on a worker thread and the caller waits on the future
  until the deadline, then shuts the socket down (so the worker is freed too). An IP address
  needs no lookup: the call runs in the caller's own thread and the process's clock thread
  (:mod:`referee.stall`) shuts the socket down at the deadline. Same guarantee, without two
  thread switches per decision (they cost about 0.1 ms, as much as the referee's own work).
* Deadlines are kept in the referee's awake time (:mod:`referee.stall`): time the referee's
  process could not run (frozen, swapped, starved of CPU) is not the bot's. A bot is charged
  its wall-clock time less that stall, and is never cut off because the referee woke late.
* Only what a peer can provoke is a bot's fault: socket, TLS, HTTP and encoding errors. Any
  other exception is a bug of the referee (a library upgrade breaking the hooks below would
  strike every bot at once): it is logged with its traceback and raised, never charged.
* The body is read with ``raw.read1(..., decode_content=False)``, counting raw bytes against the
  cap (64 KiB by default); compressed bodies are refused (a zip bomb is small on the wire).
* Redirects are never followed (a bot URL must not make the referee fetch elsewhere),
  ``trust_env`` is off (no proxies or netrc from the environment), ``/decide`` is never retried.
* One keep-alive ``requests.Session`` per player, used by one call at a time: one connection
  to the bot is reused for the whole match. Each request is prepared once per path and sent
  on the session's adapter (:func:`send`): no per-call re-preparing, and no cookie jar.
"""

from __future__ import annotations

import http.client
import ipaddress
import logging
import socket
import ssl
import threading
import time
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from collections.abc import Iterable
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from requests import PreparedRequest
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from referee import __version__, protocol
from referee.display import printable, redact
from referee.errors import RefereeError
from referee.faults import Fault, FaultReason, body_excerpt
from referee.players import Answer, DecisionRequest, MatchInfo, Player
from referee.stall import CLOCK

log = logging.getLogger("referee.transport")

MAX_BODY = 64 * 1024
PLAIN_HTTP_HINT = "is the bot serving plain http? then use an http:// URL"
CONNECT_TIMEOUT_S = 1.0
"""A bot that is not up is struck quickly, not waited for."""
LIFECYCLE_MS = 2000
"""Budget of ``/start``, ``/end`` and ``GET /`` calls."""
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
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    "Accept-Encoding": "identity",
    "User-Agent": f"referee/{__version__} (bot protocol {protocol.PROTOCOL_VERSION})",
}


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


# -- aborting a call from another thread ----------------------------------------------------


class _Call:
    """One HTTP exchange that another thread may abort by shutting down its socket."""

    __slots__ = ("lock", "aborted", "finished", "sock", "in_tls")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.aborted = False
        self.finished = False
        self.sock: socket.socket | None = None
        self.in_tls = False
        """Connected but the TLS handshake not done: a cut-off here is worth a hint."""

    def timeout_detail(self, budget_ms: float) -> str:
        detail = f"no complete answer within {budget_ms:.0f} ms"
        if self.in_tls:
            detail += f" (stuck in the TLS handshake: {PLAIN_HTTP_HINT})"
        return detail

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self.lock:
            self.sock = sock
            if self.aborted:
                _shutdown(sock)

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            if self.sock is not None and not self.finished:
                _shutdown(self.sock)

    def finish(self) -> bool:
        """Mark the exchange complete (before its connection goes back to the pool, so that a
        late abort cannot hit the next call's socket); ``False`` if it was aborted first."""
        with self.lock:
            self.finished = True
            return not self.aborted


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked recv; the owner closes the fd
    except OSError:
        pass


_current = threading.local()
"""The :class:`_Call` the current worker thread is making (read by the connection hooks)."""


class _Tracked:
    """Mixin for urllib3 connections: hand the socket to the current call as soon as it
    exists (before a TLS handshake) and whenever a kept-alive connection is reused."""

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        self._track(sock)
        return sock

    def request(self, *args: Any, **kwargs: Any) -> None:
        self._track(getattr(self, "sock", None))
        super().request(*args, **kwargs)  # type: ignore[misc]

    def _track(self, sock: socket.socket | None) -> None:
        call = getattr(_current, "call", None)
        if call is not None:
            call.attach(sock)


class _TrackedHTTPConnection(_Tracked, HTTPConnection):
    pass


class _TrackedHTTPSConnection(_Tracked, HTTPSConnection):
    """Also marks the call while its TLS handshake runs (between the TCP connection and the
    end of ``connect``): a plain-HTTP bot behind an https:// URL often just never answers it."""

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        call = getattr(_current, "call", None)
        if call is not None:
            call.in_tls = True
        return sock

    def connect(self) -> None:
        super().connect()
        call = getattr(_current, "call", None)
        if call is not None:
            call.in_tls = False


class _TrackedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


ConnectGuard = Callable[[Any, dict[str, Any], dict[str, Any]], None]
"""Called before each connection with the request, the pool's host parameters and its
keyword arguments; may rewrite them (connect to a checked address) or raise to refuse. The
service's URL policy (``referee.netpolicy``) is one; the CLI uses none."""


class _Adapter(HTTPAdapter):
    """One keep-alive connection, no retries, connections the caller can abort."""

    def __init__(self, guard: ConnectGuard | None = None) -> None:
        self.guard = guard
        self._pools: dict[tuple[Any, ...], Any] = {}
        self._paths: dict[str, str] = {}
        super().__init__(pool_connections=1, pool_maxsize=1, max_retries=0)

    # Without a guard and a proxy (never: trust_env is off), the connection pool and the path
    # of a URL are the same at every call: worked out once per URL (a bot has four), not per
    # decision. A guard is asked at every connection, as it must be.

    def get_connection_with_tls_context(  # type: ignore[override]
        self, request: Any, verify: Any, proxies: Any = None, cert: Any = None,
    ) -> Any:
        if self.guard is not None or proxies:
            return super().get_connection_with_tls_context(request, verify, proxies, cert)
        key = (request.url, verify, cert)
        pool = self._pools.get(key)
        if pool is None or pool.pool is None:  # a closed pool has no queue left
            pool = super().get_connection_with_tls_context(request, verify, proxies, cert)
            self._pools[key] = pool
        return pool

    def request_url(self, request: Any, proxies: Any) -> str:
        if proxies:
            return super().request_url(request, proxies)
        path = self._paths.get(request.url)
        if path is None:
            path = self._paths[request.url] = super().request_url(request, proxies)
        return path

    def build_connection_pool_key_attributes(  # type: ignore[override]
        self, request: Any, verify: Any, cert: Any = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params: Any
        pool_kwargs: Any
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert)
        if self.guard is not None:
            self.guard(request, host_params, pool_kwargs)
        return host_params, pool_kwargs

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _TrackedHTTPPool, "https": _TrackedHTTPSPool,
        }


def new_session(guard: ConnectGuard | None = None) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.headers.update(HEADERS)
    adapter = _Adapter(guard)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def with_body(prepared: PreparedRequest, body: bytes | None) -> PreparedRequest:
    """``prepared``, now carrying ``body``. The same request object is reused call after call
    (its owner sends one at a time): copying one costs more than a third of preparing it."""
    if body is not None:
        prepared.body = body
        prepared.headers["Content-Length"] = str(len(body))
    return prepared


def send(session: requests.Session, prepared: PreparedRequest,
         timeout: tuple[float, float]) -> requests.Response:
    """Send a prepared request on the session's adapter, the body left to stream.

    ``Session.request`` would prepare the request again (merging settings, cookies and hooks:
    a third of the CPU of a keep-alive exchange) and ``Session.send`` would keep the bot's
    cookies to send them back; a bot gets neither. The adapter's own work is all there: the
    kept-alive connection, the connection guard, timeouts, no redirect followed.
    """
    adapter = session.get_adapter(prepared.url or "")
    verify = True if session.verify is None else session.verify
    return adapter.send(prepared, stream=True, timeout=timeout, verify=verify,
                        cert=session.cert, proxies={})


# -- one exchange ---------------------------------------------------------------------------


class Exchange(NamedTuple):
    """What one call gave: the body, or the fault; ``ms`` is the round trip charged to the bot
    (its wall-clock time less ``stall_ms``, the time the referee's process was stalled)."""

    body: bytes | None
    fault: Fault | None
    ms: float
    content_type: str = ""
    stall_ms: float = 0.0


class _Stopwatch:
    """A call's time on the wall clock and the referee's stall within it."""

    __slots__ = ("began", "stalled", "due")

    def __init__(self, budget_ms: float) -> None:
        self.began, self.stalled = time.perf_counter(), CLOCK.stalled()
        self.due = CLOCK.awake() + budget_ms / 1000
        """When the call is cut off, in awake time."""

    def stop(self, outcome: Exchange) -> Exchange:
        stall = CLOCK.stalled() - self.stalled
        wall = time.perf_counter() - self.began
        return outcome._replace(ms=max(0.0, wall - stall) * 1000, stall_ms=stall * 1000)


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
        call, watch = _Call(), _Stopwatch(budget_ms)
        timer = CLOCK.call_at(watch.due, call.abort)
        try:
            outcome = self._work(call, method, path, body, budget_ms / 1000)
        finally:
            call.finish()
            timer.cancel()
        if call.aborted and outcome.fault is not None:
            outcome = _timeout(call, budget_ms)
        return watch.stop(outcome)

    def _call_on_worker(self, method: str, path: str, body: bytes | None,
                        budget_ms: float) -> Exchange:
        call = _Call()
        CLOCK.hold()  # the clock measures stalls while the call is timed
        try:
            watch = _Stopwatch(budget_ms)
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
            return watch.stop(outcome)
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

    def _work(self, call: _Call, method: str, path: str, body: bytes | None,
              timeout_s: float) -> Exchange:
        if call.aborted:
            return _fault(FaultReason.TIMEOUT, "deadline passed before the call started")
        _current.call = call
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
            _current.call = None

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

    def _read(self, call: _Call, response: requests.Response) -> Exchange:
        """Status, encoding and size checks, then the body counted in raw bytes."""
        raw = response.raw
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        if not 200 <= status < 300:
            location = response.headers.get("location")
            response.close()
            detail = f"HTTP {status} {response.reason or ''}".strip()
            if location:
                detail += f", redirect to {location[:100]!r} (never followed)"
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


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _closed() -> Exchange:
    return Exchange(None, Fault(FaultReason.CONNECTION_ERROR, "the player was closed"), 0.0)


def _timeout(call: _Call, budget_ms: float) -> Exchange:
    return Exchange(None, Fault(FaultReason.TIMEOUT, call.timeout_detail(budget_ms)), 0.0)


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


# -- the player -------------------------------------------------------------------------------


@dataclass
class HttpPlayer(Player):
    """A seat played by a bot behind ``url`` (protocol v1). Never raises for the bot's faults."""

    url: str = field(default="", repr=False)
    """The real address, credentials included: used to connect, never shown (the name is)."""
    max_body: int = MAX_BODY
    lifecycle_ms: int = LIFECYCLE_MS
    guard: ConnectGuard | None = None
    remote: bool = field(default=True, init=False)
    notes: list[str] = field(default_factory=list, init=False)
    """Protocol deviations that are not strikes (for ``referee bot check``)."""

    def __post_init__(self) -> None:
        self._transport = Transport(self.url, self.max_body, label=f"bot:{self.name}"[:40],
                                    guard=self.guard)
        self._game, self._seat = "", 0

    def start(self, info: MatchInfo) -> Fault | None:
        self._game, self._seat = info.game, info.seat
        body = protocol.encode(protocol.start_message(info))
        return self._lifecycle("/start", body)

    def decide(self, request: DecisionRequest) -> Answer:
        body = protocol.decide_body(request)
        ex = self._transport.call("POST", "/decide", body, request.deadline_ms)
        if ex.fault is not None:
            return Answer(None, ex.ms, fault=ex.fault, stall_ms=ex.stall_ms)
        assert ex.body is not None
        try:
            parsed = protocol.parse_answer(ex.body, request.decision.option_ids())
        except Exception as exc:  # checking a seat's answer: its fault, never the match's
            log.exception("reading an answer of %s", self.name)
            fault = Fault(FaultReason.BAD_JSON, f"an answer the referee cannot read "
                          f"({type(exc).__name__})", body_excerpt(ex.body))
            return Answer(None, ex.ms, fault=fault, stall_ms=ex.stall_ms)
        for note in parsed.notes:
            self._note(f"/decide {request.decision.kind}: {note}")
        if ex.content_type and "json" not in ex.content_type.lower():
            self._note(f"/decide answer has Content-Type {ex.content_type!r}, expected JSON")
        return Answer(parsed.choice, ex.ms, parsed.log, parsed.fault, ex.stall_ms)

    def end(self, match_id: str, result: Any) -> Fault | None:
        body = protocol.encode(protocol.end_message(match_id, self._game, self._seat, result))
        return self._lifecycle("/end", body)

    def close(self) -> None:
        self._transport.close()

    def _lifecycle(self, path: str, body: bytes) -> Fault | None:
        return self._transport.call("POST", path, body, self.lifecycle_ms).fault

    def _note(self, text: str) -> None:
        text = printable(text)
        if len(self.notes) < 50 and text not in self.notes:
            self.notes.append(text)


def fetch_infos(urls: Iterable[str], budget_ms: float = LIFECYCLE_MS
                ) -> dict[str, tuple[Any, Fault | None]]:
    """:func:`fetch_info` of every distinct URL, all at once: bots that are down cost one
    connect timeout together, not one each."""
    distinct = list(dict.fromkeys(urls))
    if not distinct:
        return {}
    with ThreadPoolExecutor(min(16, len(distinct)), thread_name_prefix="bot-info") as pool:
        return dict(zip(distinct, pool.map(lambda url: fetch_info(url, budget_ms), distinct)))


def fetch_info(url: str, budget_ms: float = LIFECYCLE_MS,
               guard: ConnectGuard | None = None) -> tuple[Any, Fault | None]:
    """``GET /`` of a bot: ``(document, None)`` or ``(None, fault)``."""
    transport = Transport(url, label="bot-info", guard=guard)
    try:
        ex = transport.call("GET", "/", None, budget_ms)
    finally:
        transport.close()
    if ex.fault is not None:
        return None, ex.fault
    assert ex.body is not None
    try:
        return protocol.decode_json(ex.body), None
    except ValueError as exc:
        return None, Fault(FaultReason.BAD_JSON, f"GET / is not JSON ({exc})",
                           body_excerpt(ex.body))
