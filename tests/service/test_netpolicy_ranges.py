"""The address policy's ranges, as a specification: every blocked range with an address just
inside each of its boundaries and one just outside, IPv4 and IPv6, and the IPv6 forms that
carry an IPv4 address judged by the address they carry.

The tables are written out by hand from the registries (IANA's special-purpose registries,
RFC 6052, 3056, 4380, 8215), not computed from the policy's own table: a range narrowed,
widened or deleted in the code fails a row here.  An address outside one range may be inside
a neighbour; the row then names the neighbour.
"""

from __future__ import annotations

import pytest

from referee.netpolicy import BlockedUrl, UrlPolicy, parse_networks

# (address, the range named in the refusal, or None: it passes)
IPV4 = [
    ("0.0.0.0", "0.0.0.0/8"), ("0.255.255.255", "0.0.0.0/8"), ("1.0.0.0", None),
    ("9.255.255.255", None), ("10.0.0.0", "10.0.0.0/8"), ("10.255.255.255", "10.0.0.0/8"),
    ("11.0.0.0", None),
    ("100.63.255.255", None), ("100.64.0.0", "100.64.0.0/10"),
    ("100.127.255.255", "100.64.0.0/10"), ("100.128.0.0", None),
    ("126.255.255.255", None), ("127.0.0.0", "127.0.0.0/8"),
    ("127.255.255.255", "127.0.0.0/8"), ("128.0.0.0", None),
    ("169.253.255.255", None), ("169.254.0.0", "169.254.0.0/16"),
    ("169.254.169.254", "169.254.0.0/16"), ("169.254.255.255", "169.254.0.0/16"),
    ("169.255.0.0", None),
    ("172.15.255.255", None), ("172.16.0.0", "172.16.0.0/12"),
    ("172.20.1.2", "172.16.0.0/12"), ("172.31.255.255", "172.16.0.0/12"), ("172.32.0.0", None),
    ("191.255.255.255", None), ("192.0.0.0", "192.0.0.0/24"), ("192.0.0.255", "192.0.0.0/24"),
    ("192.0.1.0", None), ("192.0.1.255", None), ("192.0.2.0", "192.0.2.0/24"),
    ("192.0.2.255", "192.0.2.0/24"), ("192.0.3.0", None),
    ("192.88.98.255", None), ("192.88.99.0", "192.88.99.0/24"),
    ("192.88.99.255", "192.88.99.0/24"), ("192.88.100.0", None),
    ("192.167.255.255", None), ("192.168.0.0", "192.168.0.0/16"),
    ("192.168.255.255", "192.168.0.0/16"), ("192.169.0.0", None),
    ("198.17.255.255", None), ("198.18.0.0", "198.18.0.0/15"),
    ("198.19.255.255", "198.18.0.0/15"), ("198.20.0.0", None),
    ("198.51.99.255", None), ("198.51.100.0", "198.51.100.0/24"),
    ("198.51.100.255", "198.51.100.0/24"), ("198.51.101.0", None),
    ("203.0.112.255", None), ("203.0.113.0", "203.0.113.0/24"),
    ("203.0.113.255", "203.0.113.0/24"), ("203.0.114.0", None),
    ("223.255.255.255", None), ("224.0.0.0", "224.0.0.0/4"),
    ("239.255.255.255", "224.0.0.0/4"), ("240.0.0.0", "240.0.0.0/4"),
    ("255.255.255.254", "240.0.0.0/4"), ("255.255.255.255", "255.255.255.255/32"),
    ("8.8.8.8", None), ("93.184.216.34", None),
]

ALL_ONES = "ffff:ffff:ffff:ffff:ffff:ffff"  # the low 96 bits of a range's last address

IPV6 = [
    ("::", "::/128"), ("::1", "::1/128"), ("::2", "::/96"), ("::ffff:ffff", "::/96"),
    ("::1:0:0", "::/3"),
    ("ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::/3"), ("100::", "100::/64"),
    ("100::ffff:ffff:ffff:ffff", "100::/64"), ("100:0:0:1::", "::/3"),
    ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::/3"), ("2000::", None),
    (f"2000:ffff:{ALL_ONES}", None), ("2001:1::", "2001::/23"),
    ("2001:2::1", "2001::/23"), ("2001:20::1", "2001::/23"),
    (f"2001:1ff:{ALL_ONES}", "2001::/23"), ("2001:200::", None),
    (f"2001:db7:{ALL_ONES}", None), ("2001:db8::", "2001:db8::/32"),
    (f"2001:db8:{ALL_ONES}", "2001:db8::/32"), ("2001:db9::", None),
    ("2606:2800:220:1:248:1893:25c8:1946", None),
    (f"3ffe:ffff:{ALL_ONES}", None), ("3fff::", "3fff::/20"),
    (f"3fff:fff:{ALL_ONES}", "3fff::/20"), ("3fff:1000::", None),
    (f"3fff:ffff:{ALL_ONES}", None), ("4000::", "4000::/2"),
    (f"5eff:ffff:{ALL_ONES}", "4000::/2"), ("5f00::", "5f00::/16"),
    (f"5f00:ffff:{ALL_ONES}", "5f00::/16"), ("5f01::", "4000::/2"),
    (f"7fff:ffff:{ALL_ONES}", "4000::/2"), ("8000::", "8000::/1"),
    (f"fbff:ffff:{ALL_ONES}", "8000::/1"), ("fc00::", "fc00::/7"),
    (f"fdff:ffff:{ALL_ONES}", "fc00::/7"), ("fe00::", "8000::/1"),
    (f"fe7f:ffff:{ALL_ONES}", "8000::/1"), ("fe80::", "fe80::/10"),
    (f"febf:ffff:{ALL_ONES}", "fe80::/10"), ("fec0::", "fec0::/10"),
    (f"feff:ffff:{ALL_ONES}", "fec0::/10"), ("ff00::", "ff00::/8"),
    (f"ffff:ffff:{ALL_ONES}", "ff00::/8"),
]

