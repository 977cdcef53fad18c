"""The address policy's other rules, as a specification: the ports a bot URL may use, how a
host name is read (numeric spellings, names IDNA cannot encode), which resolved address a
connection goes to, and the ``Host`` header and TLS name it carries, checked on a real TLS
server on loopback.
"""

from __future__ import annotations

import http.server
import re
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from referee.netpolicy import (
    DEFAULT_PORTS, BlockedUrl, UrlPolicy, env_ports, parse_networks, parse_ports,
)

PUBLIC = "93.184.216.34"


def public(host: str, port: int) -> list[str]:
    return [PUBLIC]


# -- ports ------------------------------------------------------------------------------------

@pytest.mark.parametrize("port, allowed", [
    (0, False), (1, False), (22, False), (25, False), (79, False), (80, True), (81, False),
    (442, False), (443, True), (444, False), (1023, False), (1024, True), (8080, True),
    (65535, True),
])
def test_the_default_ports_are_80_443_and_1024_up(port, allowed):
    policy = UrlPolicy(resolver=public)
    if allowed:
        assert policy.check(f"http://bot.example:{port}/") == ("bot.example", port, [PUBLIC])
    else:
        with pytest.raises(BlockedUrl, match=f"port {port} is not allowed .*80,443,1024-65535"):
            policy.check(f"http://bot.example:{port}/")


def test_a_port_past_65535_is_a_bad_url():
    with pytest.raises(BlockedUrl, match="bad URL"):
        UrlPolicy(resolver=public).check("http://bot.example:65536/")


def test_a_url_without_a_port_is_judged_by_its_schemes_default():
    assert UrlPolicy(resolver=public).check("http://bot.example/")[1] == 80
    assert UrlPolicy(resolver=public).check("https://bot.example")[1] == 443
    only_high = UrlPolicy(resolver=public, ports=parse_ports("8000-9000"))
    for url in ("http://bot.example/", "https://bot.example/"):
        with pytest.raises(BlockedUrl, match="not allowed .*8000-9000"):
            only_high.check(url)
    assert only_high.check("https://bot.example:9000")[1] == 9000


def test_a_port_is_refused_before_the_name_is_looked_up():
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return [PUBLIC]

    with pytest.raises(BlockedUrl, match="port 22"):
        UrlPolicy(resolver=resolve).check("http://bot.example:22/")
    assert asked == []


@pytest.mark.parametrize("text, ranges", [
    ("80,443,1024-65535", ((80, 80), (443, 443), (1024, 65535))),
    (" 8080 ", ((8080, 8080),)),
    ("1-65535", ((1, 65535),)),
    ("443, 8000 - 8999,", ((443, 443), (8000, 8999))),
    ("22-22", ((22, 22),)),
])
def test_the_ports_setting_reads_ports_and_ranges(text, ranges):
    assert parse_ports(text) == ranges


@pytest.mark.parametrize("text", [
    "", " , ", "http", "0", "65536", "99999", "2000-1000", "80-", "-80", "1-2-3", "80;443",
    "８０", "0x50", "1e3", "80 443",
])
def test_a_bad_ports_setting_is_an_error_naming_the_variable(text):
    with pytest.raises(ValueError, match="^REFEREE_BOT_PORTS: "):
        parse_ports(text)


def test_the_ports_setting_reaches_the_service_policy(monkeypatch):
    from api.config import ServiceConfig

    monkeypatch.delenv("REFEREE_BOT_PORTS", raising=False)
    assert ServiceConfig.from_env().bot_ports == DEFAULT_PORTS == env_ports({})
    monkeypatch.setenv("REFEREE_BOT_PORTS", "")
    assert ServiceConfig.from_env().bot_ports == DEFAULT_PORTS
    monkeypatch.setenv("REFEREE_BOT_PORTS", "443,8000-8100")
    config = ServiceConfig.from_env()
    assert config.bot_ports == ((443, 443), (8000, 8100))
    policy = config.policy()
    assert policy.port_allowed(8100) and not policy.port_allowed(80)
    assert UrlPolicy.from_env().ports == ((443, 443), (8000, 8100))
    monkeypatch.setenv("REFEREE_BOT_PORTS", "22-")
    with pytest.raises(ValueError, match="REFEREE_BOT_PORTS: '22-'"):
        ServiceConfig.from_env()


