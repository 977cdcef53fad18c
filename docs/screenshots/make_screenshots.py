"""Regenerate the screenshots in this folder: three moments of a match of each game in the
viewer (and one of them on a phone), and the service's leaderboard, a bot's page, a paused
bot's page and an owner's home (``/me``, logged in) on a wide screen and on a phone, and a solo
ladder's board.

    python docs/screenshots/make_screenshots.py [viewer] [pages] [solo]

Needs the ``test`` extra (Playwright) and Debian's Chromium at /usr/bin/chromium. The matches
are built-in bots with fixed seeds, so the viewer pictures change only when the viewer or the
games do. The pages show a small ladder built here through the service's own work queue:
owners, registered bots (played in-process by built-in bots), ten rounds of seat-swapped
pairs, probes, the bots on their ladder: one paused by the health rules after failed probes,
one paused by an admin, a new one in placement.
"""

from __future__ import annotations

import random
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from playwright.sync_api import ViewportSize, sync_playwright

from api.viewer import render_page
from arena import MatchDescription, Seat, parse_seats, play_match, seated
from referee.frames import build_frames
from referee.games import find_game
from referee.match import Runner
from referee.players import Bot

HERE = Path(__file__).resolve().parent
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
MATCHES = [
    ("tokaido-duo", ["greedy", "random"], 7, {}),
    ("doubletrack", ["greedy", "random", "greedy", "random"], 5, {}),
]


def moments(doc: dict) -> list[tuple[str, int]]:
    """Early in the game, the middle (an auction just revealed in Doubletrack), the end."""
    frames = doc["frames"]
    middle = len(frames) // 2
    auctions = [f["ply"] for f in frames if any(e["type"] == "bids" for e in f["events"])]
    if auctions:
        middle = min(auctions, key=lambda p: abs(p - middle))
    return [("start", min(6, len(frames) - 1)), ("middle", middle), ("end", len(frames) - 1)]


PHONE: ViewportSize = {"width": 390, "height": 844}


def viewer() -> None:
    """Each game's three moments on a wide screen (the whole page), and the middle one on a
    phone: what the screen shows on opening (the board at its readable zoom, following the
    move), and the panels further down."""
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        phone = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
        for game, bots, seed, options in MATCHES:
            log = play_match(MatchDescription(game, parse_seats(bots), seed, options=options)).log
            doc = build_frames(log)
            html = Path(tmp) / f"{game}.html"
            html.write_text(render_page(doc), encoding="utf-8")
            for name, ply in moments(doc):
                page.goto(f"{html.as_uri()}#ply={ply}")
                page.wait_for_selector(".rv-piece")
                out = HERE / f"{game}-{name}.png"
                page.screenshot(path=str(out), full_page=True)
                print(out.name, "frame", ply)
            ply = dict(moments(doc))["middle"]
            phone.goto(f"{html.as_uri()}#ply={ply}")
            phone.wait_for_selector(".rv-compact .rv-piece")
            phone.wait_for_timeout(400)  # the board's box scrolls to the move
            phone.screenshot(path=str(HERE / f"{game}-phone.png"))
            phone.eval_on_selector(".rv-board-side", "e => window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 60)")
            phone.screenshot(path=str(HERE / f"{game}-phone-panels.png"))
            print(f"{game}-phone.png, {game}-phone-panels.png", "frame", ply)
        browser.close()


# -- the pages --------------------------------------------------------------------------------

ENTRANTS = [  # name, owner, the built-in bot that plays it, GET / latency in ms, first round
    ("kestrel", "ada", "greedy", 38.0, 1), ("magpie", "grace", "mcts:playouts=40", 112.0, 1),
    ("wren", "linus", "random", 21.0, 1), ("osprey", "grace", "mcts:playouts=15", 64.0, 1),
    ("heron", "ada", "greedy", 45.0, 1), ("siskin", "linus", "random", 19.0, 1),
    ("finch", "ada", "mcts:playouts=15", 57.0, 9),
]
FLAKY = {"wren": 0.02, "heron": 0.005}
"""Bots that answer with an option that was not offered this often (a strike each)."""
ROUNDS = 10
SHOTS = [("leaderboard", "/leaderboards/tokaido-duo"), ("bot", "/bots/{kestrel}"),
         ("bot-paused", "/bots/{heron}"), ("me", "/me")]
