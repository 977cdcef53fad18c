"""Logs replay under the rules version they were played by (rules page, 'Cards': version 3 made
Trade Places and Steal A Gate Pass optional; version 2 is kept so that its logs still replay).

``doubletrack-rules-2.json`` is a match log written by the version 2 engine itself (greedy
self-play, 3 seats, seed 46, timings zeroed): in it seat 0 steals a gate when asked, later takes
the only opponent gate without being asked, and seat 2 trades places.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli import main
from referee.core import GameOptionsError
from referee.frames import build_frames
from referee.matchlog import LogError
from referee.replay import replay

from dt_support import GAME
from support.cli import assert_clean_error

V2_LOG = Path(__file__).resolve().parents[1] / "golden" / "doubletrack-rules-2.json"


def v2_log() -> dict[str, Any]:
    log: dict[str, Any] = json.loads(V2_LOG.read_text("utf-8"))
    return log


def test_the_current_rules_are_version_3_and_version_2_is_kept_for_replays():
    assert GAME.rules_version == "3" and GAME.older_rules == ("2",)


def test_a_log_of_version_2_replays_under_version_2_and_shows_in_the_viewer():
    log = v2_log()
    assert log["rules_version"] == "2"
    targets = [d for d in log["decisions"] if d["kind"] == "card_target"]
    assert [d["options"] for d in targets] == [2, 2]  # no `decline` in version 2
    outcome = replay(log)
    assert outcome.matches, outcome.differences
    frames = build_frames(log)
    assert frames["match"]["rules_version"] == "2"
    texts = [t for f in frames["frames"] for t in f["texts"]]
    assert sum("steals the" in t for t in texts) == 2 and any("trades places" in t for t in texts)
    assert not any("declines" in t for t in texts)


def test_the_same_choices_under_version_3_differ_at_the_first_card_target():
    log = copy.deepcopy(v2_log())
    log["rules_version"] = "3"
    outcome = replay(log)
    first = next(d for d in log["decisions"] if d["kind"] == "card_target")
    assert not outcome.matches
    assert outcome.differences == (
        f"step {first['step']}: the log has seat {first['seat']} 'card_target' with 2 options, "
        f"the engine asks seat {first['seat']} 'card_target' with 3 options",)


@pytest.mark.parametrize("version", ["1", "4", None])
def test_a_log_of_a_version_this_referee_does_not_play_is_refused_naming_both(version):
    log = v2_log()
    log["rules_version"] = version
    with pytest.raises(LogError) as err:
        replay(log)
    assert str(err.value) == (
        f"this log was played under doubletrack rules version {version!r}; this referee plays "
        "version '3' (and replays '2'), so it cannot replay it")
    with pytest.raises(LogError, match="rules version"):
        build_frames(log)


def test_the_cli_replays_a_version_2_log_and_refuses_another(tmp_path):
    path = tmp_path / "v2.json"
    path.write_text(V2_LOG.read_text("utf-8"))
    out = CliRunner().invoke(main, ["replay", str(path)])
    assert out.exit_code == 0 and "replay matches" in out.output
    log = v2_log()
    log["rules_version"] = "1"
    path.write_text(json.dumps(log))
    assert_clean_error(CliRunner().invoke(main, ["replay", str(path)]), 1,
                       "rules version '1'", "plays version '3' (and replays '2')")


def test_new_state_under_another_version_is_a_typed_error():
    assert GAME.new_state_under("2", 3, 46).may_decline is False
    assert GAME.new_state(3, 46).may_decline is True
    with pytest.raises(GameOptionsError, match="version '9'.*plays version '3' and replays '2'"):
        GAME.new_state_under("9", 3, 46)


@pytest.mark.parametrize("version", ["3", "2"])
def test_the_view_names_the_rules_it_is_played_by_and_a_determinized_state_keeps_them(version):
    """Like Tokaido Duo's, every Doubletrack view carries ``rules_version``: a bot (or a search
    bot's determinized copy) can tell whether the two cards may be declined."""
    state = GAME.new_state_under(version, 3, 46)
    for seat in (0, 1, 2, None):
        assert state.view(seat)["rules_version"] == version
    seat = state.pending()[0].seat
    copy_ = GAME.determinize(state.view(seat), 1)
    assert copy_.may_decline == (version == "3")
    assert copy_.view(seat)["rules_version"] == version


def test_the_frames_of_a_version_2_log_show_version_2_views():
    doc = build_frames(v2_log())
    assert {f["view"]["rules_version"] for f in doc["frames"]} == {"2"}
