"""Logging in to the pages with a token: the signed session cookie, CSRF on every form, a
session that ends with its token, and no redirect off the site.  The session does not depend
on the database but for the query of the live token, tested on both."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from api import create_app
from api.config import ServiceConfig

from html_support import page
from pages_support import Site, csrf_of
from support.apps import NoDispatcher


@pytest.fixture
def make_other_site(sqlite_site):
    """The same database served by an app with another secret key."""
    site = sqlite_site
    config = ServiceConfig(db_url=str(site.engine.url), ratelimit=False, secret_key="another")
    return Site(create_app(config, engine=site.engine, dispatcher=NoDispatcher()), site.ladder)


def cookie_payload(client) -> dict:
    """What Flask's session cookie holds (signed, not encrypted: anyone can read it)."""
    value = client.get_cookie("referee_session").value
    body = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    if value.startswith("."):
        raw = zlib.decompress(raw)
    return json.loads(raw)


def test_a_valid_token_logs_in_and_the_cookie_does_not_hold_it(sqlite_site):
    site = sqlite_site
    client = site.client()
    form = page(client, "/login?next=/matches")
    answer = client.post("/login?next=/matches", data={
        "token": site.ladder.tokens["alice"], "csrf": csrf_of(form)})
    assert answer.status_code == 303 and answer.headers["Location"] == "/matches"
    cookie = client.get_cookie("referee_session")
    assert cookie.http_only and cookie.same_site == "Lax"
    held = cookie_payload(client)
    assert held["owner_id"] == site.ladder.owners["alice"]
    secret = site.ladder.tokens["alice"].split("_", 2)[2]
    assert secret not in cookie.value and secret not in json.dumps(held)
    html = page(client, "/")
    assert 'title="your bots and tokens">alice</a>' in html and ">Log out</button>" in html


def test_a_wrong_token_is_refused_without_a_session(sqlite_site):
    site = sqlite_site
    client = site.client()
    form = page(client, "/login")
    for token in ("rk_1_" + "x" * 43, "not a token", "", site.ladder.tokens["bob"] + "x"):
        answer = client.post("/login", data={"token": token, "csrf": csrf_of(form)})
        assert answer.status_code == 401, token
        assert "That token is not valid" in answer.get_data(as_text=True)
    assert "owner_id" not in cookie_payload(client)
    assert ">Log in</a>" in page(client, "/")


def test_forms_without_this_sessions_csrf_token_are_refused(sqlite_site):
    site = sqlite_site
    client = site.client()
    page(client, "/login")
    for data in ({"token": site.ladder.tokens["alice"]},
                 {"token": site.ladder.tokens["alice"], "csrf": "forged"}):
        answer = client.post("/login", data=data)
        assert answer.status_code == 400
        assert "this form has expired" in answer.get_data(as_text=True)
    stranger = site.client()  # a form posted from elsewhere: no session at all
    answer = stranger.post("/login", data={"token": site.ladder.tokens["alice"], "csrf": ""})
    assert answer.status_code == 400
    alice = site.logged_in("alice")
    assert alice.post("/logout", data={}).status_code == 400
    assert 'title="your bots and tokens">alice</a>' in page(alice, "/")  # still logged in


def test_logging_out_ends_the_session(sqlite_site):
    site = sqlite_site
    client = site.logged_in("alice")
    html = page(client, "/")
    answer = client.post("/logout", data={"csrf": csrf_of(html)})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert ">Log in</a>" in page(client, "/")
    pk = site.ladder.chatty_match
    assert "Your bot's log lines" not in page(client, f"/matches/{pk}")


def test_revoking_the_token_ends_the_page_session(site):
    api = site.client()
    auth = {"Authorization": f"Bearer {site.ladder.tokens['bob']}"}
    minted = api.post("/api/v1/me/tokens", json={"name": "pages"}, headers=auth).get_json()
    client = site.client()
    form = page(client, "/login")
    assert client.post("/login", data={"token": minted["token"],
                                       "csrf": csrf_of(form)}).status_code == 303
    assert 'title="your bots and tokens">bob</a>' in page(client, "/")
    gone = api.delete(f"/api/v1/me/tokens/{minted['id']}", headers=auth)
    assert gone.status_code == 204
    assert ">Log in</a>" in page(client, "/")
    assert "owner_id" not in cookie_payload(client)


def test_a_session_from_another_secret_is_ignored(sqlite_site, make_other_site):
    """A cookie signed by another server (another secret key) is no session here."""
    site = sqlite_site
    other = make_other_site
    client = other.logged_in("alice")
    cookie = client.get_cookie("referee_session").value
    fresh = site.client()
    fresh.set_cookie("referee_session", cookie)
    assert ">Log in</a>" in page(fresh, "/")


def test_login_links_come_back_to_the_page(sqlite_site):
    site = sqlite_site
    html = page(site.client(), f"/matches/{site.ladder.chatty_match}")
    assert f'href="/login?next=/matches/{site.ladder.chatty_match}"' in html


def test_server_processes_with_one_secret_key_share_sessions(sqlite_site):
    """Several server processes (gunicorn) must be given the same key: then any of them
    reads a session another one started."""
    site = sqlite_site

    def app_with(key: str) -> Site:
        config = ServiceConfig(db_url=str(site.engine.url), ratelimit=False, secret_key=key)
        return Site(create_app(config, engine=site.engine, dispatcher=NoDispatcher()),
                    site.ladder)

    first, second = app_with("shared-key"), app_with("shared-key")
    cookie = first.logged_in("alice").get_cookie("referee_session").value
    client = second.client()
    client.set_cookie("referee_session", cookie)
    assert 'title="your bots and tokens">alice</a>' in page(client, "/")
