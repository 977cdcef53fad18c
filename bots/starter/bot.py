#!/usr/bin/env python3
"""A complete Referee bot in one file, standard library only. Copy it, edit ``choose``.

Run it:      python3 bot.py --port 8000   [--connections 1024]
Check it:    referee bot check http://127.0.0.1:8000 --game tokaido-duo

The referee sends JSON and expects JSON back (bot protocol v1):

  GET  /         -> who you are: {"name", "games", "protocol": 1}
  POST /start    -> a match begins (your seat, the players, the time control); answer anything 2xx
  POST /decide   -> one decision: answer {"choice": "<one of the option ids>"} within deadline_ms
  POST /end      -> the result; answer anything 2xx

A late, malformed or unknown answer is a strike; three strikes and your bot forfeits the match.
If ``choose`` raises, the bot answers 500 with the exception's last line, ``{"error": "..."}``
(its traceback goes to stderr): the referee shows that line in the strike it records.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME = "starter-python"
GAMES = ["tokaido-duo", "doubletrack"]
CONNECTIONS = 1024
"""Connections taken at once (a thread each): the referee keeps one open per seat per match,
so a tournament with many matches at once needs many. Said in GET / as max_connections."""


def choose(decision: dict, view: dict, request: dict) -> str | tuple[str, str]:
    """THE function to edit: return the id of one of ``decision["options"]``.

    decision: {"kind": "bid", "prompt": "...", "options": [{"id", "label", "data"}, ...]}
      ``kind`` says what is asked; every option is legal, ``data`` describes it.
    view:     everything your seat may see (game-specific, see docs/games/), including
      ``events``: what happened since your last decision.
    request:  the whole message: ``deadline_ms`` (answer well before it), ``bank_ms``, ``seat``...

    Return the id, or ``(id, "a note")``: the note is stored in the match log for you.
    """
    options = decision["options"]
    pick = random.choice(options)
    return pick["id"], f"picked {pick['label']} at random among {len(options)}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the referee reuses one connection per match
    disable_nagle_algorithm = True
    """TCP_NODELAY: the headers and the body go out as two writes, and with Nagle's algorithm
    the second waits for the referee's delayed ACK, about 40 ms on every decision."""

    def do_GET(self) -> None:
        if self.path != "/":
            self.reply({"error": f"no route {self.path}"}, status=404)
            return
        self.reply({"name": NAME, "author": "you", "version": "1", "games": GAMES, "protocol": 1,
                    "max_connections": getattr(self.server, "max_connections", CONNECTIONS)})

    def do_POST(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
            message = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.reply({"error": "expected a JSON body"}, status=400)
            return
        if self.path == "/decide":
            try:
                answer = choose(message["decision"], message["view"], message)
            except Exception as exc:  # your bug: the referee shows this line in the fault
                traceback.print_exc()
                last = traceback.format_exception_only(exc)[-1].strip()
                self.reply({"error": last}, status=500)
                return
            if isinstance(answer, tuple):
                self.reply({"choice": answer[0], "log": answer[1]})
            else:
                self.reply({"choice": answer})
        elif self.path in ("/start", "/end"):
            self.reply({"ok": True})
        else:
            self.reply({"error": f"no route {self.path}"}, status=404)

    def reply(self, doc: dict, status: int = 200) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: one line per request would drown your own prints


class Server(ThreadingHTTPServer):
    """A thread per connection; the listen queue sized for ``max_connections`` connecting at
    once (Python's default queue, 5, drops connections when many matches start together)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], max_connections: int = CONNECTIONS) -> None:
        self.max_connections = max_connections
        self.request_queue_size = max_connections
        super().__init__(address, Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--connections", type=int, default=CONNECTIONS,
                        help="connections taken at once (one per seat of each match)")
    args = parser.parse_args()
    try:
        server = Server((args.host, args.port), args.connections)
    except OSError as exc:  # most often: the port is taken (by another bot, or `referee serve`)
        sys.exit(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
                 "try another --port (0 picks a free one)")
    print(f"{NAME} listening on http://{args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
