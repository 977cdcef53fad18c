"""``referee replay LOG --trace``: one line per decision step, the events indented below."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from bots.random_bot import RandomBot
from cli import main
from referee.games import find_game
from referee.match import play
from referee.players import InProcessPlayer

from frames_support import random_frames, random_log
from support.cli import assert_clean_error

STEP_LINE = re.compile(r"^ *(\d+)\. ([RT])(\d+) +(.+)$")


def write(tmp_path, log, name="match.json"):
    path = tmp_path / name
    path.write_text(json.dumps(log), encoding="utf-8")
    return str(path)


def test_trace_lists_every_step_on_its_own_line_then_the_replay_check(tmp_path):
    log = random_log("tokaido-duo", 2, (), 21)
    doc = random_frames("tokaido-duo", 2, (), 21)
    out = CliRunner().invoke(main, ["replay", write(tmp_path, log), "--trace"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("Tokaido Duo (tokaido-duo), match ")
    assert lines[1:3] == ["  seat 0 (purple): random", "  seat 1 (green): random"]
    steps = [STEP_LINE.match(line) for line in lines if STEP_LINE.match(line)]
    assert [int(m.group(1)) for m in steps] == list(range(1, len(doc["frames"])))
    for m, frame in zip(steps, doc["frames"][1:]):
        d = frame["decisions"][0]
        assert m.group(2) == "R" and int(m.group(3)) == frame["turn"]
        assert m.group(4).startswith(f"{d['who']}: {d['label']} [{d['kind']} ")
    events = [line.strip() for line in lines if line.startswith("      ")]
    assert events == [t for f in doc["frames"] for t in f["texts"]]
    assert lines[-2] == "Result: " + doc["match"]["outcome"]
    assert lines[-1].endswith(f"replay matches (tokaido-duo, seed {log['seed']})")
    assert all(line == line.rstrip() and "\x1b" not in line for line in lines)  # pipe-clean


def test_sealed_bids_share_their_steps_line(tmp_path):
    log = random_log("doubletrack", 4, (), 77)
    doc = random_frames("doubletrack", 4, (), 77)
    out = CliRunner().invoke(main, ["replay", write(tmp_path, log), "--trace"])
    assert out.exit_code == 0, out.output
    lines = {int(m.group(1)): line for line in out.output.splitlines() if (m := STEP_LINE.match(line))}
    auctions = [f for f in doc["frames"] if f["decisions"] and f["decisions"][0]["kind"] == "bid"]
    assert any(len(f["decisions"]) > 1 for f in auctions)
    for frame in auctions:
        bidders = re.findall(r"(\w+): bid \$\d+ \[bid [\d.]+ ms\]", lines[frame["ply"]])
        assert bidders == [d["who"] for d in frame["decisions"]]
    sales = [line for line in lines.values() if "[sell_card_choice" in line]
    assert len(sales) == sum(d["kind"] == "sell_card_choice" for d in log["decisions"]) > 0
    assert all(re.search(r"\d+ +\w+: puts a card face down for sale \[", line) for line in sales)


class OnceWrong(RandomBot):
    """Answers an id that was not offered at its third decision: one real strike."""

    asked = 0

    def decide(self, decision, view):  # type: ignore[no-untyped-def]
        self.asked += 1
        return "no-such-option" if self.asked == 3 else super().decide(decision, view)


def test_strikes_show_on_the_decision_line(tmp_path):
    players = [InProcessPlayer(name="wrong", bot=OnceWrong("tokaido-duo", 1)),
               InProcessPlayer(name="random", bot=RandomBot("tokaido-duo", 2))]
    log = play(find_game("tokaido-duo"), players, 22).log
    out = CliRunner().invoke(main, ["replay", write(tmp_path, log), "--trace"])
    assert out.exit_code == 0, out.output
    struck = [line for line in out.output.splitlines() if "STRIKE" in line]
    assert len(struck) == 1 and "seat 0:" in struck[0]
    assert "STRIKE 1 unknown_option: 'no-such-option'" in struck[0]


def test_without_trace_the_replay_says_one_line(tmp_path):
    log = random_log("doubletrack", 3, (), 5)
    out = CliRunner().invoke(main, ["replay", write(tmp_path, log)])
    assert out.exit_code == 0 and len(out.output.splitlines()) == 1


def test_a_log_that_does_not_replay_prints_no_trace(tmp_path):
    log = json.loads(json.dumps(random_log("doubletrack", 3, (), 5)))
    log["result"]["winners"] = [2, 1]
    out = CliRunner().invoke(main, ["replay", write(tmp_path, log), "--trace"])
    assert_clean_error(out, 1, "does not match")
    assert not any(STEP_LINE.match(line) for line in out.output.splitlines())
