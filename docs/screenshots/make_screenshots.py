"""Regenerate the viewer screenshots in this folder: three moments of a match of each game.

    python docs/screenshots/make_screenshots.py

Needs the ``test`` extra (Playwright) and Debian's Chromium at /usr/bin/chromium. The matches
are built-in bots with fixed seeds, so the pictures change only when the viewer or the games do.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from api.viewer import render_page
from arena import MatchDescription, parse_seats, play_match
from referee.frames import build_frames

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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1240, "height": 900})
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
        browser.close()


if __name__ == "__main__":
    main()
