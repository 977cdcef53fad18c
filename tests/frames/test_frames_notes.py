"""A bot's own words (the ``log`` text of its answers, the ``stderr`` lines of a bot the referee
started) reach the author's frames and trace, under their decision, and never a spectator's."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from click.testing import CliRunner

from cli import main
from referee.frames import build_frames
from referee.frames.trace import trace_lines
from referee.matchlog import LogError

from frames_support import random_log


def noted_log() -> dict[str, Any]:
    """A real Doubletrack log with words added by hand: a two-line ``log`` on the first
    decision, ``stderr`` lines (one with a terminal colour) on the fifth, both on the tenth."""
    log = copy.deepcopy(dict(random_log("doubletrack", 3, (), 41)))
    decisions = log["decisions"]
    decisions[0]["log"] = "plan: rush the gate\nsecond thought"
    decisions[4]["stderr"] = ["warming up", "\x1b[31mred alert\x1b[0m"]
    decisions[9].update(log="why not", stderr=["debug: 3 options"])
    return log


def notes_by_step(doc: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(f["step"], d["seat"]): {k: d[k] for k in ("log", "stderr") if k in d}
            for f in doc["frames"] for d in f["decisions"] if "log" in d or "stderr" in d}


def test_the_authors_frames_carry_each_bots_words_on_its_decision():
    log = noted_log()
    d0, d4, d9 = (log["decisions"][i] for i in (0, 4, 9))
    assert notes_by_step(build_frames(log, notes=True)) == {
        (d0["step"], d0["seat"]): {"log": d0["log"]},
        (d4["step"], d4["seat"]): {"stderr": d4["stderr"]},
        (d9["step"], d9["seat"]): {"log": "why not", "stderr": ["debug: 3 options"]},
    }


def test_a_spectators_frames_carry_none_of_them():
    log = noted_log()
    text = json.dumps(build_frames(log))
    assert "rush the gate" not in text and "warming up" not in text and "debug:" not in text
    assert build_frames(log) == build_frames(random_log("doubletrack", 3, (), 41))


@pytest.mark.parametrize("field, value", [("stderr", "one string"), ("stderr", [1, 2]),
                                          ("log", ["a", "list"])])
def test_words_of_the_wrong_shape_are_a_log_error(field, value):
    log = noted_log()
    log["decisions"][2][field] = value
    with pytest.raises(LogError, match=f"'{field}' is not"):
        build_frames(log, notes=True)


def test_the_trace_prints_them_under_their_decision_before_the_events(tmp_path):
    log = noted_log()
    path = tmp_path / "noted.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    out = CliRunner().invoke(main, ["replay", str(path), "--trace"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    doc = build_frames(log, notes=True)
    for index, said in ((0, ["log: plan: rush the gate", "log: second thought"]),
                        (4, ["stderr: warming up", "stderr: \\x1b[31mred alert\\x1b[0m"]),
                        (9, ["log: why not", "stderr: debug: 3 options"])):
        entry = log["decisions"][index]
        frame = next(f for f in doc["frames"] if f["step"] == entry["step"])
        who = next(d["who"] for d in frame["decisions"] if d["seat"] == entry["seat"])
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{frame['ply']:>4}. "))
        assert lines[at + 1:at + 1 + len(said)] == [f"      | {who} {s}" for s in said]
        assert lines[at + 1 + len(said):at + 1 + len(said) + len(frame["texts"])] == [
            "      " + t for t in frame["texts"]]
    assert sum(line.startswith("      | ") for line in lines) == 6
    assert "\x1b" not in out.output


def test_a_trace_without_words_has_no_word_lines():
    doc = build_frames(random_log("tokaido-duo", 2, (), 41), notes=True)
    assert not any("| " in line for line in trace_lines(doc))
