"""``referee view LOG``: one self-contained HTML file (or a loopback server) showing the match."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.viewer import render_fragment, render_page, viewer_js
from cli import main
from referee.frames import build_frames

from support.cli import assert_clean_error
from support.matches import play_bots

HOSTILE = "</script><b id=pwned>x</b><!--"


def a_log(game: str = "doubletrack", seats: int = 3, seed: int = 3) -> dict:
    return play_bots(game, ["random"] * seats, seed).log


def write(tmp_path: Path, log: dict, name: str = "match.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(log), encoding="utf-8")
    return str(path)


def inline_frames(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="referee-viewer-frames">(.*?)</script>',
                      page, re.S)
    assert found, "no inline frames"
    return json.loads(found.group(1))


def test_view_writes_one_page_beside_the_log_and_prints_its_path(tmp_path):
    log = a_log()
    out = CliRunner().invoke(main, ["view", write(tmp_path, log)])
    assert out.exit_code == 0, out.output
    assert out.output == f"{tmp_path / 'match.html'}\n"
    page = (tmp_path / "match.html").read_text("utf-8")
    assert inline_frames(page) == json.loads(json.dumps(build_frames(log)))
    assert viewer_js() in page and "<style>" in page
    # offline: nothing to load, every link is to another frame of this page
    assert not re.search(r"\bsrc=|@import|url\((?!#)", page)
    last = len(build_frames(log)["frames"]) - 1
    assert set(re.findall(r'href="([^"]*)"', page)) == {"data:,", "?ply=1", f"?ply={last}"}
    assert "frame 0 of" in page


def test_a_log_named_like_its_page_is_not_overwritten(tmp_path):
    out = CliRunner().invoke(main, ["view", write(tmp_path, a_log(), "game.html")])
    assert out.exit_code == 0 and out.output.strip() == str(tmp_path / "game.html.html")
    assert json.loads((tmp_path / "game.html").read_text("utf-8"))["format"] == "referee-match-log"


def test_view_out_and_ply(tmp_path):
    log = a_log()
    target = tmp_path / "pages" / "game.html"
    target.parent.mkdir()
    out = CliRunner().invoke(main, ["view", write(tmp_path, log), "-o", str(target), "--ply", "7"])
    assert out.exit_code == 0 and out.output.strip() == str(target)
    page = target.read_text("utf-8")
    assert 'data-ply="7"' in page and "frame 7 of" in page
    assert 'href="?ply=6" rel="prev"' in page and 'href="?ply=8" rel="next"' in page


def test_names_from_a_log_cannot_inject_markup(tmp_path):
    log = a_log()
    log["players"][0]["name"] = HOSTILE
    page_path = tmp_path / "p.html"
    out = CliRunner().invoke(main, ["view", write(tmp_path, log), "-o", str(page_path)])
    assert out.exit_code == 0, out.output
    page = page_path.read_text("utf-8")
    assert "<b id=pwned>" not in page and page.count("</script>") == 2
    assert inline_frames(page)["match"]["seats"][0]["name"] == HOSTILE


def test_a_ply_past_the_end_shows_the_last_frame_and_a_bad_one_the_first():
    doc = build_frames(a_log())
    last = len(doc["frames"]) - 1
    assert f'data-ply="{last}"' in render_fragment(doc, 10**6)
    assert 'data-ply="0"' in render_fragment(doc, "seven") and 'data-ply="0"' in render_fragment(doc, -3)
    assert "data-frames-url=\"/m/1/frames\"" in render_page(doc, 0, frames_url="/m/1/frames")


@pytest.mark.parametrize("content, needle", [
    ("{not json", "Expecting property name"),
    ('{"format": "something-else"}', "not a match log"),
    ("[]", "not a match log"),
])
def test_a_bad_log_is_one_line(tmp_path, content, needle):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert_clean_error(CliRunner().invoke(main, ["view", str(path)]), 1, needle)
    assert not (tmp_path / "bad.html").exists()


def test_an_unwritable_page_is_one_line(tmp_path):
    out = CliRunner().invoke(main, ["view", write(tmp_path, a_log()), "-o",
                                    str(tmp_path / "missing" / "x.html")])
    assert_clean_error(out, 1, "cannot write")


def test_serve_answers_on_loopback_and_stops_cleanly_on_ctrl_c(tmp_path):
    log = a_log("tokaido-duo", 2, 5)
    code = "import sys; from cli import main; sys.argv[0] = 'referee'; main()"
    proc = subprocess.Popen([sys.executable, "-c", code, "view", write(tmp_path, log), "--serve"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        url = re.match(r"(http://127\.0\.0\.1:\d+/)", first)
        assert url, first + proc.stderr.read()
        base = url.group(1)
        page = urllib.request.urlopen(base + "?ply=4", timeout=30).read().decode()
        assert "frame 4 of" in page and 'data-ply="4"' in page
        assert "frame 0 of" in urllib.request.urlopen(base + "?ply=x", timeout=30).read().decode()
        frames = json.loads(urllib.request.urlopen(base + "frames.json", timeout=30).read())
        assert frames == json.loads(json.dumps(build_frames(log)))
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "etc/passwd", timeout=30)
        assert missing.value.code == 404
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert "stopped" in proc.stderr.read() and "Traceback" not in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_on_a_taken_port_is_one_line(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = CliRunner().invoke(main, ["view", write(tmp_path, a_log()), "--serve",
                                        "--port", str(port)])
    assert_clean_error(out, 1, f"cannot listen on 127.0.0.1:{port}")


def test_the_viewer_script_can_be_inlined():
    assert "</script" not in viewer_js().lower()


def test_the_page_without_javascript_heads_a_frame_with_the_turn_its_board_shows():
    doc = build_frames(play_bots("doubletrack", ["random"] * 3, 1).log)
    frame = next(f for f in doc["frames"] if f["turn_now"] - f["turn"] >= 2)
    html = str(render_fragment(doc, frame["ply"]))
    assert (f"&middot; turn {frame['turn_now']} (decided in turn {frame['turn']})</strong>"
            in html)


def test_the_page_shows_the_bots_words_unless_public_and_the_static_frame_escapes_them(tmp_path):
    log = a_log()
    said = log["decisions"][0]
    said.update(log="plan " + HOSTILE, stderr=["warming up", HOSTILE])
    path = write(tmp_path, log)
    assert CliRunner().invoke(main, ["view", path, "--ply", "1"]).exit_code == 0
    page = (tmp_path / "match.html").read_text("utf-8")
    noted = inline_frames(page)["frames"][1]["decisions"][0]
    assert (noted["log"], noted["stderr"]) == (said["log"], said["stderr"])
    static = page.split('<script type="application/json"')[0]
    assert static.count('class="rv-note') == 2 and "warming up" in static
    assert HOSTILE not in page and "<b id=pwned>" not in page  # escaped in the text and the JSON
    out = CliRunner().invoke(main, ["view", path, "--ply", "1", "--public"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "match.html").read_text("utf-8")
    assert "warming up" not in page and "plan " not in page and 'class="rv-note' not in page
    assert inline_frames(page) == json.loads(json.dumps(build_frames(log)))
