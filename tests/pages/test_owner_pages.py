"""The owner's home (/me) and its forms: each works for its owner, is refused without this
session's CSRF token (400), for someone else's bot or token (403/404) and past the API's own
limits; a bot's page says why it is paused and how far its placement is."""

from __future__ import annotations

import html as entities
import re
import shutil
from collections.abc import Iterator

import pytest

from api.pages.owner import LADDER_ACTIONS
from ladder import accounts, checks
from ladder.accounts import authenticate
from ladder.health import GOOD_PROBES_TO_RESUME
from ladder.models import Match
from ladder.registry import OWNER_PAUSE

from html_support import page
from owner_support import HEALTH_PAUSE, Home, make_home, reopen
from pages_support import csrf_of

DUO = "tokaido-duo"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Home, str]:
    """The service built once; each test gets a copy of its database file."""
    path = tmp_path_factory.mktemp("owner") / "home.sqlite3"
    made = make_home(f"sqlite:///{path}")
    made.engine.dispose()
    return made, str(path)


def copy_of(built: tuple[Home, str], folder, *, ratelimit: bool = False) -> Home:
    made, path = built
    target = folder / "home.sqlite3"
    shutil.copyfile(path, target)
    return reopen(made, f"sqlite:///{target}", ratelimit=ratelimit)


@pytest.fixture
def home(built, tmp_path) -> Iterator[Home]:
    found = copy_of(built, tmp_path)
    yield found
    found.engine.dispose()