def test_a_bad_ports_setting_stops_serve_in_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from cli import main

    from support.cli import assert_clean_error

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFEREE_BOT_PORTS", "80,ssh")
    out = CliRunner().invoke(main, ["serve", "--db", "sqlite:///x.db"])
    assert_clean_error(out, 1, "REFEREE_BOT_PORTS", "'ssh'")


@pytest.mark.parametrize("url, needle", [
    ("http://bot.example:22", "port 22 is not allowed"),
    ("http://bot.example:25/", "port 25 is not allowed"),
    ("http://[::ffff:0:127.0.0.1]:8080", "127.0.0.0/8"),
    ("http://[64:ff9b::a9fe:a9fe]", "169.254.0.0/16"),
])
def test_registration_refuses_ports_and_forms_with_the_reason(make_service, url, needle):
    from service.conftest import Client

    app = make_service(allow_networks="", resolver=lambda host, port: ["10.0.0.1"])
    alice = Client(app).owner("alice")
    answer = alice.post("/api/v1/bots", json={"name": "x", "url": url, "games": ["toy-race"]})
    assert answer.status_code == 422, answer.json
    assert "refused" in answer.json["message"] and needle in answer.json["message"]


# -- host names -------------------------------------------------------------------------------

@pytest.mark.parametrize("host", [
    "1.example", "10.1.example", "127.0.0.1.example", "0x7f.example", "0177.example",
    "2130706433.example",
])
def test_a_name_that_starts_like_a_number_is_a_name(host):
    """Only a whole host in a non-standard numeric spelling is refused."""
    assert UrlPolicy(resolver=public).check(f"http://{host}/") == (host, 80, [PUBLIC])


@pytest.mark.parametrize("host", ["a" * 64 + ".example", "bot..example", "bot\u2028x.example",
                                  "\u05d0a.example"])
def test_a_name_idna_cannot_encode_is_refused_cleanly(host):
    """The system resolver encodes the name before any lookup: a label too long or empty
    or a character IDNA forbids raises UnicodeError, which must be a refusal like any
    unresolvable name."""
    with pytest.raises(BlockedUrl, match=re.escape(f"cannot resolve {host!r}")):
        UrlPolicy().check(f"http://{host}/")


@pytest.mark.parametrize("answer, needle", [
    ([], "resolves to no address"),
    (["bot.example"], "not an address"),
    ([PUBLIC, "93.184.216"], "not an address"),
])
def test_a_resolver_answer_that_gives_no_checked_address_is_refused(answer, needle):
    with pytest.raises(BlockedUrl, match=needle):
        UrlPolicy(resolver=lambda host, port: answer).check("http://bot.example/")


def test_registration_refuses_a_name_idna_cannot_encode(make_service):
    from service.conftest import Client

    alice = Client(make_service(allow_networks="")).owner("alice")  # the system resolver
    url = "http://" + "a" * 64 + ".example"
    answer = alice.post("/api/v1/bots", json={"name": "x", "url": url, "games": ["toy-race"]})
    assert answer.status_code == 422 and "cannot resolve" in answer.json["message"]


# -- the connect hook: where the connection goes, with what name ------------------------------

