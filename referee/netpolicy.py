"""Which addresses a bot URL may reach: the service's guard against SSRF.

Bot URLs on the hosted service come from strangers, so the referee must not become a way to
reach what sits behind it (loopback, the LAN, a cloud's metadata service at 169.254.169.254).
:class:`UrlPolicy` is applied twice:

* at registration (:meth:`UrlPolicy.check`): http/https only, no credentials in the URL, a
  port in the allowed list (``REFEREE_BOT_PORTS``, default :data:`DEFAULT_PORTS_TEXT`: never
  ssh's 22 or smtp's 25), no ambiguous numeric host (``2130706433``, ``0177.0.0.1``,
  ``0x7f.1``), and the host resolved with every address checked against
  :data:`BLOCKED_NETWORKS`;
* at every connection (:meth:`UrlPolicy.pin`, the transport's connect hook): the host is
  resolved again, every address checked, and the connection made to the checked address with
  the original ``Host`` header and TLS name, so a DNS answer that changes between the check and
  the connect (rebinding) cannot move it.  The transport never follows redirects.

An IPv6 address that carries an IPv4 address (:data:`EMBEDDING_PREFIXES`: IPv4-mapped and
-translated, NAT64, 6to4, Teredo) is judged by the IPv4 address inside, since that is where the
packets end up: a blocked one blocks it, whatever the operator allowed of IPv6.  An embedded
address that passes (public, or allowed by the operator) lets the IPv6 address pass only where
the prefix really carries traffic to it (mapped: it *is* that address on this host; the NAT64
well-known prefix, 6to4 and Teredo: relays on the Internet); the other prefixes (translated,
local-use NAT64) stay blocked unless the operator allows the IPv6 range itself.

The resolver runs on the transport's call thread, inside the decision's deadline.  Python's
``ipaddress.is_private`` follows registry data that changes between versions, so the blocked
ranges are listed here explicitly.  An operator allows ranges back with
``REFEREE_ALLOW_NETWORKS`` (e.g. ``127.0.0.0/8`` for a ladder on one laptop, which opens
``[::ffff:127.0.0.1]`` too: it is the same address).  IPv6 outside ``2000::/3`` (the only
global unicast space) is blocked whole.  The CLI does not use this policy: loopback bots are
its dev loop.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Union
from urllib.parse import urlsplit

IPAddress = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]
Resolver = Callable[[str, int], Sequence[str]]
PortRanges = tuple[tuple[int, int], ...]
"""Allowed ports as inclusive ``(low, high)`` ranges."""
ENV_ALLOW = "REFEREE_ALLOW_NETWORKS"
ENV_PORTS = "REFEREE_BOT_PORTS"
DEFAULT_PORTS_TEXT = "80,443,1024-65535"

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
    ("255.255.255.255/32", "broadcast"),
    ("240.0.0.0/4", "reserved"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "IPv4-compatible (deprecated)"),
    ("100::/64", "discard"),
    ("2001::/23", "IETF protocol assignments (ORCHID, benchmarking)"),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing"),
    ("fc00::/7", "unique local (private)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"),
    ("ff00::/8", "multicast"),
    ("::/3", "not global unicast"),
    ("4000::/2", "not global unicast"),
    ("8000::/1", "not global unicast"),
)
"""Checked in order, the first match names the reason: specific ranges before the three that
cover all IPv6 outside ``2000::/3``.  The IPv4-carrying prefixes are in
:data:`EMBEDDING_PREFIXES`, judged before these."""
_BLOCKED = tuple((ipaddress.ip_network(net), why) for net, why in BLOCKED_NETWORKS)

_LOW32 = 0xFFFF_FFFF


def _last_32_bits(value: int) -> tuple[int, ...]:
    return (value & _LOW32,)


def _sixtofour(value: int) -> tuple[int, ...]:
    """6to4 (RFC 3056): ``2002:AABB:CCDD::/48`` is the site of ``AA.BB.CC.DD`` (bits 16-47)."""
    return ((value >> 80) & _LOW32,)


def _teredo(value: int) -> tuple[int, ...]:
    """Teredo (RFC 4380): the server's IPv4 in bits 32-63, the client's (its NAT's public
    address) in the last 32 bits, inverted.  Packets go to both."""
    return ((value >> 64) & _LOW32, ~value & _LOW32)


EMBEDDING_PREFIXES: tuple[tuple[str, str, bool, Callable[[int], tuple[int, ...]]], ...] = (
    ("::ffff:0:0/96", "IPv4-mapped", True, _last_32_bits),
    ("::ffff:0:0:0/96", "IPv4-translated", False, _last_32_bits),
    ("64:ff9b::/96", "NAT64", True, _last_32_bits),
    # RFC 8215 lets a local prefix be /48 to /96; only the /96 layout is decoded, and the
    # range is blocked anyway unless the operator allows it.
    ("64:ff9b:1::/48", "NAT64 (local use)", False, _last_32_bits),
    ("2002::/16", "6to4", True, _sixtofour),
    ("2001::/32", "Teredo", True, _teredo),
)
"""``(prefix, name, routable, IPv4 addresses inside)``: an address under a prefix is judged
by the IPv4 addresses it carries; when they pass, a routable prefix passes and the others are
blocked unless allowed."""
_EMBEDDING = tuple((ipaddress.IPv6Network(net), why, routable, inner)
                   for net, why, routable, inner in EMBEDDING_PREFIXES)
_PORT_ITEM = re.compile(r"([0-9]{1,5})(?:\s*-\s*([0-9]{1,5}))?")
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


def parse_ports(text: str) -> PortRanges:
    """``"80,443,1024-65535"`` -> ranges; a ValueError naming ``REFEREE_BOT_PORTS`` and the
    bad entry."""
    ranges = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        found = _PORT_ITEM.fullmatch(item)
        if found is None:
            raise ValueError(f"{ENV_PORTS}: {item!r} is not a port or a range of ports "
                             f"(e.g. {DEFAULT_PORTS_TEXT})")
        first, last = int(found[1]), int(found[2] or found[1])
        if not 1 <= first <= last <= 65535:
            raise ValueError(f"{ENV_PORTS}: {item!r} is not within 1-65535, low to high")
        ranges.append((first, last))
    if not ranges:
        raise ValueError(f"{ENV_PORTS}: no port given (e.g. {DEFAULT_PORTS_TEXT})")
    return tuple(ranges)


DEFAULT_PORTS = parse_ports(DEFAULT_PORTS_TEXT)


def env_ports(environ: Mapping[str, str] = os.environ) -> PortRanges:
    """The ports of ``REFEREE_BOT_PORTS``, :data:`DEFAULT_PORTS` when it is unset or empty."""
    return parse_ports(environ.get(ENV_PORTS, "").strip() or DEFAULT_PORTS_TEXT)


def format_ports(ports: PortRanges) -> str:
    return ",".join(str(low) if low == high else f"{low}-{high}" for low, high in ports)


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (TCP), in the resolver's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class UrlPolicy:
    """The address rules, with the operator's allowed networks and a resolver (tests stub it)."""

    def __init__(self, allow: Iterable[Network] = (), resolver: Resolver = system_resolver,
                 ports: PortRanges = DEFAULT_PORTS) -> None:
        self.allow = tuple(allow)
        self.resolver = resolver
        self.ports = ports

    @classmethod
    def from_env(cls, resolver: Resolver = system_resolver) -> UrlPolicy:
        return cls(parse_networks(os.environ.get(ENV_ALLOW, "")), resolver, env_ports())

    # -- rules ------------------------------------------------------------------------------

    def blocked_reason(self, address: IPAddress) -> str | None:
        """Why ``address`` may not be reached, or None."""
        if isinstance(address, ipaddress.IPv6Address):  # a scope (%eth0) changes nothing
            for prefix, name, routable, inner in _EMBEDDING:
                if address in prefix:
                    return self._embedded_reason(address, prefix, name, routable, inner)
        if self._allowed(address):
            return None
        for net, why in _BLOCKED:
            if address in net:  # never across versions: ::7f00:1 is not in 127.0.0.0/8
                return f"{address} is in a blocked range ({net}: {why})"
        return None

    def _embedded_reason(self, address: ipaddress.IPv6Address, prefix: ipaddress.IPv6Network,
                         name: str, routable: bool,
                         inner: Callable[[int], tuple[int, ...]]) -> str | None:
        for value in inner(int(address)):
            carried = ipaddress.IPv4Address(value)
            reason = self.blocked_reason(carried)
            if reason is not None:
                return f"{address} ({name}) carries {carried}: {reason}"
        if routable or self._allowed(address):
            return None
        return f"{address} is in a blocked range ({prefix}: {name})"

    def _allowed(self, address: IPAddress) -> bool:
        return any(address in net for net in self.allow)

    def port_allowed(self, port: int) -> bool:
        return any(low <= port <= high for low, high in self.ports)

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
        scheme = parts.scheme  # lower case already
        if scheme not in ("http", "https"):
            raise BlockedUrl(f"bad URL {url!r}: only http:// and https:// bots are allowed")
        if "@" in parts.netloc:
            raise BlockedUrl("a bot URL may not carry credentials (user:password@)")
        host = parts.hostname or ""
        if not host:
            raise BlockedUrl(f"bad URL {url!r}: no host")
        port = port if port is not None else (443 if scheme == "https" else 80)
        if not self.port_allowed(port):
            raise BlockedUrl(f"port {port} is not allowed (the service reaches bots on ports "
                             f"{format_ports(self.ports)})")
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
