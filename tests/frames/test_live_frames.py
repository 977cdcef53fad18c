"""Frames of a match still being played (:func:`referee.frames.build_live`): the finished
match's frames as far as its log goes, a step logged only in part left for later."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from arena import MatchDescription, Seat, play_match
from referee.frames import LogError, build_frames, build_live


def finished(game: str, seats: int) -> dict[str, Any]:
    return dict(play_match(MatchDescription(game, tuple(Seat("random") for _ in range(seats)),
                                            7)).log)


def prefix(log: dict[str, Any], decisions: int) -> dict[str, Any]:
    """The log as the runner has it after ``decisions`` decisions: no result yet."""
    cut = {k: v for k, v in log.items() if k not in ("result", "game_result")}
    cut["decisions"] = log["decisions"][:decisions]
    return cut


@pytest.mark.parametrize("game,seats", [("tokaido-duo", 2), ("doubletrack", 3)])
def test_live_frames_are_the_first_frames_of_the_match(game, seats):
    log = finished(game, seats)
    whole = build_frames(log)
    for n in (0, 1, len(log["decisions"]) // 2, len(log["decisions"])):
        doc = build_live(prefix(log, n))
        steps = len({d["step"] for d in log["decisions"][:n]})
        assert doc["frames"] == whole["frames"][:len(doc["frames"])]
        assert len(doc["frames"]) in (steps + 1, steps)  # a step cut in two waits
        assert doc["match"]["result"] is None and doc["match"]["outcome"] == ""
        assert doc["board"] == whole["board"]


def test_a_step_logged_in_part_waits_for_its_other_decisions():
    """Doubletrack's sealed bids are one step answered by every seat: the referee books them
    one by one, and a spectator sees the step only once all are in."""
    log = finished("doubletrack", 3)
    sizes = Counter(d["step"] for d in log["decisions"])
    step = next(s for s, n in sorted(sizes.items()) if n > 1)
    first = next(i for i, d in enumerate(log["decisions"]) if d["step"] == step)
    doc = build_live(prefix(log, first + 1))
    assert len(doc["frames"]) == len({d["step"] for d in log["decisions"][:first]}) + 1
    assert all(f["step"] != step for f in doc["frames"])


def test_a_log_that_does_not_fit_the_game_is_refused():
    log = prefix(finished("tokaido-duo", 2), 6)
    log["decisions"][2] = {**log["decisions"][2], "choice": "nonsense"}
    with pytest.raises(LogError, match="nonsense"):
        build_live(log)
