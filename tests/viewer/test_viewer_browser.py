"""The viewer in a real browser (Chromium): it draws both games from the frames, steps, plays,
jumps, opens at ``#ply=N``, works offline, and without JavaScript still shows a frame."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from api.viewer import render_page
from bots.random_bot import RandomBot
from cli.view import _handler
from referee.core import Decision
from referee.frames import build_frames
from referee.games import find_game
from referee.match import Runner
from referee.players import Bot, InProcessPlayer

from support.matches import play_bots

ROOT = "[data-referee-viewer]"


def random_match(game: str, seats: int, seed: int, board: Any = None) -> dict[str, Any]:
    log = play_bots(game, ["random"] * seats, seed, board=board).log
    return build_frames(log)


def publish(folder: Path, name: str, doc: Mapping[str, Any], **kwargs: Any) -> str:
    (folder / name).write_text(render_page(doc, **kwargs), encoding="utf-8")
    return name


def shown(page: Any) -> int:
    return int(page.get_attribute(ROOT, "data-ply"))


def attrs(page: Any, selector: str, *names: str) -> list[tuple[str, ...]]:
    """``names`` of every element matching ``selector``, sorted."""
    return sorted(tuple(row) for row in page.eval_on_selector_all(
        selector, "(els, names) => els.map(e => names.map(n => e.getAttribute(n)))", list(names)))


def texts(page: Any, selector: str) -> list[str]:
    """The text of every element matching ``selector`` (SVG text has no innerText)."""
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def drawing(page: Any) -> str:
    """Both drawings of the frame shown: the board's pieces and the panels beside it."""
    return page.inner_html(".rv-dynamic-layer") + page.inner_html(".rv-side-layer")


def tokaido_pieces(frame: Mapping[str, Any]) -> dict[str, list[tuple[str, ...]]]:
    players = frame["view"]["players"]
    return {
        "pilgrim": sorted((str(p["seat"]), str(p["pilgrim"])) for p in players),
        "merchant": sorted((str(p["seat"]), p["merchant"]) for p in players),
        "artist": sorted((str(p["seat"]), p["artist"]) for p in players),
    }


def drawn_tokaido_pieces(page: Any) -> dict[str, list[tuple[str, ...]]]:
    return {"pilgrim": attrs(page, ".rv-pilgrim", "data-seat", "data-space"),
            "merchant": attrs(page, ".rv-merchant", "data-seat", "data-town"),
            "artist": attrs(page, ".rv-artist", "data-seat", "data-zone")}


def doubletrack_pieces(frame: Mapping[str, Any]) -> tuple[list[tuple[str, ...]], ...]:
    seats = frame["view"]["seats"]
    return (sorted((str(s["seat"]), str(s["big"]["pos"])) for s in seats),
            sorted((str(s["seat"]), str(s["small"])) for s in seats),
            sorted((c, "none" if s is None else str(s)) for c, s in frame["view"]["gates"].items()))


def drawn_doubletrack_pieces(page: Any) -> tuple[list[tuple[str, ...]], ...]:
    return (attrs(page, ".rv-big", "data-seat", "data-pos"),
            attrs(page, ".rv-small", "data-seat", "data-circle"),
            attrs(page, ".rv-gate", "data-gate", "data-controller"))


def test_tokaido_duo_board_is_drawn_from_the_frames_and_steps(page, site):
    base, folder = site
    doc = random_match("tokaido-duo", 2, 31)
    frames = doc["frames"]
    page.goto(base + publish(folder, "td.html", doc))
    page.wait_for_selector(".rv-board .rv-pilgrim")
    assert shown(page) == 0 and page.locator(".rv-static").bounding_box()["width"] <= 1
    assert page.locator(".rv-space").count() == 37 and page.locator(".rv-zone").count() == 8
    assert page.locator(".rv-town").count() == 4 and page.locator(".rv-boutique").count() == 8
    assert drawn_tokaido_pieces(page) == tokaido_pieces(frames[0])
    # a wide screen keeps the wide layout: the board and its panels side by side, at one scale
    board, side = (page.locator(s).bounding_box() for s in (".rv-board-map", ".rv-board-side"))
    assert page.locator(".rv-compact").count() == 0 and page.is_hidden(".rv-zoom")
    assert board["y"] == side["y"] and side["x"] >= board["x"] + board["width"] - 1
    assert board["width"] / 805 == pytest.approx(side["width"] / 395, rel=0.01)
    before = drawing(page)
    page.keyboard.press("ArrowRight")
    assert shown(page) == 1 and page.evaluate("location.hash") == "#ply=1"
    assert drawing(page) != before
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    assert shown(page) == 13 and drawn_tokaido_pieces(page) == tokaido_pieces(frames[13])
    dice = frames[13]["view"]["dice"]
    assert attrs(page, ".rv-die", "data-die", "data-value") == sorted(
        (d["die"], str(d["value"])) for d in dice)
    assert page.inner_text(".rv-said").count(frames[13]["decisions"][0]["label"]) == 1
    page.keyboard.press("ArrowLeft")
    assert shown(page) == 12
    page.keyboard.press("End")
    last = frames[-1]
    assert shown(page) == len(frames) - 1 and drawn_tokaido_pieces(page) == tokaido_pieces(last)
    scores = [str(sum(p["score"].values())) for p in last["view"]["players"]]
    assert texts(page, ".rv-score") == scores
    states = [s["state"] for p in last["view"]["players"] for s in p["paintings"]]
    assert [e.get_attribute("data-state") for e in page.locator(".rv-painting").all()] == states
    assert doc["match"]["outcome"] in page.inner_text(".rv-said")
    page.keyboard.press("Home")
    assert shown(page) == 0