# IPv6 that carries IPv4: (address, the range named in the refusal, or None: it passes).
# A carried address that is blocked names the IPv4 range; a routable prefix carrying a
# public address passes; the others name their own prefix.
EMBEDDED = [
    # IPv4-mapped ::ffff:0:0/96 (the address itself, on a dual-stack socket)
    ("::fffe:ffff:ffff", "::/3"), ("::ffff:0.0.0.0", "0.0.0.0/8"),
    ("::ffff:1.0.0.0", None), ("::ffff:127.0.0.1", "127.0.0.0/8"),
    ("::ffff:7f00:1", "127.0.0.0/8"), ("::ffff:169.254.169.254", "169.254.0.0/16"),
    ("::ffff:10.0.0.1", "10.0.0.0/8"), ("::ffff:172.20.0.1", "172.16.0.0/12"),
    ("::ffff:100.64.0.1", "100.64.0.0/10"), ("::ffff:8.8.8.8", None),
    ("::ffff:223.255.255.255", None), ("::ffff:255.255.255.255", "255.255.255.255/32"),
    ("::1:0:0:0", "::/3"),
    # IPv4-translated ::ffff:0:0:0/96 (SIIT, not routed here)
    ("::fffe:ffff:ffff:ffff", "::/3"), ("::ffff:0:0:0", "0.0.0.0/8"),
    ("::ffff:0:127.0.0.1", "127.0.0.0/8"), ("::ffff:0:a9fe:a9fe", "169.254.0.0/16"),
    ("::ffff:0:8.8.8.8", "::ffff:0:0:0/96"), ("::ffff:0:dfff:ffff", "::ffff:0:0:0/96"),
    ("::ffff:1:0:0", "::/3"),
    # IPv4-compatible ::/96 (deprecated): blocked whole, whatever it carries
    ("::8.8.8.8", "::/96"), ("::127.0.0.1", "::/96"),
    # NAT64, the well-known prefix 64:ff9b::/96 (RFC 6052)
    (f"64:ff9a:{ALL_ONES}", "::/3"), ("64:ff9b::", "0.0.0.0/8"),
    ("64:ff9b::7f00:1", "127.0.0.0/8"), ("64:ff9b::a9fe:a9fe", "169.254.0.0/16"),
    ("64:ff9b::c0a8:1", "192.168.0.0/16"), ("64:ff9b::6440:1", "100.64.0.0/10"),
    ("64:ff9b::808:808", None), ("64:ff9b::dfff:ffff", None),
    ("64:ff9b::ffff:ffff", "255.255.255.255/32"), ("64:ff9b::1:0:0", "::/3"),
    # NAT64, local use 64:ff9b:1::/48 (RFC 8215: not globally reachable)
    ("64:ff9b:0:ffff:ffff:ffff:ffff:ffff", "::/3"), ("64:ff9b:1::808:808", "64:ff9b:1::/48"),
    ("64:ff9b:1::a00:1", "10.0.0.0/8"),
    ("64:ff9b:1:ffff:ffff:ffff:808:808", "64:ff9b:1::/48"), ("64:ff9b:2::", "::/3"),
    # 6to4 2002::/16: the IPv4 is bits 16-47, the rest is the site's own
    (f"2001:ffff:{ALL_ONES}", None), ("2002::", "0.0.0.0/8"),
    ("2002:7f00:1::", "127.0.0.0/8"), ("2002:a9fe:a9fe::1", "169.254.0.0/16"),
    ("2002:c0a8:101:1::1", "192.168.0.0/16"), ("2002:c058:6301::", "192.88.99.0/24"),
    ("2002:808:808::1", None), ("2002:808:808:ffff:ffff:ffff:ffff:ffff", None),
    ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "255.255.255.255/32"), ("2003::", None),
    # Teredo 2001::/32: the server's IPv4 in bits 32-63, the client's inverted in the last 32
    ("2001::", "0.0.0.0/8"), ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", None),
    ("2001:0:7f00:1:8000:63bf:f7f7:f7f7", "127.0.0.0/8"),
    ("2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7", "169.254.0.0/16"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.0/8"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.0/8"),
    ("2001:0:4136:e378:8000:63bf:5601:5601", "169.254.0.0/16"),
    ("2001:0:dfff:ffff:ffff:ffff:f7f7:f7f7", None),
    ("2001:0:ffff:ffff:ffff:ffff:f7f7:f7f7", "255.255.255.255/32"),
]


