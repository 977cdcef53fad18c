"""The service's settings: from ``referee serve`` options, environment variables, or a test.

Environment: ``REFEREE_DB`` (database URL), ``REFEREE_BROKER`` (Celery broker; none means the
embedded in-process pool), ``REFEREE_QUEUE`` (Celery queue name), ``REFEREE_RATELIMIT_STORAGE``
(Flask-Limiter storage URI; default: the broker if it is Redis, else memory; while it is
unreachable the limits are counted in each process's memory), ``REFEREE_TRUSTED_PROXIES``
(how many proxies in front set ``X-Forwarded-For``; default 0: the peer's address is the
client's, and the header is ignored),
``REFEREE_ALLOW_NETWORKS`` (ranges bot URLs may reach despite the SSRF policy),
``REFEREE_BOT_PORTS`` (the ports bot URLs may use, comma-separated ports and ranges; default
``80,443,1024-65535``, so never ssh's 22 or smtp's 25; empty: the default),
``REFEREE_RATELIMIT`` (``0``: no rate limits, e.g. behind a proxy that limits, or for a
benchmark), ``REFEREE_OWNERSHIP_PROOF`` (``1``: a bot's ``GET /`` must echo its nonce before it
plays; ``0``: it need not; unset: on unless ``REFEREE_ALLOW_NETWORKS`` opens ranges, a local or
LAN service),
``REFEREE_LEASE_S`` (a running match's lease), ``REFEREE_SWEEP_S`` (how often the sweeper
runs), ``REFEREE_REQUEUE_AFTER_S``, ``REFEREE_MAX_MATCH_S`` (the age cap of a match),
``REFEREE_HEALTH_S`` (how often the health tick runs), ``REFEREE_PROBE_INTERVAL_S`` (how often
each bot is probed),
``REFEREE_SECRET_KEY`` (signs the pages' session cookie; without it a random key per start,
so a restart logs everyone out), ``REFEREE_SECURE_COOKIES`` (``1``: the session cookie only
over HTTPS), ``REFEREE_TICK_S`` (how often the matchmaker runs), ``REFEREE_LADDER_DEPTH``
(ladder matches in flight at most), ``REFEREE_DAILY_CAP`` (rated matches per bot and game a
day), ``REFEREE_HOUSE_LADDERS`` (the house bots that join every living ladder an owner's bot
is on, comma-separated; default ``random,greedy``; empty: none),
``REFEREE_METRICS_TOKEN`` (a bearer token that opens ``/metrics`` from anywhere; without it,
only loopback and ``REFEREE_METRICS_NETWORKS`` may read it), ``REFEREE_METRICS_NETWORKS``
(ranges, comma-separated, that may read ``/metrics`` without the token),
``REFEREE_ANSWER_FRESH_S`` (how long a web process takes the data behind public reads as
current, default 1 s; 0: every anonymous read asks the database), ``REFEREE_LIST_FRESH_S``
(the same for the lists of matches and results, default 5 s).
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from referee.netpolicy import (
    DEFAULT_PORTS, Network, PortRanges, Resolver, UrlPolicy, env_ports, parse_networks,
    system_resolver,
)

if TYPE_CHECKING:  # the ladder's modules load when a runner asks for them, not with the config
    from ladder.matchmaking import MatchmakerConfig
    from ladder.work import SweepPolicy


ANSWER_MAX_AGE_S = 5
"""How long a browser or a shared cache may reuse an anonymous public answer (``max-age``)."""
ANSWER_FRESH_S = 1.0
"""A web process's default freshness window for the data behind public reads of one match,
one bot or the ladder (see :mod:`api.caching`)."""
LIST_FRESH_S = 5.0
"""Its default for the lists of matches and results, which move with every match that
starts or ends (the browsers' own ``max-age``)."""


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        return float(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None


def _count(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} must be a whole number, 0 or more, not {raw!r}")
    return int(raw)


def _fresh_s(name: str, default: float) -> float:
    """A freshness window: seconds, 0 up to the answers' ``max-age`` (a browser may already
    reuse them that long; longer would serve older data than the headers promise)."""
    value = _env_float(name, default)
    if not 0 <= value <= ANSWER_MAX_AGE_S:
        raise ValueError(f"{name} must be 0 to {ANSWER_MAX_AGE_S} seconds, not {value:g}")
    return value


def _switch(name: str) -> bool | None:
    """An on/off variable: None when unset or empty (the default applies)."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return None
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (on or off), not {raw!r}")


def _names(raw: str) -> tuple[str, ...]:
    """A comma-separated list of house bots; ValueError naming one that is not a house bot."""
    from ladder.registry import HOUSE_BOTS

    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    unknown = [n for n in names if n not in HOUSE_BOTS]
    if unknown:
        raise ValueError(f"REFEREE_HOUSE_LADDERS: {', '.join(unknown)} is not a house bot "
                         f"({', '.join(HOUSE_BOTS)})")
    return names


@dataclass(frozen=True)
class ServiceConfig:
    db_url: str | None = None
    broker_url: str | None = None
    queue: str = "referee"
    ratelimit: bool = True
    ratelimit_storage: str | None = None
    trusted_proxies: int = 0
    """Proxies in front that append the client's address to ``X-Forwarded-For``: the
    address is read that many entries from the right.  0 (no proxy): the header is ignored,
    since any client could write it and so pick its own rate-limit bucket."""
    allow_networks: str = ""
    bot_ports: PortRanges = DEFAULT_PORTS
    """The ports bot URLs may use (:func:`referee.netpolicy.parse_ports` reads the setting)."""
    ownership_proof: bool | None = None
    """A bot must echo its nonce in ``GET /`` before it plays: True, False, or None for the
    default, :attr:`proves_ownership`."""
    workers: int = 2
    """Embedded mode: threads playing matches in the server's process."""
    lease_s: float = 60.0
    sweep_s: float = 30.0
    requeue_after_s: float = 120.0
    max_match_s: float = 3600.0
    health_s: float = 60.0
    """How often the health tick runs (it probes only the bots that are due)."""
    probe_interval_s: float = 1800.0
    """How often each entrant bot is probed (``GET /`` and one decision)."""
    resolver: Resolver = field(default=system_resolver, compare=False)
    secret_key: str | None = field(default=None, repr=False)
    """Signs the pages' session cookie; every server process of a service needs the same."""
    secure_cookies: bool = False
    tick_s: float = 20.0
    """How often ``referee beat`` (or the embedded ticker) runs the matchmaker."""
    ladder_depth: int = 0
    """Ladder matches in flight at most (0: the matchmaker's default with a broker, the match
    threads embedded; see :meth:`matchmaker`)."""
    daily_cap: int = 200
    """Rated matches a bot is given per game in 24 hours."""
    house_ladders: tuple[str, ...] = ("random", "greedy")
    """House bots that join each living ladder an owner's bot is on (at start and when an
    owner's bot joins): a lone author's bot has opponents.  Not ``mcts`` by default: its
    search costs a worker CPU second per decision."""
    metrics_token: str | None = field(default=None, repr=False)
    """A bearer token that opens ``/metrics`` (and a worker's metrics port) from anywhere."""
    metrics_networks: str = ""
    """Ranges that may read the metrics without the token (loopback always may)."""
    answer_fresh_s: float = 0.0
    """How long a web process takes a public read's data fingerprint as current
    (:data:`api.caching.FRESH_S`): 0, every anonymous read asks the database (a config built
    in code: a test reads what it just wrote); ``REFEREE_ANSWER_FRESH_S``, default 1 s."""
    list_fresh_s: float = 0.0
    """The same for the lists of matches and results (``REFEREE_LIST_FRESH_S``, default 5 s):
    they move with every match that starts or ends, so with a shorter window nearly every
    read of them would be built again, in each web process."""

    @classmethod
    def from_env(cls, **overrides: Any) -> ServiceConfig:
        env = os.environ
        config = cls(
            db_url=env.get("REFEREE_DB") or None,
            broker_url=env.get("REFEREE_BROKER") or None,
            queue=env.get("REFEREE_QUEUE") or "referee",
            ratelimit=env.get("REFEREE_RATELIMIT", "1").strip().lower() not in ("0", "false",
                                                                              "no", "off"),
            ratelimit_storage=env.get("REFEREE_RATELIMIT_STORAGE") or None,
            trusted_proxies=_count("REFEREE_TRUSTED_PROXIES", 0),
            allow_networks=env.get("REFEREE_ALLOW_NETWORKS", ""),
            bot_ports=env_ports(env),
            ownership_proof=_switch("REFEREE_OWNERSHIP_PROOF"),
            lease_s=_env_float("REFEREE_LEASE_S", 60.0),
            sweep_s=_env_float("REFEREE_SWEEP_S", 30.0),
            requeue_after_s=_env_float("REFEREE_REQUEUE_AFTER_S", 120.0),
            max_match_s=_env_float("REFEREE_MAX_MATCH_S", 3600.0),
            health_s=_env_float("REFEREE_HEALTH_S", 60.0),
            probe_interval_s=_env_float("REFEREE_PROBE_INTERVAL_S", 1800.0),
            secret_key=env.get("REFEREE_SECRET_KEY") or None,
            secure_cookies=env.get("REFEREE_SECURE_COOKIES", "") in ("1", "true", "yes"),
            tick_s=_env_float("REFEREE_TICK_S", 20.0),
            ladder_depth=int(_env_float("REFEREE_LADDER_DEPTH", 0)),
            daily_cap=int(_env_float("REFEREE_DAILY_CAP", 200)),
            house_ladders=_names(env.get("REFEREE_HOUSE_LADDERS", "random,greedy")),
            metrics_token=env.get("REFEREE_METRICS_TOKEN", "").strip() or None,
            metrics_networks=env.get("REFEREE_METRICS_NETWORKS", ""),
            answer_fresh_s=_fresh_s("REFEREE_ANSWER_FRESH_S", ANSWER_FRESH_S),
            list_fresh_s=_fresh_s("REFEREE_LIST_FRESH_S", LIST_FRESH_S),
        )
        config.metrics_nets()  # a bad range is refused at start, not at the first scrape
        return replace(config, **{k: v for k, v in overrides.items() if v is not None})

    @property
    def proves_ownership(self) -> bool:
        """Whether bots must prove their URL is theirs: as set, else on for a service whose
        bots must be on public addresses (no ``allow_networks``).  A service that opens
        private ranges is a laptop or a LAN, whose owners are known; a public one could be
        aimed at a stranger's server by registering its URL."""
        if self.ownership_proof is not None:
            return self.ownership_proof
        return not self.allow_networks.strip()

    def matchmaker(self, *, embedded: bool | None = None) -> MatchmakerConfig:
        """The matchmaker's settings.  The depth is ``ladder_depth`` when set; else the match
        threads of an ``embedded`` pool (by default: a service without a broker), or the
        matchmaker's default for a broker's workers (which ``referee ladder tick`` also
        ticks for)."""
        from ladder.matchmaking import DEFAULT_DEPTH, MatchmakerConfig

        if embedded is None:
            embedded = not self.broker_url
        depth = self.ladder_depth or (self.workers if embedded else DEFAULT_DEPTH)
        return MatchmakerConfig(depth=depth, daily_cap=self.daily_cap)

    def sweep_policy(self) -> SweepPolicy:
        """The sweeper's policy (requeue after, age cap), the same in every runner."""
        from ladder.work import SweepPolicy

        return SweepPolicy(self.requeue_after_s, self.max_match_s)

    def metrics_nets(self) -> list[Network]:
        """The ranges of ``metrics_networks``; ValueError naming the setting and the entry."""
        nets: list[Network] = []
        for item in filter(None, (part.strip() for part in self.metrics_networks.split(","))):
            try:
                nets.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"REFEREE_METRICS_NETWORKS: {item!r} is not a network "
                                 "(e.g. 10.0.0.0/8)") from None
        return nets

    def policy(self) -> UrlPolicy:
        return UrlPolicy(parse_networks(self.allow_networks), self.resolver, self.bot_ports)

    def limiter_storage(self) -> str:
        if self.ratelimit_storage:
            return self.ratelimit_storage
        if self.broker_url and self.broker_url.startswith(("redis://", "rediss://")):
            return self.broker_url
        return "memory://"

    def limiter_storage_options(self) -> dict[str, Any]:
        """Short socket timeouts for a Redis storage: when it hangs, a request waits a
        second, not the kernel's minutes, before the limiter counts in memory instead."""
        if self.limiter_storage().startswith(("redis://", "rediss://")):
            return {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
        return {}
