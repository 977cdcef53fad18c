"""The owner's solo forms on /me: entering a bot on a solo ladder and withdrawing it, a solo
challenge against the Automa; each refused as the API would refuse it, on the page that says
why, and only offered for a bot that plays a game with a solo mode."""

from __future__ import annotations

import html as entities
import re
import shutil
from collections.abc import Iterator

import pytest

from ladder import registry, solo, solo_ladder
from ladder.models import Match

from html_support import page
from owner_support import Home, make_home, reopen
from pages_support import csrf_of

DUO = "tokaido-duo"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Home, str]:
    """The owner pages' service, built once, with alice's ``rail``: a bot that plays only
    Doubletrack (no solo mode); each test gets a copy of its database file."""
    path = tmp_path_factory.mktemp("solo-owner") / "home.sqlite3"
    made = make_home(f"sqlite:///{path}")
    made.bots["rail"] = registry.register_bot(
        made.engine, made.owners["alice"], name="rail", url="https://rail.example.org",
        games=["doubletrack"], description="", status="active", nonce="nrail")
    made.engine.dispose()
    return made, str(path)


@pytest.fixture
def home(built, tmp_path) -> Iterator[Home]:
    made, path = built
    shutil.copyfile(path, tmp_path / "home.sqlite3")
    found = reopen(made, f"sqlite:///{tmp_path / 'home.sqlite3'}")
    yield found
    found.engine.dispose()


def text(html: str) -> str:
    return " ".join(entities.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def post(client, path: str, data: dict, csrf: bool = True):
    fields = {**data, "csrf": csrf_of(page(client, "/me"))} if csrf else dict(data)
    return client.post(path, data=fields)


def entered(home: Home, bot: str) -> list[tuple[int, bool]]:
    return [(e["level"], e["active"]) for e in solo_ladder.entries_of(home.engine,
                                                                      home.bots[bot], DUO)]


def test_the_solo_forms_offer_only_bots_that_play_a_solo_game(home):
    html = page(home.logged_in("alice"), "/me")
    kite, rail = home.bots["kite"], home.bots["rail"]
    assert f'action="/me/bots/{kite}/solo-ladders/{DUO}"' in html
    assert f"/me/bots/{rail}/solo-ladders/" not in html  # Doubletrack has no solo mode
    levels = html[html.index(f'id="solo-level-{kite}-{DUO}"'):]
    assert re.findall(r'<option value="(\d)"', levels[:levels.index("</select>")]) == \
        [str(n) for n in range(1, 7)]
    form = html[html.index('name="automa_level"') - 600:]
    bots = form[form.index('name="bot"'):]
    offered = re.findall(r'<option value="(\d+)"', bots[:bots.index("</select>")])
    assert str(kite) in offered and str(rail) not in offered


def test_enter_a_solo_ladder_then_withdraw(home):
    alice = home.logged_in("alice")
    kite = home.bots["kite"]
    answer = post(alice, f"/me/bots/{kite}/solo-ladders/{DUO}", {"action": "enter",
                                                                 "level": "2"})
    assert answer.status_code == 303 and answer.headers["Location"] == f"/me#bot-{kite}"
    assert entered(home, "kite") == [(2, True)]
    assert home.dispatcher.sent  # the ladder had no round open: one opened at once
    html = page(alice, "/me")
    assert f"Bot {kite} entered the Tokaido Duo solo ladder, level 2." in text(html)
    assert f'href="/solo/{DUO}/2"' in html
    levels = html[html.index(f'id="solo-level-{kite}-{DUO}"'):]
    assert "2" not in re.findall(r'<option value="(\d)"', levels[:levels.index("</select>")])
    answer = post(alice, f"/me/bots/{kite}/solo-ladders/{DUO}", {"action": "withdraw",
                                                                 "level": "2"})
    assert answer.status_code == 303 and entered(home, "kite") == [(2, False)]
    assert f"Bot {kite} withdrew from the Tokaido Duo solo ladder, level 2." in \
        text(page(alice, "/me"))


@pytest.mark.parametrize("bot, game, data, code, says", [
    ("kite", DUO, {"action": "enter", "level": "7"}, 404, "its Automa has levels 1-6"),
    ("kite", DUO, {"action": "enter", "level": "two"}, 422, "level: 'two' is not a level"),
    ("kite", DUO, {"action": "withdraw", "level": "3"}, 404, "is not in the"),
    ("kite", "doubletrack", {"action": "enter", "level": "1"}, 404, "no solo mode"),
    ("rail", DUO, {"action": "enter", "level": "1"}, 409, "does not play tokaido-duo"),
    ("kite", DUO, {"action": "dance", "level": "1"}, 400, "is not one of enter, withdraw"),
])
def test_a_refused_solo_entry_says_why(home, bot, game, data, code, says):
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots[bot]}/solo-ladders/{game}", data)
    assert answer.status_code == code and answer.mimetype == "text/html"
    assert says in text(answer.get_data(as_text=True))
    assert entered(home, "kite") == [] and not home.dispatcher.sent


