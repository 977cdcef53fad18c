"""``py:`` seats: a Python bot from a file, played in-process with the documents an HTTP bot
gets, under the same clock and strikes; and ``referee.play``, a match from a notebook."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import MatchDescription, Seat, play_match
from arena.py_seat import PySeatError, load_bot, load_module
from cli import main
from referee.protocol import schema_errors

from support.cli import assert_clean_error

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "bots" / "starter" / "bot.py"


def bot_file(tmp_path: Path, source: str, name: str = "mybot.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def play(*seats: str, seed: int = 1, time_ms: int = 1000, game: str = "toy-race"):
    return play_match(MatchDescription(game, tuple(Seat(s, f"s{i}") for i, s in enumerate(seats)),
                                       seed=seed, time_control=_clock(time_ms)))


def _clock(ms):
    from arena import TimeControl

    return TimeControl(ms)


def mine(record, seat=0):
    return [d for d in record.log["decisions"] if d["seat"] == seat]


def test_a_decide_function_gets_the_decide_document_and_its_note_is_logged(tmp_path):
    path = bot_file(tmp_path, """
        SEEN = []

        def decide(request):
            SEEN.append(request)
            return request["decision"]["options"][-1]["id"], f"{len(SEEN)} asked"
    """)
    record = play(f"py:{path}", "random")
    decisions = mine(record)
    assert decisions and all(d["status"] == "ok" for d in decisions)
    assert [d["log"] for d in decisions] == [f"{n} asked" for n in range(1, len(decisions) + 1)]
    seen = load_module(path).SEEN
    assert len(seen) == len(decisions)
    assert not schema_errors("decide", seen[0])  # exactly the /decide body an HTTP bot gets
    assert seen[0]["seat"] == 0 and isinstance(seen[0]["view"], dict)


def test_a_bare_id_and_a_class_with_start_and_end(tmp_path):
    path = bot_file(tmp_path, """
        CALLS = []

        class Bot:
            def start(self, message):
                CALLS.append(("start", message["seat"], message["players"][1]["name"]))

            def decide(self, request):
                return request["decision"]["options"][0]["id"]

            def end(self, message):
                CALLS.append(("end", sorted(message["result"])))
    """)
    record = play(f"py:{path}:Bot", "random")
    assert all(d["status"] == "ok" and "log" not in d for d in mine(record))
    calls = load_module(path).CALLS
    assert calls[0] == ("start", 0, "s1") and calls[-1][0] == "end" and "seats" in calls[-1][1]


def test_an_exception_in_the_bot_is_a_strike_naming_it_never_a_crash(tmp_path):
    path = bot_file(tmp_path, """
        def decide(request):
            return 1 / 0
    """)
    record = play(f"py:{path}", "random")
    faults = record.log["faults"]
    assert len(faults) == 3 and record.log["forfeited"] == [0]  # three strikes: out
    assert faults[0]["reason"] == "bot_error"
    assert faults[0]["detail"] == "ZeroDivisionError: division by zero (mybot.py:3 in decide)"


def test_an_answer_that_is_no_option_is_struck_as_an_http_answer_would_be(tmp_path):
    path = bot_file(tmp_path, """
        def decide(request):
            return {"pick": 1} if request["view"]["turns"] < 2 else object()
    """)
    faults = play(f"py:{path}", "random").log["faults"]
    assert [f["reason"] for f in faults] == ["bad_json"] * 3
    assert "field 'choice' is a object, not a string" in faults[0]["detail"]
    assert "not an option id" in faults[-1]["detail"]


def test_a_bot_past_its_deadline_is_struck_and_not_asked_again_while_busy(tmp_path):
    path = bot_file(tmp_path, """
        import threading
        RELEASE = threading.Event()

        def decide(request):
            RELEASE.wait(30)
            return request["decision"]["options"][0]["id"]
    """)
    try:
        record = play(f"py:{path}", "random", time_ms=20)
    finally:
        load_module(path).RELEASE.set()
    faults = record.log["faults"]
    assert [(f["kind"] == "end", f["reason"]) for f in faults] == [
        (False, "timeout")] * 3 + [(True, "timeout")]  # /end too: it is still busy
    assert "no answer within 20 ms" in faults[0]["detail"]
    assert all("still busy" in f["detail"] for f in faults[1:])


def test_a_wrong_name_or_file_is_one_line(tmp_path):
    path = bot_file(tmp_path, """
        def choose_move(request):
            return "x"
    """)
    with pytest.raises(PySeatError, match=r"defines no decide\(request\).*choose_move"):
        load_bot(f"py:{path}")
    out = CliRunner().invoke(main, ["match", f"py:{path}:nope", "random", "--game", "toy-race"])
    assert_clean_error(out, 1, "has no function or class 'nope'", "choose_move")
    out = CliRunner().invoke(main, ["match", f"py:{tmp_path}/absent.py", "random",
                                    "--game", "toy-race"])
    assert_clean_error(out, 1, "absent.py", "No such file")
    broken = bot_file(tmp_path, "def decide(:\n", "broken.py")
    with pytest.raises(PySeatError, match="loading it failed: SyntaxError"):
        load_bot(f"py:{broken}")


def test_the_starter_kit_plays_as_a_file_unchanged():
    record = play(f"py:{STARTER}", "random", game="tokaido-duo")
    decisions = mine(record)
    assert decisions and all(d["status"] == "ok" and d["log"].startswith("picked")
                             for d in decisions)


def test_bot_check_of_a_py_bot(tmp_path):
    out = CliRunner().invoke(main, ["bot", "check", f"py:{STARTER}", "--game", "tokaido-duo",
                                    "--seed", "4"])
    assert out.exit_code == 0, out.output
    assert "no GET /" in out.output and "PASS" in out.output


def test_play_from_python_returns_the_record_and_writes_the_log(tmp_path):
    from referee import play as play_one

    log = tmp_path / "game.json"
    record = play_one("toy-race", [f"py:{STARTER}:choose", "me=random"], seed=9,
                      time_ms=500, log=str(log))
    assert record.log["seed"] == 9 and record.log["time_control"]["decision_ms"] == 500
    assert [p["name"] for p in record.log["players"]] == [f"py:{STARTER}:choose", "me"]
    assert json.loads(log.read_text())["match_id"] == record.log["match_id"]
    with pytest.raises(TypeError, match="one per seat"):
        play_one("toy-race", "greedy")


def test_stderr_is_capped_in_lines_and_characters():
    from referee.matchlog import MAX_STDERR_CHARS, MAX_STDERR_LINES, cap_stderr

    assert cap_stderr(["a", "b"]) == ["a", "b"]
    many = cap_stderr([str(n) for n in range(200)])
    assert len(many) == MAX_STDERR_LINES + 1 and many[-1].startswith("[150 more line(s)")
    long = cap_stderr(["x" * 3000, "y" * 3000, "z"])
    assert [len(line) for line in long[:2]] == [3000, MAX_STDERR_CHARS - 3000]
    assert long[2].startswith("[1 more line(s)")


def test_what_a_py_bot_prints_goes_to_the_decision_not_the_output(tmp_path, capsys):
    path = bot_file(tmp_path, """
        import sys

        def decide(request):
            print("thinking", request["view"]["turns"])
            print("careful", file=sys.stderr)
            return request["decision"]["options"][0]["id"]
    """)
    record = play(f"py:{path}", "random")
    first = mine(record)[0]
    assert first["stderr"] == [f"thinking {0}", "careful"]
    out = capsys.readouterr()
    assert "thinking" not in out.out + out.err


def test_a_class_that_cannot_be_made_is_one_error(tmp_path):
    path = bot_file(tmp_path, """
        class Bot:
            def __init__(self):
                raise RuntimeError("no weights")

            def decide(self, request):
                return "x"
    """)
    with pytest.raises(PySeatError, match=r"making the bot failed: RuntimeError: no weights"):
        play(f"py:{path}:Bot", "random")