OWNER = "ada"
"""Whose home ``/me`` shows (logged in with their token)."""
SIZES = [("desktop", {"width": 1280, "height": 900}), ("phone", {"width": 390, "height": 844})]


class Flaky(Bot):
    """A built-in bot that now and then names an option that was not offered."""

    timed = False

    def __init__(self, inner: Any, rate: float, seed: int) -> None:
        self.inner, self.rate, self.rng = inner, rate, random.Random(seed)

    def start(self, info: Any) -> None:
        self.inner.start(info)

    def decide(self, decision: Any, view: Any) -> Any:
        if self.rng.random() < self.rate:
            return "not-offered"
        return self.inner.decide(decision, view)


def build_ladder(app: Any) -> tuple[dict[str, int], dict[str, str]]:
    """Owners, bots, ten rounds of rated seat-swapped pairs, probes, ladder entries; the bots'
    ids and the owners' tokens."""
    from sqlalchemy import insert, update

    from ladder import registry
    from ladder.accounts import create_owner, now_utc
    from ladder.models import PAUSED, Bot, Round
    from ladder.work import claim, finish, schedule

    engine = app.extensions["referee"].engine
    made = {name: create_owner(engine, name) for name in ("ada", "grace", "linus")}
    owners = {name: owner["id"] for name, (owner, _) in made.items()}
    ids = {"random": 1, "greedy": 2}
    specs = {"random": "random", "greedy": "greedy"}
    joins = {"random": 1, "greedy": 1}
    for name, owner, spec, ms, first in ENTRANTS:
        joins[name] = first
        ids[name] = registry.register_bot(
            engine, owners[owner], name=name, url=f"https://{name}.example.org",
            games=["tokaido-duo"], description=f"{owner}'s bot", status="active", nonce=name)
        specs[name] = spec
        for k in range(6):
            slow = k == 2 and name == "wren"
            registry.record_health(engine, ids[name], not slow, None if slow else ms + 3 * k,
                                   "timeout" if slow else "ok", "GET / probe")
    rng = random.Random(2026)
    for number in range(1, ROUNDS + 1):
        names = [n for n in ids if joins[n] <= number]
        with engine.begin() as conn:
            round_id = conn.execute(insert(Round).values(
                game="tokaido-duo", number=number, opened_at=now_utc(),
                eligible=[ids[n] for n in names]).returning(Round.id)).scalar_one()
        rng.shuffle(names)
        for a, b in zip(names[::2], names[1::2]):
            seed = rng.getrandbits(40)
            for seats in ([a, b], [b, a]):
                [pk] = schedule(engine, "tokaido-duo", [([ids[x] for x in seats], seed,
                                                         f"r{number}.{a}")],
                                rated=True, round_id=round_id)
                held = claim(engine, pk, "screenshots", 60)
                with seated([Seat(specs[x], x) for x in seats], "tokaido-duo", seed) as players:
                    for player, name in zip(players, seats):
                        if name in FLAKY:
                            player.bot = Flaky(player.bot, FLAKY[name], rng.getrandbits(32))
                    log = Runner(find_game("tokaido-duo"), players, seed,
                                 match_id=held.attempt_id).run().log
                finish(engine, held, log)
    with engine.begin() as conn:
        conn.execute(update(Bot).where(Bot.id == ids["siskin"]).values(status=PAUSED))
    enter_ladder(engine, ids, owners)
    return ids, {name: token for name, (_, token) in made.items()}


def enter_ladder(engine: Any, ids: dict[str, int], owners: dict[str, int]) -> None:
    """The owners' bots join the ladder (placed: they have rated games), a new bot joins in
    placement, and heron fails three probes in a row (the health rules pause it, with an
    alert)."""
    from ladder import matchmaking, registry
    from ladder.health import FAILED_PROBES_TO_PAUSE, ProbeOutcome, record_probe

    for name, *_ in ENTRANTS:
        if name != "siskin":
            matchmaking.join(engine, ids[name], "tokaido-duo")
    ids["plover"] = registry.register_bot(
        engine, owners[OWNER], name="plover", url="https://plover.example.org",
        games=["tokaido-duo"], description="ada's new bot", status="active", nonce="plover")
    matchmaking.join(engine, ids["plover"], "tokaido-duo")
    for _ in range(FAILED_PROBES_TO_PAUSE):
        record_probe(engine, ids["heron"], ProbeOutcome(False, None, "timeout",
                                                        "no answer in 5 s"))


