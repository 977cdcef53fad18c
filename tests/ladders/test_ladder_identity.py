"""A name in the ladder stands for one bot (issue 14, item 11): ``greedy=random`` must not
merge a random bot's results into greedy's rating.  A new version is started only on request."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from cli import main
from ladder import LadderError
from ladder.identity import claim_names, identity_spec
from ladder.models import Bot, MatchSeat
from ladder.store import open_db, record_match

from support.cli import assert_clean_error
from support.ladder_db import make_log


def bots(engine):
    with engine.connect() as conn:
        return {r.name: (r.spec, r.version) for r in conn.execute(
            select(Bot.name, Bot.spec, Bot.version))}


def test_a_name_records_what_it_stands_for(ladder_engine):
    assert claim_names(ladder_engine, {"a": "greedy", "b": "http://h:1/"}) == {"a": 1, "b": 1}
    assert bots(ladder_engine) == {"a": ("greedy", 1), "b": ("http://h:1", 1)}
    assert claim_names(ladder_engine, {"a": "greedy", "b": "http://H:1"}) == {"a": 1, "b": 1}


def test_another_bot_under_a_taken_name_is_refused_unless_a_new_version(ladder_engine):
    claim_names(ladder_engine, {"greedy": "greedy"})
    with pytest.raises(LadderError, match="'greedy' is 'greedy' .version 1., not 'random'"):
        claim_names(ladder_engine, {"greedy": "random"})
    assert claim_names(ladder_engine, {"greedy": "random"}, new_version=True) == {"greedy": 2}
    assert bots(ladder_engine)["greedy"] == ("random", 2)


def test_recording_refuses_a_mismatch_and_stamps_the_version(ladder_engine):
    claim_names(ladder_engine, {"x": "greedy", "y": "random"})
    log = make_log("m1", ["x", "y"], [1, 2])
    with pytest.raises(LadderError, match="'x' is 'greedy'"):
        record_match(ladder_engine, log, specs={0: "mcts", 1: "random"})
    claim_names(ladder_engine, {"x": "mcts"}, new_version=True)
    assert record_match(ladder_engine, log, specs={0: "mcts", 1: "random"})
    with ladder_engine.connect() as conn:
        versions = conn.execute(select(MatchSeat.seat, MatchSeat.bot_version)
                                .order_by(MatchSeat.seat)).all()
    assert [tuple(v) for v in versions] == [(0, 2), (1, 1)]


def test_names_recorded_before_specs_were_kept_adopt_one(ladder_engine):
    record_match(ladder_engine, make_log("old", ["p", "q"], [1, 2]))  # no specs: legacy
    assert bots(ladder_engine)["p"] == (None, 1)
    claim_names(ladder_engine, {"p": "greedy"})
    assert bots(ladder_engine)["p"] == ("greedy", 1)


def test_credentials_never_stand_in_the_ladder():
    assert identity_spec("http://user:secret@Bot.Example:8000/v1/") == \
        "http://bot.example:8000/v1"
    assert identity_spec("mcts:playouts=50") == "mcts:playouts=50"


def test_the_tournament_command_refuses_then_accepts_with_new_version(tmp_path):
    url = f"sqlite:///{tmp_path / 'l.db'}"
    common = ["--game", "tokaido-duo", "--games", "2", "--db", url, "--state-dir",
              str(tmp_path), "--no-progress", "--json"]
    runner = CliRunner()
    first = runner.invoke(main, ["tournament", "greedy", "other=random", *common])
    assert first.exit_code == 0, first.output
    merged = runner.invoke(main, ["tournament", "greedy=random", "other=random", *common])
    assert_clean_error(merged, 1, "'greedy' is 'greedy'", "--new-version")
    again = runner.invoke(main, ["tournament", "greedy=random", "other=random",
                                 "--new-version", *common])
    assert again.exit_code == 0, again.output
    engine = open_db(url)
    try:
        assert bots(engine)["greedy"] == ("random", 2)
    finally:
        engine.dispose()


def test_after_new_version_ladder_show_has_a_row_per_version(tmp_path):
    url = f"sqlite:///{tmp_path / 'l.db'}"
    common = ["--game", "tokaido-duo", "--db", url, "--state-dir", str(tmp_path),
              "--no-progress", "--json", "--seed", "5"]
    runner = CliRunner()
    first = runner.invoke(main, ["tournament", "me=greedy", "other=random", "--games", "4",
                                 *common])
    assert first.exit_code == 0, first.output
    again = runner.invoke(main, ["tournament", "me=random", "other=random", "--games", "2",
                                 "--new-version", *common])
    assert again.exit_code == 0, again.output
    out = runner.invoke(main, ["ladder", "show", "--game", "tokaido-duo", "--db", url, "--json"])
    assert out.exit_code == 0, out.output
    rows = {(r["bot"], r["version"]): r for r in json.loads(out.stdout)}
    assert set(rows) == {("me", 1), ("me", 2), ("other", 1)}
    assert rows[("me", 1)]["games"] == 4 and rows[("me", 2)]["games"] == 2
    assert rows[("other", 1)]["games"] == 6
    for key in rows:
        r = rows[key]
        assert r["wins"] + r["draws"] + r["losses"] == r["games"]
        assert r["interval"] is not None  # each version fitted as a bot of its own
    assert rows[("me", 1)]["rating"] != rows[("me", 2)]["rating"]
    assert sorted(r["rank"] for r in rows.values()) == [1, 2, 3]
    table = runner.invoke(main, ["ladder", "show", "--game", "tokaido-duo", "--db", url])
    assert "me v1" in table.output and "me v2" in table.output and "other v1" not in table.output
