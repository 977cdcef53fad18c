"""A small service for the owner-page tests, fresh for each test (they change it): two owners
with tokens, alice's bots in each state a ladder entry can be in, bob's bot, the house bots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api import create_app
from api.config import ServiceConfig
from ladder import matchmaking, registry
from ladder.accounts import create_owner
from ladder.health import FAILED_PROBES_TO_PAUSE, ProbeOutcome, record_probe

from pages_support import csrf_of
from support.apps import NoDispatcher, prepared_app

HEALTH_PAUSE = "health: 3 failed probes in a row"


@dataclass
class Home:
    app: Any
    dispatcher: NoDispatcher
    tokens: dict[str, str] = field(default_factory=dict)
    owners: dict[str, int] = field(default_factory=dict)
    bots: dict[str, int] = field(default_factory=dict)

    @property
    def engine(self) -> Any:
        return self.app.extensions["referee"].engine

    def logged_in(self, owner: str) -> Any:
        client = self.app.test_client()
        form = client.get("/login").get_data(as_text=True)
        answer = client.post("/login", data={"token": self.tokens[owner],
                                             "csrf": csrf_of(form)})
        assert answer.status_code == 303
        return client

    def entry(self, bot: str, game: str = "tokaido-duo") -> dict[str, Any]:
        return registry.ladder_entries(self.engine, self.bots[bot], game)[0]


def make_home(url: str, *, ratelimit: bool = False) -> Home:
    """alice: ``kite`` (new: in placement), ``owl`` (paused by the health rules), ``hawk``
    (paused by alice), ``emu`` (left the ladder); bob: ``badger`` (on the ladder)."""
    dispatcher = NoDispatcher()
    app = prepared_app(ServiceConfig(db_url=url, ratelimit=ratelimit), dispatcher=dispatcher)
    home = Home(app, dispatcher)
    engine = home.engine
    for name in ("alice", "bob"):
        made, token = create_owner(engine, name)
        home.owners[name], home.tokens[name] = made["id"], token
    for name, owner in [("kite", "alice"), ("owl", "alice"), ("hawk", "alice"),
                        ("emu", "alice"), ("badger", "bob")]:
        bot_id = registry.register_bot(
            engine, home.owners[owner], name=name, url=f"https://{name}.example.org",
            games=["tokaido-duo"], description="", status="active", nonce="n" + name)
        home.bots[name] = bot_id
        matchmaking.join(engine, bot_id, "tokaido-duo")
    for _ in range(FAILED_PROBES_TO_PAUSE):  # the health rules pause it, with an alert
        record_probe(engine, home.bots["owl"], ProbeOutcome(False, None, "timeout",
                                                            "no answer in 5 s"))
    registry.set_owner_pause(engine, home.bots["hawk"], "tokaido-duo", True)
    matchmaking.leave(engine, home.bots["emu"], "tokaido-duo")
    return home


def reopen(home: Home, url: str, *, ratelimit: bool = False) -> Home:
    """``home``'s owners and bots on a copy of its database at ``url``, served by an app of
    its own (building one is cheap; preparing a database is not)."""
    from ladder.db import make_engine

    dispatcher = NoDispatcher()
    app = create_app(ServiceConfig(db_url=url, ratelimit=ratelimit), engine=make_engine(url),
                     dispatcher=dispatcher)
    return Home(app, dispatcher, dict(home.tokens), dict(home.owners), dict(home.bots))