def pinned(policy: UrlPolicy, url: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """What :meth:`UrlPolicy.pin` makes of a request for ``url``: host parameters, pool
    arguments and the request (its headers)."""
    request = requests.Request("GET", url).prepare()
    host_params: dict[str, Any] = {"scheme": url.split(":")[0], "host": "unchanged"}
    pool_kwargs: dict[str, Any] = {}
    policy.pin(request, host_params, pool_kwargs)
    return host_params, pool_kwargs, request


def test_the_connection_goes_to_the_first_address_the_resolver_gives():
    """The resolver's order is the system's preference (RFC 6724); every address was checked."""
    order = ["93.184.216.35", "93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]
    policy = UrlPolicy(resolver=lambda host, port: order)
    assert pinned(policy, "http://bot.example:8080/")[0]["host"] == "93.184.216.35"
    order.reverse()
    assert pinned(policy, "http://bot.example:8080/")[0]["host"] == order[0]


@pytest.mark.parametrize("url, host_header, tls_name", [
    ("http://bot.example/", "bot.example", None),
    ("http://bot.example:8080/", "bot.example:8080", None),
    ("http://bot.example:443/", "bot.example:443", None),
    ("https://bot.example/", "bot.example", "bot.example"),
    ("https://bot.example:8443/", "bot.example:8443", "bot.example"),
    ("https://bot.example:80/", "bot.example:80", "bot.example"),
])
def test_a_name_keeps_its_host_header_and_tls_name(url, host_header, tls_name):
    host_params, pool_kwargs, request = pinned(UrlPolicy(resolver=public), url)
    assert host_params["host"] == PUBLIC
    assert request.headers["Host"] == host_header
    assert pool_kwargs.get("server_hostname") == tls_name
    assert pool_kwargs.get("assert_hostname") == tls_name


def test_a_literal_address_is_connected_to_as_it_is():
    host_params, pool_kwargs, request = pinned(UrlPolicy(), "https://[2606:2800:220::1]:8443/")
    assert host_params["host"] == "2606:2800:220::1" and pool_kwargs == {}
    assert "Host" not in request.headers  # requests' own, from the URL


@pytest.mark.parametrize("url", ["http://bot.example:22/", "https://bot.example:25/"])
def test_a_forbidden_port_is_refused_at_connection_time_too(url):
    with pytest.raises(BlockedUrl, match="is not allowed"):
        pinned(UrlPolicy(resolver=public), url)


class Seen(http.server.BaseHTTPRequestHandler):
    """A loopback HTTPS bot that records each request's Host header."""

    hosts: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        Seen.hosts.append(self.headers.get("Host", ""))
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``bot.example`` (and its key), made by openssl."""
    import os

    if shutil.which("openssl") is None:
        reason = "openssl is not installed"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI must run the TLS tests)")
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=bot.example", "-addext", "subjectAltName=DNS:bot.example",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[tuple[int, list[str | None]]]:
    """An HTTPS server on 127.0.0.1: its port and the SNI names its handshakes received."""
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)

    def record(sock: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        names.append(name)

    context.sni_callback = record
    Seen.hosts = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Seen)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1], names
    server.shutdown()
    server.server_close()


def tls_get(policy: UrlPolicy, url: str, cert: Path) -> requests.Response:
    from referee.transport import new_session

    session = new_session(policy.pin)
    session.verify = str(cert)  # trust the test's own certificate, nothing else
    try:
        return session.get(url, timeout=30)
    finally:
        session.close()


def test_tls_to_a_checked_address_carries_the_name_in_sni_host_and_certificate_check(
        tls_server, certificate):
    """The connection goes to the address the policy checked, while the server sees the
    bot's name in SNI and in ``Host``, and the certificate is checked against that name."""
    port, names = tls_server
    policy = UrlPolicy(parse_networks("127.0.0.0/8"),
                       resolver=lambda host, p: ["127.0.0.1", "127.0.0.2"])
    answer = tls_get(policy, f"https://bot.example:{port}/", certificate[0])
    assert answer.status_code == 200 and answer.json() == {"ok": True}
    assert names == ["bot.example"]
    assert Seen.hosts == [f"bot.example:{port}"]


def test_tls_checks_the_certificate_against_the_urls_name_not_the_address(
        tls_server, certificate):
    port, names = tls_server
    policy = UrlPolicy(parse_networks("127.0.0.0/8"), resolver=lambda host, p: ["127.0.0.1"])
    with pytest.raises(requests.exceptions.SSLError, match="other.example"):
        tls_get(policy, f"https://other.example:{port}/", certificate[0])
    assert names == ["other.example"] and Seen.hosts == []
