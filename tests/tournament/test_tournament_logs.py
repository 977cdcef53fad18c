"""``referee tournament --logs DIR``: every game's match log on disk, as fastchess's -pgnout."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli import main
from referee.replay import replay

from support.cli import assert_clean_error


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_every_game_of_the_tournament_is_written_and_replays(tmp_path):
    logs = tmp_path / "logs"
    out = invoke("tournament", "greedy", "random", "mcts:playouts=20", "--game", "tokaido-duo",
                 "--games", "2", "--seed", "7", "--concurrency", "2", "--logs", str(logs),
                 "--state-dir", str(tmp_path / "state"), "--json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    files = sorted(logs.glob("*.json"))
    assert len(files) == doc["played"] == 6
    assert f"6 match logs written to {logs}" in out.stderr
    names = set()
    for path in files:
        log = json.loads(path.read_text())
        assert path.stem == log["match_id"] and log["match_id"].startswith(doc["tournament"])
        assert replay(log).matches
        names.add(tuple(sorted(p["name"] for p in log["players"])))
    assert names == {("greedy", "random"), ("greedy", "mcts:playouts=20"),
                     ("mcts:playouts=20", "random")}
    assert not list(logs.glob(".*"))  # no temporary file left behind


def test_a_resumed_tournament_writes_the_games_it_plays(tmp_path):
    logs, state = tmp_path / "logs", tmp_path / "state"
    first = invoke("tournament", "greedy", "random", "--game", "tokaido-duo", "--games", "4",
                   "--seed", "3", "--logs", str(logs), "--state-dir", str(state), "--json")
    assert first.exit_code == 0, first.output
    [state_file] = state.glob("*.jsonl")
    lines = state_file.read_text().splitlines()
    state_file.write_text("\n".join(lines[:3]) + "\n")  # as if stopped after two games
    kept = {json.loads(line)["match_id"] for line in lines[1:3]}
    for path in logs.glob("*.json"):
        path.unlink()
    again = invoke("tournament", "greedy", "random", "--game", "tokaido-duo",
                   "--resume", state_file.stem, "--logs", str(logs), "--state-dir", str(state))
    assert again.exit_code == 0, again.output
    written = {p.stem for p in logs.glob("*.json")}
    assert len(written) == 2 and not written & kept


def test_logs_and_the_ladder_together(tmp_path):
    db = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    out = invoke("tournament", "greedy", "random", "--game", "tokaido-duo", "--games", "2",
                 "--logs", str(tmp_path / "logs"), "--db", db,
                 "--state-dir", str(tmp_path / "state"))
    assert out.exit_code == 0, out.output
    from ladder.store import open_db, stored_logs

    engine = open_db(db)
    try:
        ids = [p.stem for p in (tmp_path / "logs").glob("*.json")]
        stored = stored_logs(engine, ids)
    finally:
        engine.dispose()
    assert len(ids) == 2 and set(stored) == set(ids)
    for match_id, log in stored.items():
        assert log == json.loads((tmp_path / "logs" / f"{match_id}.json").read_text())


def test_a_folder_that_cannot_be_written_is_one_line_before_any_game(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for target, says in [(a_file, "is a file"), (a_file / "sub", "cannot write in")]:
        out = invoke("tournament", "greedy", "random", "--game", "tokaido-duo", "--games", "2",
                     "--logs", str(target), "--state-dir", str(tmp_path / "state"))
        assert_clean_error(out, None, says)
    assert not (tmp_path / "state").exists() or not list((tmp_path / "state").glob("*"))


def test_the_resume_hint_keeps_the_logs_folder(tmp_path):
    from cli.tournament import resume_command
    from tournaments.plan import Plan, parse_entrants
    from tournaments.store import JsonlStateStore, new_tournament_id
    from tournaments.tournament import Tournament

    plan = Plan("tokaido-duo", tuple(parse_entrants(["greedy", "random"])), 2, 2, 1)
    t = Tournament.start(plan, JsonlStateStore(tmp_path, new_tournament_id()))
    assert resume_command(t, None, None, 1, Path("my logs")).endswith("--logs 'my logs'")