def test_a_link_with_ply_opens_at_that_frame(page, site):
    base, folder = site
    doc = random_match("tokaido-duo", 2, 32)
    name = publish(folder, "td.html", doc)
    page.goto(base + name + "#ply=40")
    page.wait_for_selector(".rv-pilgrim")
    assert shown(page) == 40 and drawn_tokaido_pieces(page) == tokaido_pieces(doc["frames"][40])
    assert "frame 40 of" in page.inner_text(".rv-where")
    page.evaluate("location.hash = '#ply=7'")
    page.wait_for_function(f"document.querySelector('{ROOT}').dataset.ply === '7'")
    assert drawn_tokaido_pieces(page) == tokaido_pieces(doc["frames"][7])
    page.goto(base + name + "?ply=12")
    page.wait_for_selector(".rv-pilgrim")
    assert shown(page) == 12
    page.goto(base + name + "#ply=99999")
    page.wait_for_selector(".rv-pilgrim")
    assert shown(page) == len(doc["frames"]) - 1


class Crashing(Bot):
    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        raise RuntimeError("boom")


def test_play_jump_to_a_turn_and_a_timeline_with_the_strikes(page, site):
    base, folder = site
    game = find_game("doubletrack")
    players = [InProcessPlayer(name="crash", bot=Crashing())] + [
        InProcessPlayer(name=f"r{i}", bot=RandomBot("doubletrack", i)) for i in (1, 2)]
    doc = build_frames(Runner(game, players, seed=6, strikes=3).run().log)
    frames = doc["frames"]
    page.goto(base + publish(folder, "dt.html", doc))
    page.wait_for_selector(".rv-big")
    struck = [f["ply"] for f in frames if any(d["status"] == "bot_error" for d in f["decisions"])]
    assert len(struck) == 3
    assert sorted(int(g.get_attribute("data-ply")) for g in
                  page.locator(".rv-tl-frame:has(rect.rv-tl-strike)").all()) == struck
    assert page.locator(".rv-tl-frame").count() == len(frames)
    page.select_option(".rv-speed", "4")
    page.click("[data-act=play]")
    page.wait_for_function(f"Number(document.querySelector('{ROOT}').dataset.ply) >= 3",
                           timeout=20_000)
    page.click("[data-act=play]")
    stopped = shown(page)
    page.wait_for_timeout(600)
    assert shown(page) == stopped and page.get_attribute(ROOT, "data-playing") == "false"
    page.fill(".rv-jump input", "9")
    page.click(".rv-jump button")
    first = next(f["ply"] for f in frames if f["turn_now"] is not None and f["turn_now"] >= 9)
    assert shown(page) == first and drawn_doubletrack_pieces(page) == doubletrack_pieces(frames[first])
    page.click(f".rv-tl-frame[data-ply='{struck[1]}']")
    assert shown(page) == struck[1] and "STRIKE 2: bot_error" in page.inner_text(".rv-said")


def test_next_strike_jumps_from_strike_to_strike_and_the_bots_words_show_beside_the_frame(
        page, site):
    base, folder = site
    game = find_game("doubletrack")
    players = [InProcessPlayer(name="crash", bot=Crashing())] + [
        InProcessPlayer(name=f"r{i}", bot=RandomBot("doubletrack", i)) for i in (1, 2)]
    log = Runner(game, players, seed=6, strikes=3).run().log
    struck = sorted({d["step"] for d in log["decisions"] if d["status"] == "bot_error"})
    first = next(d for d in log["decisions"] if d["step"] == struck[0])
    first.update(log="<b>not bold</b>", stderr=["Traceback (most recent call last):", "boom"])
    doc = build_frames(log, notes=True)
    plies = [f["ply"] for f in doc["frames"] if f["step"] in struck]
    page.goto(base + publish(folder, "dt.html", doc))
    page.wait_for_selector(".rv-big")
    page.keyboard.press("n")
    assert shown(page) == plies[0]
    assert texts(page, ".rv-said .rv-note") == [
        "log: <b>not bold</b>", "stderr:\nTraceback (most recent call last):\nboom"]
    assert page.locator(".rv-said b").count() == 0
    page.click("[data-act=trouble]")
    assert shown(page) == plies[1] and page.locator(".rv-said .rv-note").count() == 0
    page.keyboard.press("n")
    page.keyboard.press("n")
    assert shown(page) == plies[0]  # after the last strike, the first again
    quiet = random_match("doubletrack", 3, 9)
    page.goto(base + publish(folder, "quiet.html", quiet))
    page.wait_for_selector(".rv-big")
    assert page.is_disabled("[data-act=trouble]")
    page.keyboard.press("n")
    assert shown(page) == 0


