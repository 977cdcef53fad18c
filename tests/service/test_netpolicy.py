"""SSRF: bot URLs may not reach loopback, private, link-local, metadata or other special
addresses, in any spelling, by name or literal, at registration or at any connection.

No test here connects to a blocked address: the policy refuses before connecting.  Names
resolve through a stub resolver; the only sockets opened are to loopback servers, with
127.0.0.0/8 explicitly allowed.
"""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from referee.netpolicy import BlockedUrl, UrlPolicy, parse_networks

PUBLIC = "93.184.216.34"

BLOCKED_LITERALS = [
    "http://127.0.0.1/", "http://127.8.9.10:8000/", "http://10.0.0.1/", "http://172.16.5.4/",
    "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/",
    "http://0.0.0.0/", "http://224.0.0.1/", "http://240.0.0.1/", "http://255.255.255.255/",
    "http://198.18.0.1/", "http://[::1]/", "http://[::]/", "http://[fe80::1]/",
    "http://[fc00::1]/", "http://[fd12:3456::1]/", "http://[ff02::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:10.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::]/",
    "http://[::127.0.0.1]/", "http://[2001:db8::1]/", "https://[fe80::1%25eth0]/",
]
ODD_SPELLINGS = [
    "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://0x7f000001/",
    "http://127.1/", "http://017700000001/", "http://0251.0376.0251.0376/",
    "http://2852039166/", "http://0xa9fea9fe/", "http://10.1/",
]


def stub(table: dict[str, list[str]]):
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]
    return resolve


@pytest.mark.parametrize("url", BLOCKED_LITERALS)
def test_special_addresses_are_refused(url):
    with pytest.raises(BlockedUrl, match="blocked"):
        UrlPolicy(resolver=stub({})).check(url)


@pytest.mark.parametrize("url", ODD_SPELLINGS)
def test_decimal_octal_and_hex_spellings_are_refused(url):
    with pytest.raises(BlockedUrl, match="non-standard spelling"):
        UrlPolicy(resolver=stub({})).check(url)


@pytest.mark.parametrize("addresses", [["127.0.0.1"], ["169.254.169.254"], ["::1"],
                                       [PUBLIC, "10.1.2.3"], ["::ffff:192.168.0.1"]])
def test_a_name_resolving_to_a_blocked_address_is_refused(addresses):
    policy = UrlPolicy(resolver=stub({"bot.example": addresses}))
    with pytest.raises(BlockedUrl, match="bot.example resolves to"):
        policy.check("http://bot.example:8000/")


@pytest.mark.parametrize("url, needle", [
    ("http://user:secret@bot.example/", "credentials"),
    ("http://user@bot.example/", "credentials"),
    ("ftp://bot.example/", "only http"),
    ("file:///etc/passwd", "only http"),
    ("gopher://bot.example/", "only http"),
    ("http:///nohost", "no host"),
    ("http://unknown.example/", "cannot resolve"),
    ("http://bot.example:99999/", "bad URL"),
])
def test_malformed_or_unsafe_urls_are_refused(url, needle):
    with pytest.raises(BlockedUrl, match=needle):
        UrlPolicy(resolver=stub({"bot.example": [PUBLIC]})).check(url)


def test_a_public_name_passes_and_allowed_ranges_open_up():
    policy = UrlPolicy(resolver=stub({"bot.example": [PUBLIC], "lan.example": ["10.1.2.3"]}))
    assert policy.check("https://bot.example/v1") == ("bot.example", 443, [PUBLIC])
    allowed = UrlPolicy(parse_networks("10.0.0.0/8, 127.0.0.0/8"),
                        resolver=stub({"lan.example": ["10.1.2.3"]}))
    assert allowed.check("http://lan.example:8081")[2] == ["10.1.2.3"]
    assert allowed.check("http://[::ffff:127.0.0.1]:8081")[2] == ["::ffff:7f00:1"]
    with pytest.raises(BlockedUrl):
        allowed.check("http://192.168.0.1/")  # still blocked
    with pytest.raises(ValueError, match="not a network"):
        parse_networks("10.0.0.0/8, lan")


# -- at connection time -----------------------------------------------------------------------

