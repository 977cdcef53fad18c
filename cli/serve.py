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
    click.echo(f"referee service on http://{host}:{port}/ (API docs at /api/docs; {mode}); "
               "Ctrl-C to stop", err=True)
    if app is None:
        run_gunicorn(config, host, port, workers or 2, threads)
    else:
        run_waitress(app, host, port, threads)


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


def run_waitress(app: Any, host: str, port: int, threads: int) -> None:
    from waitress import serve as waitress_serve

    try:
        # every connection a client keeps alive holds a slot: allow plenty. waitress reads a
        # whole body before the app sees it: past BODY_READ_LIMIT it refuses it itself (413,
        # in its own words); below, the app answers its JSON 413 past its own limit
        waitress_serve(app, host=host, port=port, threads=threads, connection_limit=1000,
                       channel_timeout=60, ident="referee",
                       max_request_body_size=BODY_READ_LIMIT)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass


def run_gunicorn(config: Any, host: str, port: int, workers: int, threads: int) -> None:
    """gunicorn with an app built in each worker process (engines never cross a fork), on
    the database this process prepared."""
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
                               "limit_request_fields": HEADER_FIELDS}.items():
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
