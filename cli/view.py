"""``referee view LOG``: watch a match in a browser, from one self-contained HTML file.

The file holds the viewer and every frame, so it opens offline and can be mailed around. The log
is the reader's own, so the page shows what each bot said (its ``log`` text, the ``stderr`` lines
of a bot the referee started) beside the frame; ``--public`` leaves those out of the page.
``--serve`` serves it on loopback instead (a free port unless ``--port``), where the page for a
browser without JavaScript follows the ``?ply=N`` links too; Ctrl-C stops the server.
"""

from __future__ import annotations

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import click

from api.viewer import render_page
from referee.frames import build_frames
from referee.matchlog import LogError, read_log


@click.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "-o", "out_path", type=click.Path(dir_okay=False),
              help="Where to write the HTML file (default: beside the log, ending .html).")
@click.option("--ply", type=click.IntRange(min=0), default=0, show_default=True,
              help="The frame the page opens at.")
@click.option("--serve", is_flag=True, help="Serve the page on 127.0.0.1 instead of writing it.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="The port for --serve (default: a free one).")
@click.option("--public", is_flag=True,
              help="Leave out what the bots said (log text, stderr): a page to share.")
def view(log_file: str, out_path: str | None, ply: int, serve: bool, port: int,
         public: bool) -> None:
    """Draw the match in LOG_FILE: write an HTML viewer and print its path, or --serve it."""
    doc = load_frames(log_file, notes=not public)
    if serve:
        serve_frames(doc, port, ply)
        return
    path = out_path or os.path.splitext(log_file)[0] + ".html"
    if os.path.abspath(path) == os.path.abspath(log_file):  # a log named *.html: keep it
        path = log_file + ".html"
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(render_page(doc, ply))
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from exc
    click.echo(os.path.abspath(path))


def load_frames(log_file: str, notes: bool = True) -> dict[str, Any]:
    """The frames of the log in ``log_file`` (with the bots' own words unless not ``notes``);
    any unreadable or inconsistent log is one line."""
    log = read_log(log_file)
    try:
        return build_frames(log, notes=notes)
    except LogError as exc:
        raise LogError(f"{log_file}: {exc}") from exc


def serve_frames(doc: dict[str, Any], port: int, ply: int) -> None:
    """Serve the viewer at ``/`` (``?ply=N`` picks the frame) and the frames at
    ``/frames.json`` on 127.0.0.1 until Ctrl-C."""
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler(doc, ply))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from exc
    click.echo(f"http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        server.server_close()


def _handler(doc: dict[str, Any], default_ply: int) -> type[BaseHTTPRequestHandler]:
    frames = json.dumps(doc, separators=(",", ":")).encode("utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            url = urlsplit(self.path)
            if url.path == "/":
                ply = parse_qs(url.query).get("ply", [default_ply])[0]
                self._send(200, "text/html; charset=utf-8", render_page(doc, ply).encode("utf-8"))
            elif url.path == "/frames.json":
                self._send(200, "application/json", frames)
            else:
                self._send(404, "text/plain; charset=utf-8", b"not found: try /\n")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Quiet: the terminal shows the URL, not every request."""

    return Handler
