"""``referee serve``: the REST service.

Embedded (no ``--broker``): one process; waitress serves requests, threads play matches, an
SQLite file (or ``--db``) stores everything, rate limits are counted in memory.  Production
(``--broker redis://…``): gunicorn serves requests in several processes (waitress where
gunicorn cannot run), matches go to Celery workers (``referee worker``), periodic jobs to
``referee beat``.

Logging: one set-up (:mod:`cli.observe`; ``REFEREE_LOG_FORMAT=json`` for JSON lines,
``REFEREE_LOG_LEVEL``), inherited by gunicorn's workers.  Metrics: ``/metrics``; under gunicorn
every worker process counts into the multiprocess directory this command prepares.

gunicorn refuses a request line over :data:`REQUEST_LINE_BYTES` and a header over
:data:`HEADER_FIELD_BYTES` itself, before the app sees it; its refusals are the API's JSON
error shape, as every other answer is (gunicorn writes an HTML page by default).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

import click

from cli.ladder_db import db_option

REQUEST_LINE_BYTES = 8190
"""gunicorn's longest request line: the most it allows (its default is 4094), as much as
nginx's default buffers pass; every URL of the API is far shorter."""
HEADER_FIELD_BYTES = 8190
"""gunicorn's longest header (its default); a token or session cookie is a few hundred."""
HEADER_FIELDS = 100
"""gunicorn's most headers in a request (its default)."""


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for every interface).")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True)
@db_option()
@click.option("--broker", "broker_url", default=None, metavar="URL",
              help="Celery broker (redis://…; default: REFEREE_BROKER; none: play matches "
                   "in this process).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Embedded: match threads (default 2). With a broker: gunicorn processes "
                   "(default 2).")
@click.option("--threads", type=click.IntRange(1, 256), default=16, show_default=True,
              help="Request threads per server process.")