def test_doubletrack_board_is_drawn_from_its_data_even_a_replaced_one(page, site):
    base, folder = site
    game = find_game("doubletrack")
    data = copy.deepcopy(game.load_board().data)
    data["outer"]["quadrant"].append({"number": 6})
    data["inner"] = {"home": 50, "purple_shortcuts": {5: 12, 30: 41}}
    for board, seats in ((None, 4), (data, 3)):
        doc = random_match("doubletrack", seats, 8, board)
        facts, frames = doc["board"], doc["frames"]
        page.goto(base + publish(folder, f"dt{seats}.html", doc))
        page.wait_for_selector(".rv-big")
        assert page.locator(".rv-square").count() == len(facts["squares"])
        assert page.locator(".rv-circle").count() == facts["home"] + 1
        assert page.locator(".rv-purple-shortcut").count() == len(facts["purple_shortcuts"])
        assert attrs(page, ".rv-circle", "data-circle")[-1] != ()
        for ply in (0, len(frames) // 2, len(frames) - 1):
            page.evaluate(f"location.hash = '#ply={ply}'")
            page.wait_for_function(f"document.querySelector('{ROOT}').dataset.ply === '{ply}'")
            assert drawn_doubletrack_pieces(page) == doubletrack_pieces(frames[ply])
            money = ["$" + str(s["money"]) for s in frames[ply]["view"]["seats"]]
            assert texts(page, ".rv-money") == money
            hands = sum(s["hand_size"] for s in frames[ply]["view"]["seats"])
            assert page.locator(".rv-card-back").count() == hands


def test_solo_shows_the_automas_rank_tracks(page, site):
    base, folder = site
    log = play_bots("tokaido-duo", ["random"], 4, options={"automa": 2}).log
    doc = build_frames(log)
    last = doc["frames"][-1]
    page.goto(base + publish(folder, "solo.html", doc) + f"#ply={len(doc['frames']) - 1}")
    page.wait_for_selector(".rv-automa")
    tracks = last["view"]["automa"]["tracks"]
    assert attrs(page, ".rv-rank-here", "data-track", "data-space") == sorted(
        (c, str(t["position"])) for c, t in tracks.items() if t["position"])
    assert "placeholder" in page.text_content(".rv-board-side")


def test_the_page_loads_nothing_from_anywhere_else(page, site):
    base, folder = site
    doc = random_match("doubletrack", 3, 9)
    (folder / "frames.json").write_text(json.dumps(doc), encoding="utf-8")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(base + publish(folder, "inline.html", doc))
    page.wait_for_selector(".rv-big")
    page.goto(base + publish(folder, "fetched.html", doc, frames_url="frames.json"))
    page.wait_for_selector(".rv-big")
    assert drawn_doubletrack_pieces(page) == doubletrack_pieces(doc["frames"][0])
    assert requests == [base + "inline.html", base + "fetched.html", base + "frames.json"]


@pytest.fixture
def served_viewer():
    doc = random_match("tokaido-duo", 2, 33)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(doc, 0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", doc
    finally:
        server.shutdown()
        server.server_close()


def test_without_javascript_a_frame_is_shown_with_links_to_its_neighbours(browser, served_viewer):
    base, doc = served_viewer
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(base + "?ply=5")
        assert "frame 5 of" in page.inner_text(".rv-static")
        decision = doc["frames"][5]["decisions"][0]
        assert decision["label"] in page.inner_text(".rv-static")
        assert page.locator(".rv-board").count() == 0
        page.click("text=next")
        assert page.url.endswith("?ply=6") and "frame 6 of" in page.inner_text(".rv-static")
        page.click("text=previous")
        page.click("text=previous")
        assert page.url.endswith("?ply=4") and "frame 4 of" in page.inner_text(".rv-static")
        pilgrim = doc["frames"][4]["view"]["players"][0]["pilgrim"]
        assert f"Pilgrim on {pilgrim} " in page.inner_text(".rv-static")
    finally:
        context.close()


def test_doubletrack_header_and_panel_show_the_same_turn(page, site):
    # a step whose decision ends a turn, and then turns that ask nobody pass: the board (and
    # its panel) are turns later than the decision; the header says the board's turn first
    base, folder = site
    doc = random_match("doubletrack", 3, 1)
    jumps = [f for f in doc["frames"] if f["turn_now"] - f["turn"] >= 2]
    assert jumps, "no step of this game plays on past the next turn"
    frame = jumps[0]
    page.goto(base + publish(folder, "dt-turns.html", doc) + f"#ply={frame['ply']}")
    page.wait_for_selector(".rv-big")
    header = page.inner_text(".rv-where")
    panel = [t for t in texts(page, "text") if t.startswith("Turn ")]
    assert panel and panel[0].startswith(f"Turn {frame['turn_now']} / ")
    assert (f"turn {frame['turn_now']} (decided in turn {frame['turn']})") in header, header
