"""A small ladder for the page tests, built through the real paths of the service.

Rated service matches go through the work queue's own state machine (``schedule``, ``claim``,
``finish``), played in-process by bots that write ``log`` lines and earn real strikes; CLI
matches through ``record_match``.  The ladder holds owners with tokens, a house bot, a paused
bot, a bot whose name and description are hostile HTML, two ladder rounds, probes, a running
match, a voided one, and a Tokaido Duo pair with one game still to play (its log is withheld).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, update

from api.config import ServiceConfig
from arena import Seat, make_player
from ladder import registry
from ladder.accounts import create_owner, now_utc
from ladder.identity import claim_names
from ladder.models import PAUSED, Bot, Round
from ladder.store import record_match
from ladder.work import claim, finish, schedule, void
from referee.core import Decision
from referee.games import find_game
from referee.match import play
from referee.players import Bot as InProcessBot, InProcessPlayer

from support.apps import NoDispatcher, prepared_app

HOSTILE = '<script>alert("pwned")</script>&amp;'
HOSTILE_TEXT = '<img src=x onerror="alert(1)"> & <b>bold</b>'


class Chatty(InProcessBot):
    """Random, with a ``log`` line on every answer; ``bad`` of its answers name an option that
    was not offered (a real ``unknown_option`` strike each)."""

    timed = False

    def __init__(self, seed: int, bad: int = 0) -> None:
        self.rng = random.Random(seed)
        self.bad = bad

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> tuple[str, str]:
        if self.bad:
            self.bad -= 1
            return "not-an-option", "trying something silly"
        choice = self.rng.choice(decision.options)
        return choice.id, f"<{decision.kind}> took {choice.id} & moved on"


@dataclass
class Ladder:
    """What the tests look for."""

    tokens: dict[str, str] = field(default_factory=dict)
    owners: dict[str, int] = field(default_factory=dict)
    bots: dict[str, int] = field(default_factory=dict)
    rated: list[int] = field(default_factory=list)
    doubletrack: list[int] = field(default_factory=list)
    running: int = 0
    voided: int = 0
    withheld: int = 0
    pair_done: int = 0
    rounds: list[int] = field(default_factory=list)
    chatty_match: int = 0


def players_for(names: Sequence[str], game: str, seed: int, chatty: Mapping[str, int]
                ) -> list[Any]:
    """In-process players: ``chatty`` names (with their bad-answer counts) as :class:`Chatty`,
    the rest as the built-in bot their name says (random or greedy)."""
    out: list[Any] = []
    for seat, name in enumerate(names):
        if name in chatty:
            out.append(InProcessPlayer(name=name, bot=Chatty(seed + seat, chatty[name])))
        else:
            kind = "greedy" if "greedy" in name else "random"
            out.append(make_player(Seat(kind), game, seed + seat, 0))
    return out


def service_match(engine: Any, game: str, bot_ids: Sequence[int], names: Sequence[str],
                  seed: int, *, rated: bool = True, round_id: int | None = None,
                  chatty: Mapping[str, int] | None = None, pair_key: str | None = None,
                  settle: bool = True) -> int:
    """A match scheduled, claimed and (when ``settle``) finished as a worker would."""
    [pk] = schedule(engine, game, [(list(bot_ids), seed, pair_key)], rated=rated,
                    round_id=round_id)
    held = claim(engine, pk, "test-worker", 60)
    assert held is not None
    if settle:
        log = play(find_game(game), players_for(names, game, seed, chatty or {}), seed,
                   match_id=held.attempt_id).log
        assert finish(engine, held, log)
    return pk


def build_ladder(app: Any) -> Ladder:
    svc = app.extensions["referee"]
    engine = svc.engine
    out = Ladder()
    for name in ("alice", "bob"):
        owner, token = create_owner(engine, name)
        out.owners[name], out.tokens[name] = owner["id"], token
    out.bots.update({"random": 1, "greedy": 2})
    for name, owner, games, text in [
            ("alice-bot", "alice", ["tokaido-duo", "doubletrack"], HOSTILE_TEXT),
            ("bob-greedy", "bob", ["tokaido-duo"], "plays greedily"),
            ("sleepy", "bob", ["tokaido-duo"], "")]:
        out.bots[name] = registry.register_bot(
            engine, out.owners[owner], name=name, url=f"https://{name}.example.org",
            games=games, description=text, status="active", nonce="n" + name)
    with engine.begin() as conn:
        conn.execute(update(Bot).where(Bot.id == out.bots["sleepy"]).values(status=PAUSED))
        out.rounds = [conn.execute(insert(Round).values(
            game="tokaido-duo", number=n, opened_at=now_utc(), eligible=[]).returning(Round.id)
        ).scalar_one() for n in (1, 2)]
    for ok, ms, status in [(True, 31.0, "ok"), (False, None, "timeout"), (True, 44.0, "ok")]:
        registry.record_health(engine, out.bots["alice-bot"], ok, ms, status,
                               "GET / probe" if ok else "no answer in 5 s")
    _duo_matches(engine, out)
    _doubletrack_matches(engine, out)
    return out


def _duo_matches(engine: Any, out: Ladder) -> None:
    b = out.bots
    opponents = ["bob-greedy", "random", "sleepy", "greedy"]
    for n in range(14):
        other = opponents[n % len(opponents)]
        names = ["alice-bot", other] if n % 2 == 0 else [other, "alice-bot"]
        chatty = {"alice-bot": 1 if n in (3, 7) else 0}
        pk = service_match(engine, "tokaido-duo", [b[x] for x in names], names, 100 + n,
                           round_id=out.rounds[n // 7], chatty=chatty)
        out.rated.append(pk)
        if n == 5:
            out.chatty_match = pk
    # bob-greedy against the house bots, so that it is ranked too
    for n in range(8):
        names = ["bob-greedy", "random"] if n % 2 else ["greedy", "bob-greedy"]
        out.rated.append(service_match(engine, "tokaido-duo", [b[x] for x in names], names,
                                       300 + n))
    out.running = service_match(engine, "tokaido-duo", [b["alice-bot"], b["random"]],
                                ["alice-bot", "random"], 500, settle=False)
    [out.voided] = schedule(engine, "tokaido-duo", [([b["bob-greedy"], b["random"]], 501, None)],
                            rated=True)
    assert void(engine, out.voided, "bot unreachable at /start")
    pair = ["alice-bot", "bob-greedy"]
    out.pair_done = service_match(engine, "tokaido-duo", [b[x] for x in pair], pair, 600,
                                  rated=False, pair_key="c9.0")
    [out.withheld] = schedule(engine, "tokaido-duo", [([b["bob-greedy"], b["alice-bot"]], 600,
                                                       "c9.0")], rated=False)


def _doubletrack_matches(engine: Any, out: Ladder) -> None:
    """CLI-recorded tables, one bot named with hostile HTML."""
    claim_names(engine, {HOSTILE: "random", "dt-greedy": "greedy", "dt-random": "random"})
    game = find_game("doubletrack")
    for n in range(12):
        names = [HOSTILE, "dt-greedy", "dt-random"] + (["alice-table"] if n % 3 == 0 else [])
        random.Random(n).shuffle(names)
        players = players_for(names, "doubletrack", 700 + n, {})
        log = play(game, players, 700 + n, match_id=f"dt-{n}").log
        record_match(engine, log, bots=dict(enumerate(names)))
    for name in (HOSTILE, "dt-greedy", "dt-random", "alice-table"):
        out.bots[name] = _bot_id(engine, name)


def _bot_id(engine: Any, name: str) -> int:
    from sqlalchemy import select

    with engine.connect() as conn:
        return int(conn.execute(select(Bot.id).where(Bot.name == name)).scalar_one())


# -- a site over the ladder -------------------------------------------------------------------

@dataclass
class Site:
    app: Any
    ladder: Ladder

    @property
    def engine(self) -> Any:
        return self.app.extensions["referee"].engine

    def client(self) -> Any:
        return self.app.test_client()

    def logged_in(self, owner: str) -> Any:
        """A client with a page session of ``owner`` (through the login form)."""
        client = self.app.test_client()
        form = client.get("/login")
        assert form.status_code == 200
        answer = client.post("/login", data={"token": self.ladder.tokens[owner],
                                             "csrf": csrf_of(form.get_data(as_text=True))})
        assert answer.status_code == 303, answer.get_data(as_text=True)
        return client


def csrf_of(html: str) -> str:
    import re

    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field in the form"
    return found.group(1)


def make_site(url: str) -> Site:
    if url.startswith("postgresql"):
        from ladder.db import make_engine, migrate

        engine = make_engine(url)
        migrate(engine)
        engine.dispose()
    app = prepared_app(ServiceConfig(db_url=url, ratelimit=False), dispatcher=NoDispatcher())
    return Site(app, build_ladder(app))