def serve(host: str, port: int, db_url: str | None, broker_url: str | None,
          workers: int | None, threads: int) -> None:
    """Run the referee service (pages at /, REST API at /api/v1, docs at /api/docs)."""
    from cli.observe import set_up

    set_up(os.environ.get("REFEREE_LOG_LEVEL", "info"),  # first: the app's modules make metrics
           forks=bool(broker_url or os.environ.get("REFEREE_BROKER")) and gunicorn_available())
    from api.config import ServiceConfig
    from ladder import LadderError

    try:
        config = ServiceConfig.from_env(db_url=db_url, broker_url=broker_url)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    check_port(host, port)  # before the database is prepared: a busy port is the usual failure
    from dataclasses import replace

    if workers is not None and not config.broker_url:
        config = replace(config, workers=workers)
    if config.secret_key is None:  # one key for every server process started here
        import secrets
        config = replace(config, secret_key=secrets.token_hex(32))
    try:
        config.policy()
        app = None if config.broker_url and gunicorn_available() else build(config)
    except (LadderError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    mode = f"Celery broker {describe(config.broker_url)}" if config.broker_url else \
        f"embedded, {config.workers} match threads"
    banner = (f"referee service on http://{host}:{{port}}/ (API docs at /api/docs; {mode}); "
              "Ctrl-C to stop")
    if app is None:
        run_gunicorn(config, host, port, workers or 2, threads, banner)
    else:
        run_waitress(app, host, port, threads, banner)


PORTS_TRIED = 50
"""Ports above a busy one tried for a free one to suggest, before any free port."""


def check_port(host: str, port: int) -> None:
    """Fail in one line, suggesting a free port, when ``host:port`` cannot be listened on.

    The port is bound and released at once, as the server will bind it (``SO_REUSEADDR``: a
    port left in TIME_WAIT by a stopped server is free to both). The usual clash: a bot of
    the starter kit, which listens on 8000 by default, as this command does.
    """
    try:
        bind_and_release(host, port)
    except OSError as exc:
        reason = "the port is in use (another server, or a bot?)" if exc.errno in BUSY else (exc.strerror or str(exc))
        hint = f"; try --port {free_port(host, port)}" if exc.errno in BUSY else ""
        raise click.ClickException(f"cannot listen on {host}:{port}: {reason}{hint}") from None


BUSY = {98, 48, 10048}
"""``EADDRINUSE`` on Linux, macOS and Windows."""


def bind_and_release(host: str, port: int) -> int:
    """Bind ``host:port`` (port 0: any) and release it; the port bound. Raises ``OSError``
    (``socket.gaierror`` for a host that does not resolve)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        bound: int = sock.getsockname()[1]
        return bound


def free_port(host: str, busy: int) -> int:
    """A port free on ``host`` now: the first above ``busy`` (easy to remember), else any."""
    for port in range(busy + 1, min(busy + PORTS_TRIED, 65535) + 1):
        try:
            return bind_and_release(host, port)
        except OSError:
            continue
    return bind_and_release(host, 0)


def build(config: Any) -> Any:
    """The app this process serves: the database prepared, the embedded pool started."""
    from api.startup import serving_app

    return serving_app(config)


def describe(url: str | None) -> str:
    from ladder.db import describe as hide_password

    return hide_password(url) if url else "-"


def gunicorn_available() -> bool:
    try:
        import fcntl  # noqa: F401 - gunicorn needs it (not on Windows)

        import gunicorn  # noqa: F401
    except ImportError:
        return False
    return True


BODY_READ_LIMIT = 1024 * 1024
"""The most of a request body the embedded server reads (the API takes 64 KiB)."""


def run_waitress(app: Any, host: str, port: int, threads: int, banner: str) -> None:
    """Serve ``app``; ``banner`` (its ``{port}`` filled) is printed once the port is bound."""
    import logging

    from waitress import create_server

    logging.basicConfig()  # waitress's own warnings (a full queue), as waitress.serve shows them
    try:
        # every connection a client keeps alive holds a slot: allow plenty. waitress reads a
        # whole body before the app sees it: past BODY_READ_LIMIT it refuses it itself (413,
        # in its own words); below, the app answers its JSON 413 past its own limit
        server = create_server(app, host=host, port=port, threads=threads,
                               connection_limit=1000, channel_timeout=60, ident="referee",
                               max_request_body_size=BODY_READ_LIMIT)
    except OSError as exc:  # taken since check_port looked
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    click.echo(banner.format(port=getattr(server, "effective_port", port)), err=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass


def run_gunicorn(config: Any, host: str, port: int, workers: int, threads: int,
                 banner: str) -> None:
    """gunicorn with an app built in each worker process (engines never cross a fork), on
    the database this process prepared; ``banner`` printed once gunicorn listens."""
    from gunicorn.app.base import BaseApplication

    from cli.observe import gunicorn_logger

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in {"bind": f"{host}:{port}", "workers": workers,
                               "threads": threads, "worker_class": json_error_worker(),
                               "timeout": 60, "accesslog": None, "preload_app": False,
                               "proc_name": "referee", "logger_class": gunicorn_logger(),
                               "limit_request_line": REQUEST_LINE_BYTES,
                               "limit_request_field_size": HEADER_FIELD_BYTES,
                               "limit_request_fields": HEADER_FIELDS,
                               "when_ready": lambda arbiter: click.echo(
                                   banner.format(port=port), err=True)}.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            from api import create_app
            from api.startup import start

            return start(create_app(config))

    try:
        from api.startup import prepare_database

        # once, before the workers start; failing here, in one line, not in every worker
        prepare_database(config).dispose()
    except Exception as exc:
        raise click.ClickException(str(exc)) from exc
    Server().run()
    sys.exit(0)


def json_error_worker() -> type:
    """gunicorn's threaded worker, answering its own refusals (414, 431, a malformed request)
    in the API's JSON error shape.  gunicorn has no setting for that body: its worker calls
    ``gunicorn.util.write_error``, replaced in each worker process as it starts."""
    from gunicorn import util
    from gunicorn.workers.gthread import ThreadWorker

    class JsonErrorWorker(ThreadWorker):  # type: ignore[misc]
        def init_process(self) -> None:
            util.write_error = write_json_error
            super().init_process()

    return JsonErrorWorker


def write_json_error(sock: Any, status: int, reason: str, message: str) -> None:
    """``gunicorn.util.write_error``'s signature: the answer, then the connection closes."""
    from gunicorn import util

    body = json.dumps({"code": status, "status": reason, "message": message}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)
