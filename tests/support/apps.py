"""Service apps for the tests, on a database made ready as a server makes it.

``api.create_app`` only builds an app; a server first prepares its database (at the current
schema, the house bots written: ids 1-3, which many tests name) with
:func:`api.startup.prepare_database`.  The tests that want a ready service take that step
here, and only here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from flask import Flask

from api import create_app
from api.config import ServiceConfig
from api.startup import prepare_database


def prepared_app(config: ServiceConfig, **parts: Any) -> Flask:
    """``create_app(config, **parts)`` on ``config``'s database, prepared (its dispatcher is
    not started: give one, e.g. a ``NoDispatcher``, or call ``api.startup.start``)."""
    return create_app(config, engine=prepare_database(config), **parts)


class NoDispatcher:
    """Scheduling only (tests that drive the runners themselves): what was sent is kept,
    matches in ``sent``, checks in ``checks``."""

    def __init__(self) -> None:
        self.sent: list[int] = []
        self.checks: list[int] = []

    def start(self) -> None:
        pass

    def enqueue(self, ids: Sequence[int]) -> None:
        self.sent.extend(ids)

    def enqueue_checks(self, ids: Sequence[int]) -> None:
        self.checks.extend(ids)

    def close(self) -> None:
        pass


@contextmanager
def served_app(app: Flask) -> Iterator[str]:
    """``app`` on a loopback HTTP server (a thread per request), for a browser: its base URL.
    Shut down and closed on leaving."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
