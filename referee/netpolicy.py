"""Which addresses a bot URL may reach: the service's guard against SSRF.

Bot URLs on the hosted service come from strangers, so the referee must not become a way to
reach what sits behind it (loopback, the LAN, a cloud's metadata service at 169.254.169.254).
:class:`UrlPolicy` is applied twice:

* at registration (:meth:`UrlPolicy.check`): http/https only, no credentials in the URL, no
  ambiguous numeric host (``2130706433``, ``0177.0.0.1``, ``0x7f.1``), and the host resolved
  with every address checked against :data:`BLOCKED_NETWORKS`;
* at every connection (:meth:`UrlPolicy.pin`, the transport's connect hook): the host is
  resolved again, every address checked, and the connection made to the checked address with
  the original ``Host`` header and TLS name, so a DNS answer that changes between the check and
  the connect (rebinding) cannot move it.  The transport never follows redirects.

The resolver runs on the transport's call thread, inside the decision's deadline.  Python's
``ipaddress.is_private`` follows registry data that changes between versions, so the blocked
ranges are listed here explicitly.  An operator allows ranges back with
``REFEREE_ALLOW_NETWORKS`` (e.g. ``127.0.0.0/8`` for a ladder on one laptop).  The CLI does not
use this policy: loopback bots are its dev loop.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Union
from urllib.parse import urlsplit

IPAddress = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]
Resolver = Callable[[str, int], Sequence[str]]
ENV_ALLOW = "REFEREE_ALLOW_NETWORKS"

BLOCKED_NETWORKS: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "carrier-grade NAT"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "6to4 relay"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("255.255.255.255/32", "broadcast"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "IPv4-compatible"),
    ("64:ff9b::/96", "NAT64"),
    ("64:ff9b:1::/48", "NAT64 (local)"),
    ("100::/64", "discard"),
    ("2001::/23", "IETF protocol assignments (Teredo, ORCHID)"),
    ("2001:db8::/32", "documentation"),
    ("2002::/16", "6to4"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing"),
    ("fc00::/7", "unique local (private)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"),
    ("ff00::/8", "multicast"),
)
_BLOCKED = tuple((ipaddress.ip_network(net), why) for net, why in BLOCKED_NETWORKS)
_NUMERIC_HOST = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}\.?", re.I)


class BlockedUrl(ValueError):
    """A bot URL or address the policy refuses; the message says which rule."""


def parse_networks(text: str) -> list[Network]:
    """``"127.0.0.0/8, ::1"`` -> networks; BlockedUrl-free ValueError names a bad entry."""
    nets = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{ENV_ALLOW}: {item!r} is not a network (e.g. 127.0.0.0/8)") from None
    return nets


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (TCP), in the resolver's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class UrlPolicy:
    """The address rules, with the operator's allowed networks and a resolver (tests stub it)."""

    def __init__(self, allow: Iterable[Network] = (), resolver: Resolver = system_resolver,
                 ports: tuple[int, int] | None = None) -> None:
        self.allow = tuple(allow)
        self.resolver = resolver
        self.ports = ports
        """Optional (low, high) range of allowed ports besides 80 and 443."""

    @classmethod
    def from_env(cls, resolver: Resolver = system_resolver) -> UrlPolicy:
        return cls(parse_networks(os.environ.get(ENV_ALLOW, "")), resolver)

    # -- rules ------------------------------------------------------------------------------

    def blocked_reason(self, address: IPAddress) -> str | None:
        """Why ``address`` may not be reached, or None."""
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return self.blocked_reason(address.ipv4_mapped)
            address = ipaddress.IPv6Address(address.compressed.split("%")[0])
        if any(address in net for net in self.allow):
            return None
        for net, why in _BLOCKED:
            if address.version == net.version and address in net:
                return f"{address} is in a blocked range ({net}: {why})"
        return None

    def check(self, url: str) -> tuple[str, int, list[str]]:
        """Refuse a URL the rules forbid; else ``(host, port, checked addresses)``."""
        scheme, host, port = self.split(url)
        return host, port, self.addresses(host, port)

    def split(self, url: str) -> tuple[str, str, int]:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise BlockedUrl(f"bad URL {url!r}: {exc}") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise BlockedUrl(f"bad URL {url!r}: only http:// and https:// bots are allowed")
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            raise BlockedUrl("a bot URL may not carry credentials (user:password@)")
        host = parts.hostname or ""
        if not host:
            raise BlockedUrl(f"bad URL {url!r}: no host")
        port = port if port is not None else (443 if scheme == "https" else 80)
        if self.ports is not None and port not in (80, 443) and \
                not self.ports[0] <= port <= self.ports[1]:
            raise BlockedUrl(f"port {port} is not allowed (80, 443, "
                             f"{self.ports[0]}-{self.ports[1]})")
        return scheme, host, port

    def addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses of ``host``: a literal is checked as it is, a name resolved
        and refused if *any* of its addresses is blocked (an attacker chooses the order)."""
        literal = _literal(host)
        if literal is not None:
            reason = self.blocked_reason(literal)
            if reason:
                raise BlockedUrl(f"blocked: {reason}")
            return [str(literal)]
        if _NUMERIC_HOST.fullmatch(host):
            raise BlockedUrl(f"blocked: {host!r} is a numeric address in a non-standard "
                             "spelling (use dotted decimal a.b.c.d)")
        try:
            found = self.resolver(host, port)
        except (OSError, UnicodeError) as exc:
            raise BlockedUrl(f"cannot resolve {host!r}: {exc}") from None
        if not found:
            raise BlockedUrl(f"{host!r} resolves to no address")
        checked = []
        for text in found:
            address = _literal(text)
            if address is None:
                raise BlockedUrl(f"{host!r} resolved to something that is not an address")
            reason = self.blocked_reason(address)
            if reason:
                raise BlockedUrl(f"blocked: {host} resolves to {reason}")
            checked.append(str(address))
        return checked

    # -- the transport's connect hook -------------------------------------------------------

    def pin(self, request: Any, host_params: dict[str, Any], pool_kwargs: dict[str, Any]) -> None:
        """Check the request's host now and connect to the checked address; keep the original
        name for ``Host`` and for TLS (SNI and certificate check).  Raises BlockedUrl."""
        scheme, host, port = self.split(request.url)
        address = self.addresses(host, port)[0]
        host_params["host"] = address
        if _literal(host) is None:
            default = 443 if scheme == "https" else 80
            request.headers["Host"] = host if port == default else f"{host}:{port}"
            if scheme == "https":
                pool_kwargs["server_hostname"] = host
                pool_kwargs["assert_hostname"] = host


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