def text(html: str) -> str:
    """The page's words, tags dropped and spaces collapsed."""
    return " ".join(entities.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def post(client, path: str, data: dict | None = None, csrf: str | None = "fresh"):
    """A form post, with this session's CSRF token unless ``csrf`` says otherwise."""
    fields = dict(data or {})
    if csrf == "fresh":
        fields["csrf"] = csrf_of(page(client, "/me"))
    elif csrf is not None:
        fields["csrf"] = csrf
    return client.post(path, data=fields)


def forms(home: Home) -> list[tuple[str, dict]]:
    """Every owner form, with data that would succeed."""
    b = home.bots
    return [(f"/me/bots/{b['hawk']}/ladders/{DUO}", {"action": "resume"}),
            (f"/me/bots/{b['kite']}/check", {"game": DUO}),
            ("/me/challenges", {"game": DUO, "bot": b["kite"], "opponent1": b["badger"]}),
            ("/me/tokens", {"name": "laptop"}),
            ("/me/tokens/1/revoke", {})]


# -- the home page ----------------------------------------------------------------------------

def test_me_asks_to_log_in_first(home):
    answer = home.app.test_client().get("/me")
    assert answer.status_code == 302 and answer.headers["Location"] == "/login?next=/me"


def test_me_shows_each_bot_on_its_ladder_in_words(home):
    html = page(home.logged_in("alice"), "/me")
    words = text(html)
    assert "Placement: 0 of 10 games played, 10 to go." in words  # kite
    assert (f"Paused automatically: its health probes failed (3 failed probes in a row)."
            in words)  # owl
    assert f"resumes by itself after {GOOD_PROBES_TO_RESUME} good probes in a row" in words
    assert "Paused by its owner. Since " in words and "Its owner resumes it." in words  # hawk
    assert "Off this ladder" in words and "Join again" in words  # emu
    assert "badger" not in words.split("Challenge")[0]  # bob's bot is not among mine
    assert "rk_1_…" in words and home.tokens["alice"] not in html
    assert "owl paused on Tokaido Duo: health: 3 failed probes in a row (no answer in 5 s)" \
        in words  # the alert


def test_a_shared_links_tags_are_ignored_by_the_owner_pages(home):
    alice = home.logged_in("alice")
    tags = "utm_source=newsletter&fbclid=IwAR0xyz&ref=producthunt"
    assert text(page(alice, f"/me?{tags}")) == text(page(alice, "/me"))
    answer = post(alice, f"/me/bots/{home.bots['hawk']}/ladders/{DUO}?{tags}",
                  {"action": "resume"})
    assert answer.status_code == 303 and not home.entry("hawk")["paused"]


def test_the_nav_links_a_logged_in_owner_to_their_home_which_no_cache_keeps(home):
    alice = home.logged_in("alice")
    assert 'href="/me"' in page(alice, "/")
    assert alice.get("/me").headers["Cache-Control"] == "no-store"


# -- ladders ----------------------------------------------------------------------------------

def test_the_challenge_form_offers_the_active_bots_of_owners_and_the_house(home):
    """Not a retired bot, nor a bot the CLI recorded (it has no owner and is no house bot)."""
    from ladder.identity import claim_names
    from ladder.registry import retire_bot

    claim_names(home.engine, {"cli-bot": "random"})
    retire_bot(home.engine, home.owners["bob"], home.bots["badger"])
    html = page(home.logged_in("alice"), "/me")
    form = html[html.index('name="opponent1"'):]
    offered = re.findall(r'<option value="\d+"[^>]*>([^ <]+) \(', form[:form.index("</select>")])
    assert {"kite", "owl", "hawk", "emu", "random", "greedy"} <= set(offered)
    assert "badger" not in offered and "cli-bot" not in offered


def test_resume_then_pause_then_leave_and_join_again(home):
    alice = home.logged_in("alice")
    hawk = home.bots["hawk"]
    answer = post(alice, f"/me/bots/{hawk}/ladders/{DUO}", {"action": "resume"})
    assert answer.status_code == 303 and answer.headers["Location"] == f"/me#bot-{hawk}"
    assert not home.entry("hawk")["paused"]
    assert f"Bot {hawk} resumed the Tokaido Duo ladder." in text(page(alice, "/me"))
    post(alice, f"/me/bots/{hawk}/ladders/{DUO}", {"action": "pause"})
    assert home.entry("hawk")["paused_reason"] == OWNER_PAUSE
    post(alice, f"/me/bots/{hawk}/ladders/{DUO}", {"action": "leave"})
    assert not home.entry("hawk")["active"]
    post(alice, f"/me/bots/{hawk}/ladders/{DUO}", {"action": "join"})
    assert home.entry("hawk")["active"]


def test_a_pause_the_probes_hold_is_not_lifted_by_the_owner(home):
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots['owl']}/ladders/{DUO}", {"action": "resume"})
    assert answer.status_code == 409
    assert "resumes by itself after 2 good probes" in text(answer.get_data(as_text=True))
    assert home.entry("owl")["paused_reason"] == HEALTH_PAUSE


@pytest.mark.parametrize("action, game, code", [("dance", DUO, 400),
                                                ("resume", "doubletrack", 409),
                                                ("resume", "chess", 404)])
def test_a_bad_ladder_action_says_why(home, action, game, code):
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots['hawk']}/ladders/{game}", {"action": action})
    assert answer.status_code == code and answer.mimetype == "text/html"
    assert home.entry("hawk")["paused_reason"] == OWNER_PAUSE


# -- CSRF, sessions, other owners -------------------------------------------------------------

@pytest.mark.parametrize("csrf", [None, "", "forged"])
def test_every_form_without_this_sessions_csrf_token_is_a_400(home, csrf):
    alice = home.logged_in("alice")
    for path, data in forms(home):
        answer = post(alice, path, data, csrf=csrf)
        assert answer.status_code == 400, path
        assert "this form has expired or did not come from this site" in \
            answer.get_data(as_text=True)
    assert home.entry("hawk")["paused"] and not home.dispatcher.sent
    assert not home.dispatcher.checks and len(accounts.tokens(home.engine, 1)) == 1


