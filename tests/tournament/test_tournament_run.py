"""Playing tournaments: results, resume after an interruption, process pools, the SPRT loop."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest

from tournaments import Interrupted, TournamentError
from tournaments.plan import Entrant, Plan, SprtTerms
from tournaments.sprt import Sprt, SprtRun
from tournaments.store import JsonlStateStore
from tournaments.tournament import Tournament, report

import tournament_bots


@pytest.fixture(autouse=True)
def with_test_bots():
    with tournament_bots.registered():
        yield
TID = "0badcafe"


def make_plan(bots: list[str], games: int, seats: int = 2, seed: int = 11,
              want_log: bool = False) -> Plan:
    entrants = tuple(Entrant(f"{b}{i}" if bots.count(b) > 1 else b, b) for i, b in enumerate(bots))
    return Plan("toy-race", entrants, games, seats, seed, keep_logs=want_log)


def store(path, tid: str = TID) -> JsonlStateStore:
    return JsonlStateStore(path, tid)


def finished_report(t: Tournament, concurrency: int = 1) -> dict:
    doc = report(t, t.run(concurrency))
    assert doc["complete"]
    return doc


def test_stronger_bot_wins_with_clear_statistics(tmp_path):
    t = Tournament.start(make_plan(["strong", "weak", "noisy"], 20), store(tmp_path))
    doc = finished_report(t)
    assert [e["name"] for e in doc["entrants"]][0] == "strong"
    assert doc["played"] == 60 and doc["matches"] == 60
    sw = next(p for p in doc["pairs"] if {p["a"], p["b"]} == {"strong", "weak"})
    assert sw["a"] == "strong" and sw["points"] == 20
    assert sw["pentanomial"]["ww"] == 10 and sw["stats"]["los"] == 1.0
    assert sw["stats"]["elo"] is None  # a clean sweep: infinite Elo, written as null
    sn = next(p for p in doc["pairs"] if {p["a"], p["b"]} == {"strong", "noisy"})
    assert sn["points"] > 15 and sn["stats"]["los"] > 0.99
    cross = doc["crosstable"]
    assert cross["strong"]["weak"]["wins"] == 20 and cross["weak"]["strong"]["losses"] == 20
    json.dumps(doc)  # JSON-ready, no inf or nan


def test_multiplayer_points_are_the_share_of_opponents_beaten(tmp_path):
    t = Tournament.start(make_plan(["strong", "weak", "noisy", "other-noisy"], 6, seats=3),
                         store(tmp_path))
    doc = finished_report(t)
    assert doc["matches"] == 4 * 6  # four tables of three
    # every game hands out 3 comparisons of one point: 1.5 points, half a point per seat
    assert sum(e["points"] for e in doc["entrants"]) == pytest.approx(24 * 1.5)
    assert doc["entrants"][0]["name"] == "strong"
    assert all(p["stats"]["blocks"] == 2 * 2 for p in doc["pairs"])  # 2 tables each, 2 rotations


def test_start_checks_the_plan(tmp_path):
    with pytest.raises(TournamentError, match="multiple of 3"):
        Tournament.start(make_plan(["strong", "weak", "noisy"], 4, seats=3), store(tmp_path))
    assert not list(tmp_path.iterdir())


def test_resume_after_interruption_plays_only_missing_games(tmp_path):
    bots = ["noisy", "other-noisy", "weak"]
    full = finished_report(Tournament.start(make_plan(bots, 10), store(tmp_path / "full")))

    t = Tournament.start(make_plan(bots, 10), store(tmp_path / "cut"))

    def stop_after_7(outcome, table):
        if table.played == 7:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        t.run(1, progress=stop_after_7)
    resumed = Tournament.resume(store(tmp_path / "cut"))
    assert len(resumed.done) == 7
    played = []
    table = resumed.run(1, record=lambda outcome, fixture: played.append(outcome.index))
    assert sorted(played) == sorted(set(range(30)) - set(resumed.done) | set(played))
    assert len(played) == 23 and not set(played) & set(range(7))
    assert report(resumed, table) == full


def test_torn_state_line_is_replayed(tmp_path):
    t = Tournament.start(make_plan(["noisy", "weak"], 4), store(tmp_path))
    t.run(1)
    path = t.store.path
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:10])
    resumed = Tournament.resume(store(tmp_path))
    assert len(resumed.done) == 3
    assert [s.index for s in resumed.missing()] == [3]


def test_state_lines_without_strikes_still_load(tmp_path):
    """State files written before strikes and forfeits were kept resume as no strikes."""
    t = Tournament.start(make_plan(["noisy", "weak"], 2), store(tmp_path))
    t.run(1)
    path = t.store.path
    header, *lines = path.read_text().splitlines()
    old = [{k: v for k, v in json.loads(line).items() if k not in ("strikes", "forfeited")}
           for line in lines]
    path.write_text("\n".join([header, *map(json.dumps, old)]) + "\n")
    resumed = Tournament.resume(store(tmp_path))
    doc = report(resumed, resumed.standings())
    assert doc["played"] == 2
    assert {(e["strikes"], e["forfeits"]) for e in doc["entrants"]} == {(0, 0)}


def test_resume_errors_are_one_line(tmp_path):
    with pytest.raises(TournamentError, match="no tournament state"):
        Tournament.resume(store(tmp_path, "12345678"))
    with pytest.raises(TournamentError, match="not a tournament id"):
        Tournament.resume(store(tmp_path, "../etc"))
    (tmp_path / "abcdef01.jsonl").write_text("{}\n")
    with pytest.raises(TournamentError, match="not a tournament state file"):
        Tournament.resume(store(tmp_path, "abcdef01"))


def test_process_pool_gives_the_same_results(tmp_path):
    bots = ["noisy", "other-noisy", "strong", "weak"]
    inline = finished_report(Tournament.start(make_plan(bots, 4), store(tmp_path / "a")), 1)
    pooled = finished_report(Tournament.start(make_plan(bots, 4), store(tmp_path / "b")), 2)
    assert pooled == inline


def test_recorder_gets_logs_and_entrant_names(tmp_path):
    calls = []
    t = Tournament.start(make_plan(["strong", "weak"], 2, want_log=True), store(tmp_path))
    t.run(1, record=lambda outcome, fixture: calls.append((outcome.log, fixture.names)))
    assert len(calls) == 2
    log, names = calls[1]
    assert log["match_id"] == f"{TID}-1" and [p["name"] for p in log["players"]] == list(names)
    assert names == ("weak", "strong")
    # the state file keeps only the compact outcome, never the log
    assert "decisions" not in t.store.path.read_text()


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_tournament_holds_no_log_once_a_match_is_recorded(tmp_path, concurrency):
    """With --db every log comes back to be recorded; kept after that, a long tournament's
    memory grew by a log (about 100 KiB) per game."""
    recorded = []
    t = Tournament.start(make_plan(["strong", "weak", "noisy"], 4, want_log=True),
                         store(tmp_path))
    table = t.run(concurrency, record=lambda outcome, fixture: recorded.append(outcome.log))
    assert len(recorded) == 12 and all(log and log["decisions"] for log in recorded)
    assert len(t.done) == 12 and all(o.log is None for o in t.done.values())
    assert all(o.log is None for block in table.blocks.values() for o in block)


def run_sprt(path, new: Entrant, base: Entrant, seed: int, terms: SprtTerms,
             concurrency: int = 1, tid: str = TID) -> SprtRun:
    plan = Plan("toy-race", (new, base), 2, 2, seed, sprt=terms)
    return Sprt.start(plan, store(path, tid)).run(concurrency)


def test_sprt_accepts_h1_for_stronger_and_h0_for_equal(tmp_path):
    strong = run_sprt(tmp_path, Entrant("strong", "strong"), Entrant("noisy", "noisy"), 3,
                      SprtTerms(0, 10, 0.05, 0.05, "normalized", 2000), tid="00000001")
    assert strong.verdict == "H1" and strong.trace[-1].llr >= strong.bounds[1]
    equal = run_sprt(tmp_path, Entrant("noisy", "noisy"), Entrant("other", "other-noisy"), 3,
                     SprtTerms(0, 40, 0.05, 0.05, "normalized", 5000), tid="00000002")
    assert equal.verdict == "H0" and equal.trace[-1].llr <= equal.bounds[0]
    assert [s.pairs for s in equal.trace] == list(range(1, len(equal.trace) + 1))


def test_sprt_trace_does_not_depend_on_concurrency(tmp_path):
    runs = [run_sprt(tmp_path, Entrant("a", "noisy"), Entrant("b", "other-noisy"), 5,
                     SprtTerms(-20, 20, 0.05, 0.05, "logistic", 30), concurrency=j,
                     tid=f"0000000{j}")
            for j in (1, 2)]
    assert runs[0].trace == runs[1].trace and len(runs[0].trace) >= 1


def test_state_file_header_round_trips(tmp_path):
    plan = make_plan(["strong", "weak"], 2)
    Tournament.start(plan, store(tmp_path))
    loaded, done = store(tmp_path).load()
    assert loaded == plan and done == {}


def test_a_state_file_of_the_previous_version_resumes(tmp_path):
    """The header as the versions before the tournament package wrote it (with its
    ``settings``) still loads: a tournament interrupted before an upgrade can be finished."""
    header = {"format": "referee-tournament-state", "version": 1, "id": TID, "plan": {
        "game": "toy-race", "entrants": [{"name": "strong", "bot": "strong"},
                                         {"name": "weak", "bot": "weak"}],
        "games": 2, "seats": 2, "seed": 11,
        "settings": {"game": "toy-race", "board_path": None, "options": {}, "time_ms": 900,
                     "bank_ms": 50, "strikes": 2, "want_log": True}}}
    (tmp_path / f"{TID}.jsonl").write_text(json.dumps(header) + "\n")
    t = Tournament.resume(store(tmp_path))
    assert (t.plan.time_control.decision_ms, t.plan.time_control.bank_ms) == (900, 50)
    assert t.plan.strikes == 2 and t.plan.keep_logs and t.plan.board is None
    assert t.plan.to_dict() == header["plan"]
    assert report(t, t.run(1))["played"] == 2


def test_a_taken_id_is_refused(tmp_path):
    Tournament.start(make_plan(["strong", "weak"], 2), store(tmp_path))
    with pytest.raises(TournamentError, match="exists already"):
        Tournament.start(make_plan(["strong", "weak"], 2), store(tmp_path))


class MemoryStore:
    """A state store that is not a file: what a database-backed store implements."""

    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id
        self.plan: Plan | None = None
        self.lines: list[dict] = []
        self.held = False

    def create(self, plan: Plan) -> None:
        if self.plan is not None:
            raise TournamentError("taken")
        self.plan = json.loads(json.dumps(plan.to_dict()))

    def load(self):
        from tournaments.fixtures import Outcome

        if self.plan is None:
            raise TournamentError("no such tournament")
        return Plan.from_dict(self.plan), {o.index: o for o in map(Outcome.from_line, self.lines)}

    def append(self, outcome) -> None:
        self.lines.append(json.loads(json.dumps(outcome.to_line())))

    @contextmanager
    def exclusive(self):
        if self.held:
            raise TournamentError("being played")
        self.held = True
        try:
            yield
        finally:
            self.held = False


def test_any_state_store_serves_a_tournament_and_its_resume(tmp_path):
    bots = ["noisy", "other-noisy", "weak"]
    on_file = finished_report(Tournament.start(make_plan(bots, 4), store(tmp_path)))
    memory = MemoryStore(TID)
    t = Tournament.start(make_plan(bots, 4), memory)

    def stop_after_5(outcome, table):
        if table.played == 5:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        t.run(1, progress=stop_after_5)
    assert len(memory.lines) == 5 and not memory.held
    resumed = Tournament.resume(memory)
    with resumed.playing(), pytest.raises(TournamentError, match="being played"):
        Tournament.resume(memory).run(1)
    assert report(resumed, resumed.run(1)) == on_file