def reason_of(policy: UrlPolicy, address: str) -> str | None:
    """The refusal of ``http://<address>:8080/`` through the whole URL check, or None."""
    host = f"[{address}]" if ":" in address else address
    try:
        policy.check(f"http://{host}:8080/")
    except BlockedUrl as exc:
        return str(exc)
    return None


def assert_judged(policy: UrlPolicy, address: str, blocked_by: str | None) -> None:
    reason = reason_of(policy, address)
    if blocked_by is None:
        assert reason is None, reason
    else:
        assert reason is not None and f"({blocked_by}: " in reason, reason


@pytest.mark.parametrize("address, blocked_by", IPV4)
def test_ipv4_ranges_at_their_boundaries(address, blocked_by):
    assert_judged(UrlPolicy(), address, blocked_by)


@pytest.mark.parametrize("address, blocked_by", IPV6)
def test_ipv6_ranges_at_their_boundaries(address, blocked_by):
    assert_judged(UrlPolicy(), address, blocked_by)


@pytest.mark.parametrize("address, blocked_by", EMBEDDED)
def test_ipv6_carrying_ipv4_is_judged_by_the_ipv4_inside(address, blocked_by):
    assert_judged(UrlPolicy(), address, blocked_by)


def test_a_refusal_names_the_carried_address():
    reason = reason_of(UrlPolicy(), "2001:0:4136:e378:8000:63bf:80ff:fffe")
    assert reason is not None and "(Teredo) carries 127.0.0.1" in reason


def test_a_scope_is_no_way_around_a_range():
    assert_judged(UrlPolicy(), "fe80::1%eth0", "fe80::/10")
    assert_judged(UrlPolicy(), "::ffff:127.0.0.1%1", "127.0.0.0/8")


# -- the operator's allowed networks --------------------------------------------------------

LOOPBACK_ALLOWED = [
    ("127.0.0.1", None),
    ("::ffff:127.0.0.1", None),          # the same address: allowed with it
    ("64:ff9b::7f00:1", None),           # judged by the carried address, like every form
    ("2002:7f00:1::", None),
    ("::ffff:0:127.0.0.1", "::ffff:0:0:0/96"),  # translated: its own range still blocks it
    ("64:ff9b:1::7f00:1", "64:ff9b:1::/48"),
    ("::127.0.0.1", "::/96"),
    ("::7f00:2", "::/96"),               # an IPv6 integer inside 127/8 is no IPv4 address
    ("::1", "::1/128"),
    ("::ffff:10.0.0.1", "10.0.0.0/8"),
    ("169.254.169.254", "169.254.0.0/16"),
]


@pytest.mark.parametrize("address, blocked_by", LOOPBACK_ALLOWED)
def test_allowing_loopback_opens_it_in_every_form_that_reaches_it(address, blocked_by):
    assert_judged(UrlPolicy(parse_networks("127.0.0.0/8")), address, blocked_by)


def test_allowing_an_ipv6_prefix_never_opens_a_blocked_address_it_carries():
    """An operator with a local NAT64 allows its prefix: public addresses behind it pass, the
    cloud's metadata address does not; allowing the mapped prefix does not open loopback."""
    local = UrlPolicy(parse_networks("64:ff9b:1::/48, ::ffff:0:0:0/96"))
    assert_judged(local, "64:ff9b:1::808:808", None)
    assert_judged(local, "::ffff:0:808:808", None)
    assert_judged(local, "64:ff9b:1::a9fe:a9fe", "169.254.0.0/16")
    assert_judged(local, "::ffff:0:a00:1", "10.0.0.0/8")
    everything = UrlPolicy(parse_networks("::/0"))
    assert_judged(everything, "fe80::1", None)
    assert_judged(everything, "::ffff:127.0.0.1", "127.0.0.0/8")
    assert_judged(everything, "2002:a9fe:a9fe::", "169.254.0.0/16")
    assert_judged(everything, "2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.0/8")


def test_a_name_resolving_to_an_ipv4_carrying_form_is_judged_the_same():
    def resolve(host: str, port: int) -> list[str]:
        return {"nat64.example": ["64:ff9b::808:808"],
                "meta.example": ["64:ff9b::808:808", "64:ff9b::a9fe:a9fe"],
                "tunnel.example": ["2002:a00:1::1"]}[host]

    policy = UrlPolicy(resolver=resolve)
    assert policy.check("http://nat64.example/")[2] == ["64:ff9b::808:808"]
    for name, range_ in (("meta.example", "169.254.0.0/16"), ("tunnel.example", "10.0.0.0/8")):
        with pytest.raises(BlockedUrl, match=f"{name} resolves to .*\\({range_}: "):
            policy.check(f"http://{name}/")
