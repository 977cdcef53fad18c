"""``referee match`` with URLs and ``--over-http``, ``referee bot serve`` and ``bot check``,
as a user types them, against real loopback servers."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from bots.server import serve_bot
from cli import main
from referee.transport import fetch_info

from support.cli import assert_clean_error
from support.http_bots import HostileServer, free_port


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line_error(out, *needles: str) -> None:
    assert_clean_error(out, None, *needles)


def test_match_against_a_url_logs_and_replays(tmp_path):
    log = tmp_path / "m.json"
    server = serve_bot("random", "toy-race")
    try:
        out = run("match", server.url, "random", "--game", "toy-race", "--seed", "4",
                  "--time-ms", "500", "--log", str(log))
    finally:
        server.stop()
    assert out.exit_code == 0, out.output
    data = json.loads(log.read_text())
    assert data["players"][0]["name"] == server.url
    assert all({"seat", "kind", "options", "choice", "ms", "status"} <= set(d)
               for d in data["decisions"])
    assert {d["status"] for d in data["decisions"]} == {"ok"}
    out = run("replay", str(log))
    assert out.exit_code == 0 and "replay matches" in out.output


def test_over_http_plays_the_same_match_as_in_process():
    args = ["match", "random", "mcts:playouts=10", "--game", "toy-race", "--seed", "11", "--json"]
    local = run(*args)
    remote = run(*args, "--over-http")
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    assert json.loads(local.output) == json.loads(remote.output)


def test_summary_and_json_show_strikes_faults_and_slowest_decisions():
    with HostileServer("unknown") as bot:
        text = run("match", bot.url, "random", "--game", "toy-race", "--seed", "2",
                   "--time-ms", "300")
        as_json = run("match", bot.url, "random", "--game", "toy-race", "--seed", "2",
                      "--time-ms", "300", "--json")
    assert text.exit_code == 0, text.output
    assert "strikes 3" in text.output and "unknown_option" in text.output
    assert "slowest decisions:" in text.output
    summary = json.loads(as_json.output)
    assert summary["seats"][0]["strikes"] == 3 and summary["end"] == "forfeit"
    assert [f["reason"] for f in summary["faults"]] == ["unknown_option"] * 3


def test_match_with_a_bad_url_is_a_one_line_error():
    one_line_error(run("match", "http://:80", "random", "--game", "toy-race"), "bad bot URL")


def test_bot_check_passes_a_clean_bot():
    server = serve_bot("random", "toy-race")
    try:
        out = run("bot", "check", server.url, "--game", "toy-race", "--games", "2", "--seed", "1")
    finally:
        server.stop()
    assert out.exit_code == 0, out.output
    assert "PASS" in out.output and "strikes: none" in out.output
    assert "move" in out.output and "bid" in out.output and "p95" in out.output


def test_bot_check_fails_a_striking_bot_with_reasons():
    with HostileServer("sleep", 0.5) as bot:
        out = run("bot", "check", bot.url, "--game", "toy-race", "--time-ms", "200", "--seed", "1")
    assert out.exit_code == 1
    assert "FAIL" in out.output and "(timeout)" in out.output and "forfeited" in out.output


def test_bot_check_names_the_bad_info_fields():
    info = {"name": "x", "games": ["chess", 7], "protocol": 2}
    with HostileServer("ok", info=info) as bot:
        out = run("bot", "check", bot.url, "--game", "toy-race", "--seed", "1")
    assert out.exit_code == 1
    for needle in ("info.games[1]", "info.protocol", "'toy-race' is not listed"):
        assert needle in out.output, out.output


def test_bot_check_of_an_unreachable_url_is_one_line():
    one_line_error(run("bot", "check", f"http://127.0.0.1:{free_port()}", "--game", "toy-race"),
                   "cannot reach", "refused")
    one_line_error(run("bot", "check", "ftp://x", "--game", "toy-race"), "bad bot URL")


def test_bot_serve_errors_are_one_line():
    one_line_error(run("bot", "serve", "randon", "--port", "0"), "unknown bot 'randon'")
    one_line_error(run("bot", "serve", "random", "--port", "70000"), "70000")
    one_line_error(run("bot", "serve", "random", "--port", "0", "--host", "no.such.host.invalid"),
                   "cannot listen")
    with HostileServer("ok") as busy:
        port = busy.url.rsplit(":", 1)[1]
        one_line_error(run("bot", "serve", "random", "--port", port), "cannot listen", port)


def test_bot_serve_serves_until_stopped():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cli import main; main()", "bot", "serve", "random",
         "--port", str(port), "--game", "doubletrack"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        assert f"http://127.0.0.1:{port}" in proc.stderr.readline()
        info, fault = fetch_info(f"http://127.0.0.1:{port}")
        assert fault is None and info["games"] == ["doubletrack"] and info["protocol"] == 1
    finally:
        proc.terminate()
        proc.wait(timeout=10)
