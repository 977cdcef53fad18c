"""The solo ladder's page in Chromium, on a board with games: built-in bots entered at level 1,
three rounds played by the real runner.  At a desktop and a phone size: no serious axe
violation, no sideways scroll on a phone, the ranked rows as the API answers them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from support.apps import NoDispatcher, prepared_app, served_app
from support.axe import serious_violations

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def solo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    from api.config import ServiceConfig
    from api.runner import run_match
    from ladder import solo_ladder
    from ladder.identity import claim_names
    from ladder.models import Bot, SoloRound

    folder: Path = tmp_path_factory.mktemp("solo")
    app = prepared_app(ServiceConfig(db_url=f"sqlite:///{folder / 'solo.sqlite3'}",
                                     ratelimit=False), dispatcher=NoDispatcher())
    svc = app.extensions["referee"]
    names = {"steady-greedy": "greedy", "coin-flipper": "random"}
    claim_names(svc.engine, names)
    with svc.engine.connect() as conn:
        ids = conn.execute(select(Bot.id).where(Bot.name.in_(list(names)))).scalars().all()
    for bot_id in ids:
        solo_ladder.set_entry(svc.engine, bot_id, "tokaido-duo", 1, True)
    for n in range(100):  # what the scheduler and the workers do, until 3 rounds are over
        released = solo_ladder.tick(svc.engine, rng=random.Random(n))
        with svc.engine.connect() as conn:
            if conn.execute(select(func.count()).select_from(SoloRound).where(
                    SoloRound.closed_at.is_not(None))).scalar_one() >= 3:
                break
        for pk in released:
            run_match(svc.engine, pk, svc.policy, lease_s=30)
    with served_app(app) as base:
        yield base, app
    svc.engine.dispose()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_solo_board_reads_well_at_every_size(browser: Any, solo_site: Any, size: str):
    base, app = solo_site
    board = app.test_client().get("/api/v1/solo-ladders/tokaido-duo/1").get_json()
    assert [r["games"] for r in board["items"]] == [12, 12], board
    context = browser.new_context(viewport=SIZES[size], is_mobile=size == "phone",
                                  bypass_csp=True)
    tab = context.new_page()
    try:
        answer = tab.goto(f"{base}/solo/tokaido-duo/1")
        assert answer is not None and answer.status == 200
        names = tab.locator("table.solo-board tbody td.name").all_inner_texts()
        assert names == [r["bot"]["name"] for r in board["items"]]
        assert names[0] == "steady-greedy"
        if size == "phone":
            assert tab.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
        blocking = serious_violations(tab)
        assert not blocking, "\n".join(blocking)
    finally:
        context.close()