class Recorder(http.server.BaseHTTPRequestHandler):
    """A loopback bot that records the Host header; ``/redirect`` answers 302 elsewhere."""

    hosts: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        Recorder.hosts.append(self.headers.get("Host", ""))
        if self.path == "/redirect/":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"name": "rec", "games": ["toy-race"], "protocol": 1}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recorder():
    Recorder.hosts = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_connection_goes_to_the_checked_address_with_the_original_host(recorder):
    from referee.transport import fetch_info

    policy = UrlPolicy(parse_networks("127.0.0.0/8"),
                       resolver=stub({"bot.example": ["127.0.0.1"]}))
    info, fault = fetch_info(f"http://bot.example:{recorder}", guard=policy.pin)
    assert fault is None and info["name"] == "rec"
    assert Recorder.hosts == [f"bot.example:{recorder}"]


def test_dns_rebinding_after_registration_is_caught_at_connect(recorder):
    """Registration saw loopback (allowed here); the name now points at the LAN: the next
    connection is refused before any socket opens."""
    from referee.transport import fetch_info

    table = {"bot.example": ["127.0.0.1"]}
    policy = UrlPolicy(parse_networks("127.0.0.0/8"), resolver=stub(table))
    policy.check(f"http://bot.example:{recorder}")
    table["bot.example"] = ["10.9.8.7"]
    info, fault = fetch_info(f"http://bot.example:{recorder}", guard=policy.pin)
    assert info is None and fault is not None
    assert "blocked" in fault.detail and "10.9.8.7" in fault.detail
    assert Recorder.hosts == []


def test_a_match_seat_is_struck_when_its_address_turns_bad(recorder, toy_game):
    from arena import MatchDescription, Seat, TimeControl, play_match

    table = {"bot.example": ["10.9.8.7"]}
    policy = UrlPolicy(resolver=stub(table))
    match = MatchDescription("toy-race", (Seat(f"http://bot.example:{recorder}", "evil"),
                                          Seat("random")), 1, time_control=TimeControl(500))
    log = play_match(match, guard=policy.pin).log
    assert log["players"][0]["forfeited"]
    assert all(f["reason"] == "connection_error" and "blocked" in f["detail"]
               for f in log["faults"] if f["seat"] == 0 and f["kind"] != "end")
    assert Recorder.hosts == []


def test_redirects_are_never_followed(recorder):
    from referee.transport import fetch_info

    policy = UrlPolicy(parse_networks("127.0.0.0/8"))
    info, fault = fetch_info(f"http://127.0.0.1:{recorder}/redirect", guard=policy.pin)
    assert info is None and fault is not None
    assert "302" in fault.detail and "never followed" in fault.detail
    assert Recorder.hosts == [f"127.0.0.1:{recorder}"]  # one request, no second hop


def test_a_slow_resolver_counts_against_the_deadline():
    from referee.transport import Transport

    def slow(host: str, port: int) -> list[str]:
        time.sleep(2)
        return ["127.0.0.1"]

    policy = UrlPolicy(parse_networks("127.0.0.0/8"), resolver=slow)
    transport = Transport("http://slow.example:9999", guard=policy.pin)
    began = time.monotonic()
    try:
        outcome = transport.call("POST", "/decide", b"{}", 300)
    finally:
        transport.close()
    assert outcome.fault is not None and outcome.fault.reason.value == "timeout"
    assert time.monotonic() - began < 1.5


# -- through the API --------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://[::ffff:127.0.0.1]:80",
                                 "http://2130706433", "http://169.254.169.254",
                                 "http://u:p@bot.example", "http://bot.example"])
def test_registration_refuses_blocked_urls(make_service, url):
    from service.conftest import Client

    app = make_service(allow_networks="",
                       resolver=stub({"bot.example": ["192.168.1.20"]}))
    alice = Client(app).owner("alice")
    answer = alice.post("/api/v1/bots", json={"name": "x", "url": url, "games": ["toy-race"]})
    assert answer.status_code == 422, answer.json
    assert "refused" in answer.json["message"]


def test_registration_refuses_a_redirecting_bot(make_service, recorder):
    from service.conftest import Client

    alice = Client(make_service()).owner("alice")
    answer = alice.post("/api/v1/bots", json={
        "name": "x", "url": f"http://127.0.0.1:{recorder}/redirect", "games": ["toy-race"]})
    assert answer.status_code == 422 and "never followed" in answer.json["message"]