def test_every_form_without_a_session_is_a_401(home):
    stranger = home.app.test_client()
    csrf = csrf_of(page(stranger, "/login"))  # a session with a CSRF token, but no owner
    for path, data in forms(home):
        answer = stranger.post(path, data={**data, "csrf": csrf})
        assert answer.status_code == 401, path
        assert "Log in first" in answer.get_data(as_text=True)


def test_another_owners_bot_or_token_is_refused(home):
    bob = home.logged_in("bob")
    b = home.bots
    refused = [(f"/me/bots/{b['hawk']}/ladders/{DUO}", {"action": "resume"}, 403),
               (f"/me/bots/{b['kite']}/check", {"game": DUO}, 403),
               ("/me/tokens/1/revoke", {}, 404),  # alice's token: no leak of its existence
               ("/me/challenges", {"game": DUO, "bot": b["kite"], "opponent1": b["owl"]}, 403)]
    for path, data, code in refused:
        answer = post(bob, path, data)
        assert answer.status_code == code, (path, answer.get_data(as_text=True)[:300])
    assert home.entry("hawk")["paused"] and not home.dispatcher.sent
    assert authenticate(home.engine, home.tokens["alice"]) is not None
    assert bob.get(f"/me/bots/{b['kite']}/checks/1").status_code in (403, 404)


# -- checks -----------------------------------------------------------------------------------

def test_a_check_is_queued_then_its_page_reloads_until_the_report(home):
    alice = home.logged_in("alice")
    kite = home.bots["kite"]
    answer = post(alice, f"/me/bots/{kite}/check", {"game": DUO})
    assert answer.status_code == 303
    [check_id] = home.dispatcher.checks
    assert answer.headers["Location"] == f"/me/bots/{kite}/checks/{check_id}"
    pending = alice.get(answer.headers["Location"])
    assert pending.headers["Cache-Control"] == "no-store"
    html = pending.get_data(as_text=True)
    assert '<meta http-equiv="refresh" content="3">' in html and "Pending" in html
    again = post(alice, f"/me/bots/{kite}/check", {"game": DUO})  # the pending one, not a new one
    assert again.headers["Location"].endswith(f"/checks/{check_id}")
    assert home.dispatcher.checks == [check_id]

    held = checks.claim(home.engine, check_id, "worker", 60)
    assert held is not None
    report = {"ok": False, "reachable": True, "calls": [{"call": "/decide", "count": 3}],
              "kinds": [], "problems": ["/decide: 2 answers named an option not offered"],
              "latency_ms": {"p50": 12.0, "p95": 30.0, "n": 3}}
    assert checks.finish(home.engine, held, report, passed=False,
                         info=checks.InfoProbe(True, 5.0, "ok", "GET / answered"))
    html = page(alice, f"/me/bots/{kite}/checks/{check_id}")
    assert 'http-equiv="refresh"' not in html
    words = text(html)
    assert "Problems found" in words and "2 answers named an option not offered" in words
    assert f"#{check_id}" in text(page(alice, "/me"))


def test_a_check_of_a_game_the_bot_does_not_play_is_a_422(home):
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots['kite']}/check", {"game": "doubletrack"})
    assert answer.status_code == 422
    assert "does not play 'doubletrack'" in text(answer.get_data(as_text=True))
    assert not home.dispatcher.checks


# -- challenges -------------------------------------------------------------------------------

