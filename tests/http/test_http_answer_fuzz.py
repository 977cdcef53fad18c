"""Nothing a bot sends can raise out of the transport: every byte sequence is a value or a fault.

A bot controls everything the referee reads of its answers: the status line, the headers, the
encoding and the body. An exception escaping from reading any of it once let a bot void a match
it was losing (60 KB of nested JSON raised ``RecursionError`` past every handler). So the
parsers are fed arbitrary bytes and crafted bodies directly, and a raw socket answers the real
transport with arbitrary responses: each call must come back as a value or a typed
:class:`~referee.faults.Fault`, never an exception.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from referee.core import Decision, Option
from referee.faults import Fault, FaultReason
from referee.players import DecisionRequest, MatchInfo
from referee.protocol import MAX_DEPTH, MessageError, decode_json, decode_message, parse_answer
from referee.transport import HttpPlayer, fetch_info

IDS = ("a", "b")
CRAFTED = [
    b"[" * 30000 + b"]" * 30000,
    b'{"choice": "a", "log": ' + b"[" * 2000 + b"]" * 2000 + b"}",
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"choice": ' + b"9" * 100_000 + b"}",
    b'{"choice": "a", "n": ' + b"9" * 5000 + b"}",
    b'{"choice": "a", "n": 1e999}',
    b'{"choice": NaN}', b'{"choice": "a", "n": -Infinity}',
    b'\xef\xbb\xbf{"choice": "a"}', b'\xff\xfe{\x00"\x00', b'{"choice": "\xff"}',
    b'{"choice": "\\ud800"}', b'{"choice": "a", "log": "\\udfff"}',
    b'{"choice": "a", "log": "\\u0000\\u001b[2J"}', b"", b"null", b'"a"', b"{", b"}" * 70000,
]


def _request() -> DecisionRequest:
    decision = Decision(0, "pick", "pick one", tuple(Option(i, i, {}) for i in IDS))
    return DecisionRequest("m1", "toy-race", 0, "m1:0:0", decision, lambda: {}, 300, 0)


def _assert_answer(body: bytes) -> None:
    parsed = parse_answer(body, IDS)
    if parsed.fault is None:
        assert parsed.choice in IDS
    else:
        assert isinstance(parsed.fault, Fault)
        str(parsed.fault)  # printable, whatever the bot sent
        assert parsed.fault.reason in (FaultReason.BAD_JSON, FaultReason.UNKNOWN_OPTION)


@pytest.mark.parametrize("body", CRAFTED, ids=range(len(CRAFTED)))
def test_crafted_bodies_are_a_fault_or_a_value(body):
    _assert_answer(body)
    try:
        decode_message(body)
    except MessageError:
        pass


@given(st.binary(max_size=2048))
def test_arbitrary_bytes_are_a_fault_or_a_value(body):
    _assert_answer(body)
    try:
        decode_json(body)
    except ValueError:
        pass


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20,
)


@given(JSONISH, st.integers(0, 80))
def test_any_document_at_any_depth_is_a_fault_or_a_value(doc, depth):
    import json

    body = json.dumps({"choice": "a", "log": doc}).encode()
    body = b"[" * depth + body + b"]" * depth
    _assert_answer(body)


def test_the_byte_order_mark_is_skipped_and_the_depth_bound_is_exact():
    assert parse_answer(b'\xef\xbb\xbf{"choice": "b"}', IDS).choice == "b"
    assert decode_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    with pytest.raises(ValueError, match="deeper"):
        decode_json(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))


# -- the real transport against a socket that answers anything ----------------------------------


class _RawHandler(socketserver.BaseRequestHandler):
    server: RawServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(2)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(rest) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                rest += chunk
            sock.sendall(self.server.reply)
            sock.shutdown(socket.SHUT_WR)  # end of the answer: no call waits for its deadline
        except OSError:
            pass


class RawServer(socketserver.ThreadingTCPServer):
    """Answers every request with :attr:`reply`, byte for byte, then closes."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _RawHandler)
        self.reply = b""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture(scope="module")
def raw_server():
    server = RawServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


TOKEN = st.binary(min_size=0, max_size=40)
HEADER = st.tuples(st.sampled_from([b"Content-Length", b"Content-Type", b"Transfer-Encoding",
                                    b"Content-Encoding", b"Location", b"Connection"]) | TOKEN,
                   st.sampled_from([b"0", b"5", b"-1", b"99999999999999999999", b"chunked",
                                    b"gzip", b"application/json", b"\xff\xfe"]) | TOKEN)
RESPONSE = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda status, headers, body: (b"HTTP/1.1 " + status + b"\r\n"
                                             + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
                                             + b"\r\n" + body),
              st.sampled_from([b"200 OK", b"204 No Content", b"302 Found", b"999 X", b"20",
                               b"-1 x", b"200 \xff\xfe"]) | TOKEN,
              st.lists(HEADER, max_size=5),
              st.sampled_from(CRAFTED[:4] + [b'{"choice": "a"}', b"5\r\nabc\r\n0\r\n\r\n"])
              | st.binary(max_size=200)),
)


@settings(max_examples=150)
@given(RESPONSE)
def test_any_response_to_any_call_is_a_fault_or_a_value(raw_server, reply):
    raw_server.reply = reply
    player = HttpPlayer(name="raw", url=raw_server.url, lifecycle_ms=500)
    try:
        info = MatchInfo("m1", "toy-race", 0, ((0, "raw"),), {"decision_ms": 300, "bank_ms": 0})
        for fault in (player.start(info), player.end("m1", {})):
            assert fault is None or isinstance(fault, Fault)
        answer = player.decide(_request())
        assert answer.fault is not None or answer.choice in IDS
        doc, fault = fetch_info(raw_server.url, 500)
        assert fault is None or (doc is None and isinstance(fault, Fault))
    finally:
        player.close()
