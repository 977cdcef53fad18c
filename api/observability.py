"""What an operator sees of the web service: a request id on every request and answer, one
log line per request, the HTTP metrics, the rate-limit refusals, and ``/metrics``.

``X-Request-Id``: a client's (or a proxy's) id is kept when it is a short token of safe
characters, else a new one is made; the answer echoes it and every line logged while serving
the request carries it (:class:`api.logs.RequestIds`).

``/metrics`` (Prometheus's text format, :func:`ladder.metrics.exposition`) is open to
loopback, to the ranges of ``REFEREE_METRICS_NETWORKS``, and to anyone presenting
``Authorization: Bearer <REFEREE_METRICS_TOKEN>``; anyone else gets a 403 (plain text).  A loopback peer
that forwards a request (``X-Forwarded-For`` or ``Forwarded`` with no trusted proxy
configured) is a proxy on this host, not a local reader: it needs the token or a network.
With trusted proxies, loopback means the socket's peer and the forwarded client both: a
client reaching the app past its proxies cannot name itself ``127.0.0.1``.
A worker's metrics port (:func:`serve_worker_metrics`) applies the same rule.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.datastructures import Headers

from api.config import ServiceConfig
from api.context import service
from ladder import metrics

access = logging.getLogger("referee.access")
REQUEST_ID = "X-Request-Id"
_GOOD_ID = re.compile(r"[A-Za-z0-9._:@+=/-]{1,128}")
"""A request id kept as given: short, and nothing a log line or a header could be bent by."""
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
ROUTE_IDS = {"bot_id": "bot", "match_id": "match", "challenge_id": "challenge",
             "check_id": "check", "round_id": "round", "token_id": "token", "game": "game"}
"""A route's arguments that are ids an operator greps for, and their names in the log."""
UNMATCHED = "unmatched"
"""The route label of a request no route took (a 404's path would be a label per path)."""
REFUSAL = ("metrics are open to loopback, to REFEREE_METRICS_NETWORKS, or with "
           "Authorization: Bearer <REFEREE_METRICS_TOKEN>")


def register(app: Flask) -> None:
    """The hooks (registered first, so the request id exists before any guard refuses) and
    the ``/metrics`` route."""
    app.before_request(begin)
    app.after_request(finish)
    app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])


def begin() -> None:
    given = request.headers.get(REQUEST_ID, "")
    g.request_id = given if _GOOD_ID.fullmatch(given) else uuid.uuid4().hex
    g.request_began = time.perf_counter()


def route() -> str:
    rule = request.url_rule
    return rule.rule if rule is not None else UNMATCHED


def finish(response: Response) -> Response:
    """Echo the request id, count the request, log its line."""
    if "request_id" not in g:  # a hook before ours answered
        begin()
    response.headers[REQUEST_ID] = g.request_id
    seconds = time.perf_counter() - g.request_began
    method = request.method if request.method in METHODS else "other"
    label = route()
    metrics.HTTP_REQUESTS.labels(label, method, str(response.status_code)).inc()
    metrics.HTTP_SECONDS.labels(label).observe(seconds)
    if access.isEnabledFor(logging.INFO):  # the line's fields cost more than the counting
        access.info("%s %s %s", request.method, request.path, response.status_code,
                    extra=request_fields(label, response.status_code, seconds))
    return response


def request_fields(label: str, status: int, seconds: float) -> dict[str, Any]:
    """A request's log line: what was asked, the answer, and the ids in it (the route's,
    the owner of a token)."""
    args = request.view_args or {}
    out: dict[str, Any] = {"event": "request", "method": request.method, "path": request.path,
                           "route": label, "status": status, "ms": round(seconds * 1000, 3),
                           "remote": request.remote_addr}
    out.update((name, args[arg]) for arg, name in ROUTE_IDS.items() if arg in args)
    principal = g.get("principal")
    if principal is not None:
        out["owner"] = principal.owner_id
    return out


def rate_limited(limit: Any) -> None:
    """Flask-Limiter's ``on_breach``: count the refusal (the 429 itself is its own)."""
    metrics.RATE_LIMITED.labels(route()).inc()


# -- /metrics -----------------------------------------------------------------------------------

def may_read(config: ServiceConfig, remote: str | None, headers: Mapping[str, str] | Headers,
             peer: str | None = None) -> bool:
    """The access rule of the metrics: loopback (not forwarded), an allowed network, or the
    metrics token.  ``remote`` is the client as the trusted proxies name it, ``peer`` the
    socket's other end: loopback must be both, or a client that reaches the app directly
    past its proxies would name itself ``127.0.0.1`` in ``X-Forwarded-For``."""
    token = config.metrics_token
    scheme, _, given = headers.get("Authorization", "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode()):
        return True
    addr = _address(remote)
    if addr is None:
        return False
    forwarded = not config.trusted_proxies and any(
        headers.get(h) for h in ("X-Forwarded-For", "Forwarded"))
    socket_end = _address(peer) if peer else addr
    if addr.is_loopback and not forwarded and socket_end is not None and socket_end.is_loopback:
        return True
    return any(addr in net for net in config.metrics_nets())


def _address(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as its network sees it (an IPv4-mapped IPv6 one is its IPv4), or None."""
    try:
        addr = ipaddress.ip_address(text or "")
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def metrics_view() -> Response:
    svc = service()
    # the address before ProxyFix rewrote it (werkzeug keeps it there)
    peer = request.environ.get("werkzeug.proxy_fix.orig", {}).get("REMOTE_ADDR")
    if not may_read(svc.config, request.remote_addr, request.headers, peer):
        # plain text, as the metrics are (and as a scraper shows a target's error)
        return Response(REFUSAL + "\n", status=403, mimetype="text/plain")
    return Response(metrics.exposition(svc.engine), mimetype=CONTENT_TYPE)


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus's text format."""


# -- a worker's metrics port -----------------------------------------------------------------

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def worker_metrics_app(config: ServiceConfig) -> WsgiApp:
    """A WSGI app answering the metrics of this process and its children (the multiprocess
    directory), under the same rule as ``/metrics``."""
    def app(environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        headers = {key[5:].replace("_", "-").title(): value for key, value in environ.items()
                   if key.startswith("HTTP_")}
        if environ.get("PATH_INFO", "/") not in ("/", "/metrics"):
            start("404 Not Found", [("Content-Type", "text/plain")])
            return [b"the metrics are at /metrics\n"]
        if not may_read(config, environ.get("REMOTE_ADDR"), headers):
            start("403 Forbidden", [("Content-Type", "text/plain")])
            return [REFUSAL.encode() + b"\n"]
        start("200 OK", [("Content-Type", CONTENT_TYPE)])
        return [metrics.exposition()]
    return app


def serve_worker_metrics(config: ServiceConfig, host: str, port: int) -> Any:
    """Serve :func:`worker_metrics_app` on ``host:port`` from a daemon thread; the server
    (its ``server_port`` is the port bound, for ``port`` 0).  OSError when it cannot listen."""
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client.exposition import ThreadingWSGIServer

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Scrapes are not worth a line each."""

    server = make_server(host, port, worker_metrics_app(config), ThreadingWSGIServer,
                         handler_class=Quiet)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
