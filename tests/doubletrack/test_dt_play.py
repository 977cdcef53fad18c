"""Doubletrack through the runner, the CLI, replay, and the greedy bot's strength."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from dt_support import GAME
from support.cli import assert_clean_error
from support.matches import play_bots

from bots import find_bot
from cli import main
from referee.players import LazyView
from referee.replay import replay


def test_runner_plays_a_match_and_replay_reproduces_it():
    record = play_bots("doubletrack", ("random", "greedy", "random", "greedy"), 17)
    assert record.log["board"]["version"] == "reconstruction-1"
    assert any(d["kind"] == "bid" for d in record.log["decisions"])
    outcome = replay(json.loads(json.dumps(record.log)))
    assert outcome.matches, outcome.differences


def test_cli_match_random_random_greedy():
    out = CliRunner().invoke(main, ["match", "random", "random", "greedy", "--game",
                                    "doubletrack", "--seed", "4", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert summary["game"] == "doubletrack" and len(summary["seats"]) == 3
    assert summary["end"] in ("normal", "turn_limit") and summary["reason"]
    for seat in summary["seats"]:
        assert seat["score"] == seat["breakdown"]["position"]


def test_cli_rejects_a_bad_board_in_one_line(tmp_path):
    bad = tmp_path / "b.yaml"
    bad.write_text("version: x\n")
    out = CliRunner().invoke(main, ["match", "random", "random", "random", "--game",
                                    "doubletrack", "--board", str(bad)])
    assert_clean_error(out, None, "colours: missing")


def greedy_wins(seats: int, games: int) -> float:
    wins = 0
    for seed in range(games):
        me = seed % seats
        bots = [find_bot("greedy" if s == me else "random", "doubletrack", seed * 7 + s)
                for s in range(seats)]
        st = GAME.new_state(seats, 10_000 + seed)
        while st.pending():
            st.apply({d.seat: bots[d.seat].decide(d, LazyView(lambda d=d: st.view(d.seat)))
                      for d in st.pending()})
        result = st.result()
        assert result is not None
        wins += me in result.winners
    return wins / games


@pytest.mark.parametrize("seats,floor", [(3, 0.533), (4, 0.40)])
def test_greedy_beats_random_clearly(seats: int, floor: float):
    """The target itself, 1.6x the fair share of wins (bench/doubletrack_strength.py checks it
    over 1,000 games). Seeded, so the same every run: 600 games measure 0.56 (3 seats) and
    0.515 (4 seats); 300 cleared the 3-seat target only by one game."""
    assert greedy_wins(seats, 600) > floor