def test_a_challenge_queues_unrated_matches_and_is_listed(home):
    alice = home.logged_in("alice")
    b = home.bots
    answer = post(alice, "/me/challenges", {"game": DUO, "bot": b["kite"],
                                            "opponent1": b["badger"], "games": "4"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/me#challenges"
    assert len(home.dispatcher.sent) == 4
    with home.engine.connect() as conn:
        rated = conn.execute(Match.__table__.select()).all()
    assert [m.rated for m in rated] == [False] * 4
    words = text(page(alice, "/me"))
    assert "Challenge 1 queued: 4 unrated Tokaido Duo matches." in words
    assert "#1 Tokaido Duo" in words and "0 of 4 finished" in words


def test_the_challenge_form_prefills_the_bot_to_challenge(home):
    html = page(home.logged_in("alice"), f"/me?challenge={home.bots['badger']}")
    assert f'<option value="{home.bots["badger"]}" selected>' in html
    bob_page = page(home.logged_in("alice"), f"/bots/{home.bots['badger']}")
    assert f'href="/me?challenge={home.bots["badger"]}#challenges"' in bob_page


@pytest.mark.parametrize("data, says", [
    ({"games": "3"}, "games must be a multiple of 2"),
    ({"games": "99"}, "games: Must be greater than or equal to 1 and less than or equal to 10"),
    ({"opponent1": "KITE"}, "bots: 1:"),  # the API schema's own message
    ({"game": "chess"}, "game: Must be one of"),
])
def test_a_bad_challenge_says_why_as_the_api_would(home, data, says):
    alice = home.logged_in("alice")
    form = {"game": DUO, "bot": home.bots["kite"], "opponent1": home.bots["badger"], **data}
    answer = post(alice, "/me/challenges", form)
    assert answer.status_code == 422
    assert says in text(answer.get_data(as_text=True))
    assert not home.dispatcher.sent


def test_a_bot_paused_on_its_ladder_can_still_be_challenged(home):
    """A pause keeps a bot out of rated matches; a challenge is unrated."""
    alice = home.logged_in("alice")
    answer = post(alice, "/me/challenges", {"game": DUO, "bot": home.bots["hawk"],
                                            "opponent1": home.bots["badger"]})
    assert answer.status_code == 303 and len(home.dispatcher.sent) == 2


# -- tokens -----------------------------------------------------------------------------------

def test_a_new_token_is_shown_once_and_works(home):
    alice = home.logged_in("alice")
    answer = post(alice, "/me/tokens", {"name": "laptop"})
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store"
    secret = re.search(r'value="(rk_[^"]+)"', answer.get_data(as_text=True)).group(1)
    found = authenticate(home.engine, secret)
    assert found is not None and found.owner_id == home.owners["alice"]
    html = page(alice, "/me")
    assert secret not in html and "laptop" in html


def test_tokens_stop_at_the_apis_cap(home):
    alice = home.logged_in("alice")
    for _ in range(accounts.MAX_TOKENS - 1):
        assert post(alice, "/me/tokens", {"name": "more"}).status_code == 201
    answer = post(alice, "/me/tokens", {"name": "one too many"})
    assert answer.status_code == 409
    assert f"you hold {accounts.MAX_TOKENS} active tokens" in answer.get_data(as_text=True)
    assert post(alice, "/me/tokens", {"name": "x" * 201}).status_code == 422


def test_revoking_a_token_and_the_sessions_own(home):
    alice = home.logged_in("alice")
    post(alice, "/me/tokens", {"name": "spare"})
    answer = post(alice, "/me/tokens/3/revoke")
    assert answer.status_code == 303 and answer.headers["Location"] == "/me#tokens"
    assert "Token 3 revoked" in text(page(alice, "/me"))
    answer = post(alice, "/me/tokens/1/revoke")  # the one this session logged in with
    assert answer.status_code == 303 and answer.headers["Location"] == "/login?next=/me"
    assert "this session ended with it" in page(alice, "/login?next=/me")
    assert alice.get("/me").status_code == 302  # logged out with it
    assert authenticate(home.engine, home.tokens["alice"]) is None


# -- limits -----------------------------------------------------------------------------------

def test_a_form_counts_against_the_apis_own_allowance(built, tmp_path):
    """Six checks a minute per owner, whichever door: after six through the API, the form
    is a 429 page."""
    home = copy_of(built, tmp_path, ratelimit=True)
    api = home.app.test_client()
    headers = {"Authorization": f"Bearer {home.tokens['alice']}"}
    for _ in range(6):
        assert api.post(f"/api/v1/bots/{home.bots['kite']}/check",
                        headers=headers).status_code in (200, 202)
    alice = home.logged_in("alice")
    answer = post(alice, f"/me/bots/{home.bots['kite']}/check", {"game": DUO})
    assert answer.status_code == 429 and answer.mimetype == "text/html"
    assert "Retry-After" in answer.headers
    bob = home.logged_in("bob")  # another owner has an allowance of his own
    assert post(bob, f"/me/bots/{home.bots['badger']}/check", {"game": DUO}).status_code == 303


def test_a_form_body_over_the_apis_limit_is_a_413(home):
    alice = home.logged_in("alice")
    answer = post(alice, "/me/tokens", {"name": "x" * 70_000})
    assert answer.status_code == 413 and answer.mimetype == "text/html"


def test_the_page_actions_are_the_apis(home):
    """One rule, one place: the ladder actions are the API's PUT bodies."""
    assert set(LADDER_ACTIONS) == {"join", "leave", "pause", "resume"}
    alice_api = home.app.test_client()
    headers = {"Authorization": f"Bearer {home.tokens['alice']}"}
    answer = alice_api.put(f"/api/v1/bots/{home.bots['owl']}/ladders/{DUO}",
                           json=LADDER_ACTIONS["resume"], headers=headers)
    assert answer.status_code == 409 and "resumes by itself" in answer.json["message"]


# -- a bot's page -----------------------------------------------------------------------------

def test_a_paused_bots_page_says_why_since_when_and_what_lifts_it(home):
    client = home.app.test_client()
    owl = text(page(client, f"/bots/{home.bots['owl']}"))
    since = home.entry("owl")["paused_at"].strftime("%Y-%m-%d %H:%M UTC")
    assert "owl paused · version 1" in owl  # not "active"
    assert ("Paused automatically: its health probes failed (3 failed probes in a row). "
            f"Since {since}. It resumes by itself after 2 good probes in a row") in owl
    hawk = text(page(client, f"/bots/{home.bots['hawk']}"))
    assert "Paused by its owner. Since" in hawk and "Its owner resumes it." in hawk


def test_a_new_bots_page_shows_its_placement(home):
    kite = text(page(home.app.test_client(), f"/bots/{home.bots['kite']}"))
    assert "Placement: 0 of 10 games played, 10 to go." in kite
    assert "Not rated in Tokaido Duo yet" not in kite


# -- the reads, on both databases -------------------------------------------------------------

def test_latest_strikes_are_the_newest_matches_with_strikes_per_bot(site):
    from ladder.owner_reads import latest_strikes

    alice = site.ladder.bots["alice-bot"]
    found = latest_strikes(site.engine, [alice, site.ladder.bots["bob-greedy"]], limit=1)
    assert list(found) == [alice]  # bob-greedy never struck
    [latest] = found[alice]
    assert latest["strikes"] == 1 and latest["reasons"] == [("unknown_option", 1)]
    both = latest_strikes(site.engine, [alice], limit=5)[alice]
    assert len(both) == 2 and both[0] == latest  # two matches with a bad answer each
    assert both[0]["finished_at"] >= both[1]["finished_at"]


@pytest.mark.parametrize("reason, summary, lifted_by", [
    ("forfeits: 5 forfeits in a row",
     "Paused automatically: it forfeited its matches (5 forfeits in a row).", "probes"),
    ("cheating on the clock", "Paused by an admin: cheating on the clock.", "admin"),
    ("retired", "Retired: it plays no more.", "retired"),
    (OWNER_PAUSE, "Paused by its owner.", "owner"),
    ("away: not connected (a pull bot plays while its connection polls)",
     "Paused: not connected (a pull bot plays while its connection polls).", "connection"),
])
def test_every_pause_reason_says_who_lifts_it(home, reason, summary, lifted_by):
    from api.pages.owner_state import paused_state

    with home.app.app_context():
        state = paused_state(DUO, reason, None)
    assert (state.summary, state.lifted_by) == (summary, lifted_by)
