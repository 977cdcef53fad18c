"""The viewer's tests: a loopback web server (the browser comes from ``support.browser``)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback web server over a temporary folder: ``(base URL, folder)``."""
    handler = functools.partial(_Quiet, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", tmp_path
    finally:
        server.shutdown()
        server.server_close()