def test_the_solo_entry_form_wants_its_owner_and_this_sessions_csrf_token(home):
    path = f"/me/bots/{home.bots['kite']}/solo-ladders/{DUO}"
    form = {"action": "enter", "level": "1"}
    assert post(home.logged_in("alice"), path, form, csrf=False).status_code == 400
    assert post(home.logged_in("bob"), path, form).status_code == 403
    assert entered(home, "kite") == []


def test_a_solo_challenge_from_the_page_plays_the_automa_at_its_level(home):
    alice = home.logged_in("alice")
    answer = post(alice, "/me/challenges", {"game": DUO, "bot": home.bots["kite"],
                                            "automa_level": "3", "games": "2"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/me#challenges"
    assert len(home.dispatcher.sent) == 2
    with home.engine.connect() as conn:
        made = conn.execute(Match.__table__.select()).all()
    assert [(m.rated, solo.level_of(m.settings, DUO)) for m in made] == [(False, 3)] * 2
    words = text(page(alice, "/me"))
    assert ("Challenge 1 queued: 2 unrated Tokaido Duo matches against the Automa at "
            "level 3.") in words
    assert "#1 Tokaido Duo solo, level 3" in words


@pytest.mark.parametrize("data, says", [
    ({"automa_level": "9"}, "tokaido-duo's solo opponent has levels 1-6"),
    ({"automa_level": "2", "opponent1": "BADGER"}, "bots: 1:"),
    ({"automa_level": "2", "opponent1": "{badger}"}, "automa_level is for a solo challenge"),
    ({"game": "doubletrack", "automa_level": "1"}, "doubletrack has no solo mode"),
    ({"automa_level": "high"}, "automa_level: Not a valid integer."),
])
def test_a_refused_solo_challenge_says_why(home, data, says):
    alice = home.logged_in("alice")
    form = {"game": DUO, "bot": home.bots["kite"],
            **{k: v.format(**home.bots) for k, v in data.items()}}
    answer = post(alice, "/me/challenges", form)
    assert answer.status_code == 422, text(answer.get_data(as_text=True))[:400]
    assert says in text(answer.get_data(as_text=True))
    assert not home.dispatcher.sent


def test_the_entry_form_counts_against_the_apis_own_allowance(built, tmp_path):
    """30 solo entries a minute per owner, whichever door: after 30 through the API, the
    form is a 429 page."""
    made, path = built
    shutil.copyfile(path, tmp_path / "home.sqlite3")
    home = reopen(made, f"sqlite:///{tmp_path / 'home.sqlite3'}", ratelimit=True)
    api = home.app.test_client()
    headers = {"Authorization": f"Bearer {home.tokens['alice']}"}
    for _ in range(30):
        assert api.put(f"/api/v1/bots/{home.bots['kite']}/solo-ladders/{DUO}/1",
                       json={"active": True}, headers=headers).status_code == 200
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots['kite']}/solo-ladders/{DUO}",
                  {"action": "withdraw", "level": "1"})
    assert answer.status_code == 429 and answer.mimetype == "text/html"
    assert entered(home, "kite") == [(1, True)]
    home.engine.dispose()
