"""The ``requests`` adapter a bot is called through: its connections can be cut off, and it
does nothing a bot could turn against the referee.

* Redirects are never followed (a bot URL must not make the referee fetch elsewhere): a
  request goes out on the adapter (:func:`send`), which never follows one. ``trust_env`` is off
  (no proxies or netrc from the environment), and nothing is retried (``/decide`` never is).
* Its connection pools make tracked connections (:mod:`referee.transport.deadline`), so a call
  at its deadline shuts its own socket down; a :data:`ConnectGuard` is asked before every
  connection (the service's address policy).
* One keep-alive session per player, used by one call at a time: one connection to the bot is
  reused for the whole match. Each request is prepared once per path and sent on the session's
  adapter (:func:`send`): no per-call re-preparing, and no cookie jar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import requests
from requests import PreparedRequest
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from referee import __version__, protocol
from referee.transport.deadline import TrackedHTTPConnection, TrackedHTTPSConnection

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    "Accept-Encoding": "identity",
    "User-Agent": f"referee/{__version__} (bot protocol {protocol.PROTOCOL_VERSION})",
}

ConnectGuard = Callable[[Any, dict[str, Any], dict[str, Any]], None]
"""Called before each connection with the request, the pool's host parameters and its
keyword arguments; may rewrite them (connect to a checked address) or raise to refuse. The
service's URL policy (``referee.netpolicy``) is one; the CLI uses none."""


class _TrackedHTTPPool(HTTPConnectionPool):
    ConnectionCls = TrackedHTTPConnection


class _TrackedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = TrackedHTTPSConnection


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
