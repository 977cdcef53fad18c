"""Loopback HTTP bots for the transport tests, well-behaved and hostile, on raw sockets.

Raw sockets (not a WSGI server) because the hostile behaviours live below HTTP frameworks:
dripping the status line byte by byte, dropping the connection mid-request, streaming 20 MB.
Every server speaks keep-alive HTTP/1.1 and answers ``GET /``, ``/start`` and ``/end`` properly;
``mode`` only changes how ``/decide`` is answered.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from typing import Any

INFO = {"name": "hostile", "games": ["toy-race"], "protocol": 1}
MODES = ("ok", "sleep", "drip_body", "drip_head", "huge", "huge_declared", "html", "unknown",
         "status_500", "redirect", "drop", "gzip", "no_choice", "evil_status", "deep_json",
         "huge_int", "nan", "surrogate")
RAW_ANSWERS = {
    "deep_json": b"[" * 30000 + b"]" * 30000,  # 60 KB, under the cap: Python's json recurses
    "huge_int": b'{"choice": ' + b"9" * 60_000 + b"}",  # under the cap
    "nan": b'{"choice": NaN}',
    "surrogate": b'{"choice": "\\ud800"}',
}
"""Answers that are not JSON the referee reads, each once a way to crash a parser."""
HOSTILE_MATRIX = [
    ("sleep", 1.0, "timeout"),
    ("drip_body", 0.05, "timeout"),
    ("drip_head", 0.05, "timeout"),
    ("huge", 0.0, "too_large"),
    ("huge_declared", 0.0, "too_large"),
    ("html", 0.0, "bad_json"),
    ("gzip", 0.0, "bad_json"),
    ("no_choice", 0.0, "bad_json"),
    ("deep_json", 0.0, "bad_json"),
    ("huge_int", 0.0, "bad_json"),
    ("nan", 0.0, "bad_json"),
    ("surrogate", 0.0, "bad_json"),
    ("unknown", 0.0, "unknown_option"),
    ("status_500", 0.0, "http_status"),
    ("evil_status", 0.0, "http_status"),
    ("redirect", 0.0, "http_status"),
    ("drop", 0.0, "connection_error"),
]
"""Every way a bot's ``/decide`` answer goes wrong: ``(mode, delay, the strike's reason)``,
the delays long enough to miss a deadline of up to half a second."""
EVIL = "\x1b[2J\x1b[31mowned\x1b]0;pwned\x07\u202e"
"""Terminal escapes (clear screen, red, window title, bell) and a bidi override."""


class _Handler(socketserver.StreamRequestHandler):
    server: HostileServer

    def handle(self) -> None:
        self.server.connections += 1
        while True:
            request = _read_request(self.rfile, self.server.headers_seen)
            if request is None:
                return
            try:
                if not self.server.respond(self.wfile, *request):
                    return
            except (BrokenPipeError, ConnectionResetError):
                return


def _read_request(rfile: Any, seen: list[dict[str, str]]) -> tuple[str, str, bytes] | None:
    line = rfile.readline(65537)
    if not line:
        return None
    method, path, _ = line.decode("latin-1").split(" ", 2)
    length = 0
    headers: dict[str, str] = {}
    while True:
        header = rfile.readline(65537)
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    seen.append(headers)
    return method, path, rfile.read(length) if length else b""


def _head(status: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _json_response(doc: Any, status: str = "200 OK", **extra: str) -> bytes:
    body = json.dumps(doc).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), **extra}
    return _head(status, headers) + body


class HostileServer(socketserver.ThreadingTCPServer):
    """A bot on 127.0.0.1 whose ``/decide`` answers follow ``mode`` (see :data:`MODES`).

    ``delay`` is the sleep (``sleep``) or the pause between bytes (``drip_*``). Every ``/decide``
    arrival is recorded in ``arrivals`` as ``(time, request_id)``.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str = "ok", delay: float = 0.0, choose: str = "first",
                 info: Any = None, end_status: str = "200 OK", good_first: int = 0,
                 note: str = "thinking") -> None:
        assert mode in MODES, mode
        super().__init__(("127.0.0.1", 0), _Handler)
        self.info = INFO if info is None else info
        self.end_status = end_status
        self.headers_seen: list[dict[str, str]] = []
        self.mode, self.delay, self.choose = mode, delay, choose
        self.good_first, self.note = good_first, note
        """How many ``/decide`` calls are answered well before ``mode`` takes over."""
        self.connections = 0
        self.arrivals: list[tuple[float, str]] = []
        self.bodies: dict[str, list[Any]] = {"/start": [], "/decide": [], "/end": []}
        self._thread = threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()

    def respond(self, out: Any, method: str, path: str, body: bytes) -> bool:
        """Write the answer; ``False`` closes the connection."""
        if path == "/" and method == "GET":
            out.write(_json_response(self.info))
            return True
        doc = json.loads(body) if body else {}
        if path in self.bodies:
            self.bodies[path].append(doc)
        if path != "/decide":
            out.write(_json_response({"ok": True}, self.end_status if path == "/end" else "200 OK"))
            return True
        self.arrivals.append((time.monotonic(), doc.get("request_id", "")))
        return self._decide(out, doc)

    def _decide(self, out: Any, doc: dict[str, Any]) -> bool:
        options = [o["id"] for o in doc["decision"]["options"]]
        good = _json_response({"choice": options[0] if self.choose == "first" else options[-1],
                               "log": self.note})
        mode = self.mode if len(self.arrivals) > self.good_first else "ok"
        if mode == "ok":
            out.write(good)
        elif mode in RAW_ANSWERS:
            out.write(_head("200 OK", {"Content-Type": "application/json",
                                       "Content-Length": str(len(RAW_ANSWERS[mode]))})
                      + RAW_ANSWERS[mode])
        elif mode == "sleep":
            time.sleep(self.delay)
            out.write(good)
        elif mode in ("drip_body", "drip_head"):
            split = good.index(b"\r\n\r\n") + 4
            head, rest = (good[:split], good[split:])
            if mode == "drip_head":
                head, rest = b"", good
            out.write(head)
            out.flush()
            for byte in rest:
                out.write(bytes([byte]))
                out.flush()
                time.sleep(self.delay)
        elif mode == "huge":
            out.write(_head("200 OK", {"Content-Type": "application/json",
                                       "Transfer-Encoding": "chunked"}))
            chunk = b"x" * 65536
            for _ in range(20 * 16):  # 20 MB in 64 KiB chunks
                out.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            out.write(b"0\r\n\r\n")
        elif mode == "huge_declared":
            out.write(_head("200 OK", {"Content-Length": str(20 * 2**20)}))
            out.write(b"x" * (20 * 2**20))
        elif mode == "html":
            page = b"<html><body>Hello from nginx</body></html>"
            out.write(_head("200 OK", {"Content-Type": "text/html",
                                       "Content-Length": str(len(page))}) + page)
        elif mode == "unknown":
            out.write(_json_response({"choice": "teleport"}))
        elif mode == "no_choice":
            out.write(_json_response({"move": options[0]}))
        elif mode == "evil_status":
            raw = EVIL.encode().decode("latin-1")  # the status line's bytes, as UTF-8
            out.write(_json_response({"error": EVIL}, f"503 {raw}"))
        elif mode == "status_500":
            out.write(_json_response({"error": "boom"}, "500 Internal Server Error"))
        elif mode == "redirect":
            out.write(_head("302 Found", {"Location": "http://127.0.0.1:9/decide",
                                          "Content-Length": "0"}))
        elif mode == "gzip":
            out.write(_head("200 OK", {"Content-Encoding": "gzip", "Content-Length": "4"}) + b"\x1f\x8b\x08\x00")
        elif mode == "drop":
            return False
        return True


def free_port() -> int:
    """A port with nothing listening (bound then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