def pages() -> None:
    from werkzeug.serving import make_server

    from api import create_app
    from api.config import ServiceConfig
    from api.startup import prepare_database

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        config = ServiceConfig(db_url=f"sqlite:///{tmp}/ladder.sqlite3", ratelimit=False)
        app = create_app(config, engine=prepare_database(config))  # its pool is never started
        ids, tokens = build_ladder(app)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        base = f"http://127.0.0.1:{server.server_port}"
        for name, path in SHOTS:
            for size, viewport in SIZES:
                page = browser.new_page(viewport=viewport, is_mobile=size == "phone")
                if path == "/me":
                    page.goto(f"{base}/login?next=/me")
                    page.fill("#token", tokens[OWNER])
                    page.click("form.login button")
                page.goto(f"{base}{path.format(**ids)}")
                out = HERE / f"page-{name}-{size}.png"
                page.screenshot(path=str(out), full_page=True)
                page.close()
                print(out.name)
        browser.close()
        server.shutdown()


# -- a solo ladder ----------------------------------------------------------------------------

SOLO = [("kestrel", "ada", "greedy"), ("wren", "linus", "random"),
        ("osprey", "grace", "mcts:playouts=15")]
"""The solo ladder's entrants at Automa level 1 (name, owner, the built-in bot that plays it)."""
SOLO_ROUNDS = 3


def solo() -> None:
    """A solo ladder's board (Tokaido Duo against the Automa, level 1) on a wide screen and on
    a phone: three owners' bots, three rounds of shared seeds played through the work queue."""
    from werkzeug.serving import make_server

    from api import create_app
    from api.config import ServiceConfig
    from api.startup import prepare_database
    from ladder import registry, solo_ladder
    from ladder.accounts import create_owner
    from ladder.work import claim, finish

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        config = ServiceConfig(db_url=f"sqlite:///{tmp}/solo.sqlite3", ratelimit=False)
        app = create_app(config, engine=prepare_database(config))  # its pool is never started
        engine = app.extensions["referee"].engine
        specs = {}
        for name, owner, spec in SOLO:
            bot_id = registry.register_bot(
                engine, create_owner(engine, owner)[0]["id"], name=name,
                url=f"https://{name}.example.org", games=["tokaido-duo"], description="",
                status="active", nonce=name)
            specs[bot_id] = (spec, name)
            solo_ladder.set_entry(engine, bot_id, "tokaido-duo", 1, True)
        for n in range(100):
            released = solo_ladder.tick(engine, rng=random.Random(n))
            if solo_ladder.board(engine, "tokaido-duo", 1)["rounds"] > SOLO_ROUNDS:
                break
            for pk in released:
                held = claim(engine, pk, "screenshots", 60)
                assert held is not None
                spec, name = specs[held.seats[0].bot_id]
                with seated([Seat(spec, name)], "tokaido-duo", held.seed) as players:
                    log = Runner(find_game("tokaido-duo"), players, held.seed,
                                 match_id=held.attempt_id, options={"automa": 1}).run().log
                finish(engine, held, log)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for size, viewport in SIZES:
            page = browser.new_page(viewport=viewport, is_mobile=size == "phone")
            page.goto(f"http://127.0.0.1:{server.server_port}/solo/tokaido-duo/1")
            out = HERE / f"page-solo-{size}.png"
            page.screenshot(path=str(out), full_page=True)
            page.close()
            print(out.name)
        browser.close()
        server.shutdown()


if __name__ == "__main__":
    wanted = sys.argv[1:] or ["viewer", "pages", "solo"]
    if "viewer" in wanted:
        viewer()
    if "pages" in wanted:
        pages()
    if "solo" in wanted:
        solo()
