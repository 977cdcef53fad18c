"""What Referee shows and stores is safe: a bot URL's credentials never leave the process (log,
state file, ladder, outputs, hints), and nothing a bot sends reaches the terminal as an escape."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from referee.display import has_credentials, printable, redact

from support.cli import assert_clean_error
from support.http_bots import EVIL, HostileServer

SECRET = "s3cr3t-pw"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://alice:{SECRET}@")


def test_redact_and_printable():
    assert redact(f"http://alice:{SECRET}@h:1/x") == "http://alice:***@h:1/x"
    assert redact("see https://tok3n@h and http://h/p@q") == "see https://***@h and http://h/p@q"
    assert redact("postgresql+psycopg://pg:pw@db/t") == "postgresql+psycopg://pg:***@db/t"
    assert has_credentials("http://a:b@h") and not has_credentials("http://h")
    assert printable("a\x1b[31mb\u202ec\nd\x7f\x9b") == "a\\x1b[31mb\\u202ec\\x0ad\\x7f\\x9b"
    assert printable("plain é 日本") == "plain é 日本"


def test_a_match_never_shows_or_logs_the_credentials_but_uses_them(tmp_path):
    log = tmp_path / "m.json"
    with HostileServer("ok") as bot:
        url = with_credentials(bot.url)
        text = run("match", url, "random", "--game", "toy-race", "--seed", "3", "--log", str(log))
        as_json = run("match", url, "random", "--game", "toy-race", "--seed", "3", "--json")
        decide_auth = [h.get("authorization") for h in bot.headers_seen]
    assert text.exit_code == 0 and as_json.exit_code == 0, text.output
    for shown in (text.output, as_json.output, log.read_text()):
        assert SECRET not in shown and "alice:***@127.0.0.1" in shown
    expected = "Basic " + base64.b64encode(f"alice:{SECRET}".encode()).decode()
    assert expected in decide_auth  # the real URL is still what the referee connects with
    started = json.loads(log.read_text())
    assert started["players"][0]["name"] == redact(url)


def test_a_tournament_keeps_credentials_out_of_state_ladder_and_outputs(tmp_path):
    from ladder.leaderboard import leaderboard
    from ladder.store import open_db

    db = tmp_path / "l.db"
    with HostileServer("ok") as bot:
        url = with_credentials(bot.url)
        args = ["tournament", url, "random", "--game", "toy-race", "--games", "2",
                "--state-dir", str(tmp_path), "--db", f"sqlite:///{db}"]
        out = run(*args, "--json")
        assert out.exit_code == 0, out.output
        tid = json.loads(out.stdout)["tournament"]
        state = (tmp_path / f"{tid}.jsonl").read_text()
        refused = run("tournament", "--game", "toy-race", "--resume", tid, "--state-dir",
                      str(tmp_path), "--db", f"sqlite:///{db}")
        resumed = run("tournament", url, "random", "--game", "toy-race", "--resume", tid,
                      "--state-dir", str(tmp_path), "--db", f"sqlite:///{db}")
    engine = open_db(f"sqlite:///{db}")
    try:
        names = [row["bot"] for row in leaderboard(engine, "toy-race")]
    finally:
        engine.dispose()
    for shown in (out.stdout, out.stderr, state, " ".join(names), resumed.output):
        assert SECRET not in shown
    assert "hostile" in names  # shown by the name its GET / declares, not its URL
    assert_clean_error(refused, 1, "has credentials", "name every bot again")
    assert resumed.exit_code == 0, resumed.output


def test_the_resume_hint_hides_the_database_password_and_keeps_the_concurrency(tmp_path):
    from cli.tournament import resume_command
    from tournaments.plan import Plan, parse_entrants
    from tournaments.store import JsonlStateStore
    from tournaments.tournament import Tournament

    plan = Plan("toy-race", tuple(parse_entrants(["http://bob:pw@h:1", "random"])), 2, 2, 1)
    t = Tournament.start(plan, JsonlStateStore(tmp_path, "0badcafe"))
    hint = resume_command(t, f"postgresql+psycopg://pg:{SECRET}@db/x", None, 4)
    assert SECRET not in hint and ":pw@" not in hint
    assert "pg:***@db/x" in hint and "--concurrency 4" in hint and "http://bob:***@h:1" in hint


@pytest.mark.parametrize("args", [
    ["match", f"http://u:{SECRET}@[::1", "random", "--game", "toy-race"],
    ["tournament", "random", f"x=http://u:{SECRET}@[::1", "--game", "toy-race", "--games", "2"],
    ["tournament", "random", "weak", "--game", "toy-race", "--games", "2",
     "--db", f"postgresql+psycopg://u:{SECRET}@host:port/x"],
])
def test_errors_about_a_url_hide_its_credentials(tmp_path, args):
    out = run(*args, "--state-dir", str(tmp_path)) if args[0] == "tournament" else run(*args)
    assert out.exit_code != 0 and SECRET not in out.output and "***@" in out.output


def test_a_bots_status_line_reaches_the_terminal_escaped():
    with HostileServer("evil_status") as bot:
        out = run("match", bot.url, "random", "--game", "toy-race", "--seed", "1",
                  "--time-ms", "500")
        check = run("bot", "check", bot.url, "--game", "toy-race", "--seed", "1")
    for shown in (out.output, check.output):
        assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
        assert "\\x1b[31mowned" in shown


def test_a_bots_name_and_info_reach_the_terminal_escaped():
    info = {"name": f"evil{EVIL}", "games": ["toy-race", 7, EVIL], "protocol": 1}
    with HostileServer("ok", info=info) as bot:
        out = run("bot", "check", bot.url, "--game", "toy-race", "--seed", "1")
    assert "\x1b" not in out.output and "\u202e" not in out.output, out.output
    assert "evil\\x1b" in out.output


def test_bot_check_never_calls_an_end_failure_a_strike():
    with HostileServer("ok", end_status="500 Internal Server Error") as bot:
        out = run("bot", "check", bot.url, "--game", "toy-race", "--seed", "1")
    assert out.exit_code == 1
    assert "protocol error: /end failed, http_status" in out.output
    assert "strike:" not in out.output and "strikes: none" in out.output
