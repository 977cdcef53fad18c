"""Service fixtures: an app on its own database, owners with tokens, real loopback bots.

The apps here allow 127.0.0.0/8 (the bots run on loopback) and use a :class:`NoDispatcher`,
so a test decides when matches are played (:func:`drain` runs them with the real runner).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from api.config import ServiceConfig
from bots.server import BotApp, BotServer

from support.apps import NoDispatcher, prepared_app
from support.ladder_db import (  # noqa: F401 (fixtures)
    db_url, empty_db_url, pg_admin, pg_head_template, pg_head_url, pg_session_prefix, pg_url,
    sqlite_head_template, sqlite_head_url,
)


class Client:
    """A Flask test client bound to one app, with a token when given one."""

    def __init__(self, app: Any, token: str | None = None) -> None:
        self.app, self.token = app, token
        self.http = app.test_client()

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        out = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**out, **(extra or {})}

    def get(self, path: str, **kw: Any) -> Any:
        return self.http.get(path, headers=self.headers(kw.pop("headers", None)), **kw)

    def post(self, path: str, json: Any = None, **kw: Any) -> Any:
        return self.http.post(path, json=json, headers=self.headers(kw.pop("headers", None)),
                              **kw)

    def patch(self, path: str, json: Any = None, **kw: Any) -> Any:
        return self.http.patch(path, json=json, headers=self.headers(kw.pop("headers", None)),
                               **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.http.delete(path, headers=self.headers(kw.pop("headers", None)), **kw)

    def owner(self, name: str) -> Client:
        answer = self.http.post("/api/v1/owners", json={"name": name})
        assert answer.status_code == 201, answer.json
        return Client(self.app, answer.json["token"])


@contextmanager
def services(folder: Path, sqlite_head: Path) -> Iterator[Callable[..., Any]]:
    """``make(url=None, **settings)``: an app on ``url``, a database at the head revision
    (``db_url``, ``pg_head_url``), or on a new SQLite file in ``folder``, prepared as a server
    prepares it (the house bots are ids 1-3); their engines are disposed of on leaving."""
    apps: list[Any] = []

    def make(url: str | None = None, **settings: Any) -> Any:
        if url is None:
            url = sqlite_head_url(sqlite_head, folder / f"svc{len(apps)}.sqlite3")
        config = ServiceConfig(db_url=url, ratelimit=settings.pop("ratelimit", False),
                               allow_networks=settings.pop("allow_networks", "127.0.0.0/8"),
                               **settings)
        app = prepared_app(config, dispatcher=NoDispatcher())
        apps.append(app)
        return app

    try:
        yield make
    finally:
        for app in apps:
            app.extensions["referee"].engine.dispose()


@pytest.fixture
def make_service(tmp_path: Path, sqlite_head_template: Path) -> Iterator[Callable[..., Any]]:
    with services(tmp_path, sqlite_head_template) as make:
        yield make


@pytest.fixture
def app(make_service: Callable[..., Any]) -> Any:
    return make_service()


@pytest.fixture
def anon(app: Any) -> Client:
    return Client(app)


def fast_bot(engine: Any, name: str = "random-b") -> int:
    """A second built-in random bot (a CLI-style bot row), so matches need no slow bot."""
    from sqlalchemy import select

    from ladder.identity import claim_names
    from ladder.models import Bot

    claim_names(engine, {name: "random"})
    with engine.connect() as conn:
        return int(conn.execute(select(Bot.id).where(Bot.name == name)).scalar_one())


def drain(app: Any) -> list[str]:
    """Play every match the app has scheduled so far, with the real runner; the last outcome
    of each (a match the referee failed is played again, as a worker would, until it is
    finished or voided)."""
    from api.runner import run_match

    svc = app.extensions["referee"]
    sent, svc.dispatcher.sent = list(svc.dispatcher.sent), []
    outcomes = []
    for pk in sent:
        outcome = "retry"
        while outcome == "retry":
            outcome = run_match(svc.engine, pk, svc.policy, lease_s=30)
        outcomes.append(outcome)
    return outcomes


def drain_checks(app: Any) -> list[str]:
    """Run every check the app has queued so far, with the real runner; outcomes."""
    from api.execution import run_check

    svc = app.extensions["referee"]
    sent, svc.dispatcher.checks = list(svc.dispatcher.checks), []
    return [run_check(svc.engine, check_id, svc.policy, lease_s=30) for check_id in sent]


def checked(client: Client, bot_id: int, query: str = "") -> Any:
    """``POST /bots/{id}/check``, the check run by a worker, then its final state: what the
    old synchronous check answered (its report) is the resource's ``report``."""
    asked = client.post(f"/api/v1/bots/{bot_id}/check{query}")
    assert asked.status_code == 202, asked.json
    assert drain_checks(client.app) == ["done"]
    return client.get(asked.headers["Location"]).json


@pytest.fixture(scope="session")
def bot_url() -> Iterator[str]:
    """A real HTTP bot (the built-in random bot) on loopback, for every game."""
    server = BotServer(BotApp("random", None, 7)).start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def second_bot_url() -> Iterator[str]:
    server = BotServer(BotApp("greedy", None, 8)).start()
    yield server.url
    server.stop()
