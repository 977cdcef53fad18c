"""``referee tournament --broker``: the same tournament played by a real ``referee worker``
(a Celery prefork worker, started here on a queue of its own) through the real Redis at
``REFEREE_TEST_REDIS`` ends exactly as when this process plays it: standings, crosstable,
every match's outcome, the logs and the ladder; an interrupted run resumes through the broker
to the same end; a worker process killed in the middle of a match changes nothing.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli import main

from support.cli import assert_clean_error
from support.processes import grandchild_pids

TESTS = Path(__file__).resolve().parent.parent
REDIS = os.environ.get("REFEREE_TEST_REDIS", "redis://127.0.0.1:6379/0")


class Worker:
    """``referee worker --concurrency 1`` (one prefork child) on a queue unique to this run,
    with the service's address policy as it is by default (no network allowed back)."""

    def __init__(self, tmp: Path) -> None:
        self.queue = f"referee-broker-test-{os.getpid()}-{secrets.token_hex(4)}"
        self.log = tmp / "worker.log"
        env = {**os.environ, "PYTHONPATH": str(TESTS), "REFEREE_BROKER": REDIS,
               "REFEREE_QUEUE": self.queue, "REFEREE_DB": f"sqlite:///{tmp / 'worker.db'}"}
        env.pop("REFEREE_ALLOW_NETWORKS", None)
        # ``support.service_worker`` is ``referee`` with the test bots (``sleepy``); its delay
        # per decision is cut so that a match lasts about a second.
        code = ("import sys, support.service_worker as w; w.DELAY_S = 0.004; "
                "from cli import main; main(sys.argv[1:])")
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, "worker", "--concurrency", "1",
                 "--loglevel", "warning"],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def child(self, timeout: float = 60) -> int:
        """The pid of the worker's pool process (waiting for it to start): a child of the
        Celery process that ``referee worker`` supervises."""
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            pool = grandchild_pids(self.proc.pid)
            if pool:
                return pool.pop()
            assert self.proc.poll() is None, self.log.read_text(errors="replace")
            time.sleep(0.05)
        raise AssertionError(f"no pool process: {self.log.read_text(errors='replace')}")

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def worker(tmp_path_factory: Any) -> Iterator[Worker]:
    from support.redis_service import redis_ok

    redis_ok()
    running = Worker(tmp_path_factory.mktemp("broker"))
    try:
        running.child()
        yield running
    finally:
        running.close()


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def via(worker: Worker) -> list[str]:
    return ["--broker", REDIS, "--queue", worker.queue]


def outcomes(state: Path, tournament: str) -> dict[int, dict[str, Any]]:
    """Every booked match of a state file by its index, without the tournament's own ids."""
    lines = (state / f"{tournament}.jsonl").read_text().splitlines()[1:]
    found = {}
    for line in lines:
        data = json.loads(line)
        data.pop("match_id")
        found[data["index"]] = data
    return found


def results(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "tournament"}


def ladder_rows(url: str, game: str) -> list[Any]:
    from ladder.leaderboard import leaderboard
    from ladder.store import open_db

    engine = open_db(url)
    try:
        return [{k: v for k, v in row.items() if k != "last_played"}
                for row in leaderboard(engine, game)]
    finally:
        engine.dispose()


def test_a_tournament_through_the_broker_ends_as_in_one_process(worker, tmp_path):
    common = ["random", "greedy", "mcts:playouts=2", "--game", "tokaido-duo", "--games", "2",
              "--seed", "11", "--json"]
    runs = {}
    for name, extra in (("local", []), ("broker", via(worker) + ["-j", "3"])):
        folder = tmp_path / name
        out = invoke("tournament", *common, "--state-dir", str(folder / "state"),
                     "--logs", str(folder / "logs"), "--db", f"sqlite:///{folder / 'l.db'}",
                     *extra)
        assert out.exit_code == 0, out.output
        runs[name] = (folder, json.loads(out.stdout))
    (local_dir, local), (broker_dir, broker) = runs["local"], runs["broker"]
    assert results(broker) == results(local) and local["played"] == 6
    assert outcomes(broker_dir / "state", broker["tournament"]) == \
        outcomes(local_dir / "state", local["tournament"])
    for index in range(6):
        logs = [json.loads((d / "logs" / f"{doc['tournament']}-{index}.json").read_text())
                for d, doc in ((local_dir, local), (broker_dir, broker))]
        for key in ("result", "players", "faults", "seed", "board"):
            assert logs[0][key] == logs[1][key], (index, key)
        assert [d["choice"] for d in logs[0]["decisions"]] == \
            [d["choice"] for d in logs[1]["decisions"]]
    assert ladder_rows(f"sqlite:///{broker_dir / 'l.db'}", "tokaido-duo") == \
        ladder_rows(f"sqlite:///{local_dir / 'l.db'}", "tokaido-duo")


def wait_for_games(path: Path, games: int, proc: subprocess.Popen[str]) -> None:
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up and proc.poll() is None:
        if path.exists() and len(path.read_text().splitlines()) > games:
            return
        time.sleep(0.02)
    raise AssertionError(f"the tournament did not get going: {proc.communicate()}")


def test_an_interrupted_broker_tournament_resumes_through_it_to_the_same_end(worker, tmp_path):
    common = ["random", "greedy", "--game", "tokaido-duo", "--games", "16", "--seed", "3"]
    local = invoke("tournament", *common, "--state-dir", str(tmp_path / "local"), "--json")
    assert local.exit_code == 0, local.output
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "support.service_worker", "tournament", *common, *via(worker),
         "--state-dir", str(state), "--no-progress"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not list(state.glob("*.jsonl")) and proc.poll() is None:
            time.sleep(0.02)
        path = next(state.glob("*.jsonl"))
        wait_for_games(path, 2, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    from referee.display import redact

    hint = f"--broker {redact(REDIS)} --queue {worker.queue}"
    assert hint in err and "Traceback" not in err, err
    kept = len(path.read_text().splitlines()) - 1
    assert 2 <= kept < 16, err
    out = invoke("tournament", *common, "--resume", path.stem, "--state-dir", str(state),
                 *via(worker), "--json", "-j", "2")
    assert out.exit_code == 0, out.output
    assert f"{16 - kept} of 16 games to play" in out.stderr
    assert results(json.loads(out.stdout)) == results(json.loads(local.stdout))
    assert outcomes(state, path.stem) == \
        outcomes(tmp_path / "local", json.loads(local.stdout)["tournament"])


def voluntary_switches(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("voluntary_ctxt_switches:")[1].split()[0])


def test_a_worker_process_killed_in_the_middle_of_a_match_changes_nothing(
        worker, tmp_path, monkeypatch):
    import support.service_worker as sleepy

    monkeypatch.setattr(sleepy, "DELAY_S", 0.0)  # here, only the result matters
    common = ["sleepy", "random", "--game", "tokaido-duo", "--games", "2", "--seed", "8",
              "--json"]
    local = invoke("tournament", *common, "--state-dir", str(tmp_path / "local"))
    assert local.exit_code == 0, local.output
    child = worker.child()
    before = voluntary_switches(child)
    done: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: done.update(out=invoke(
        "tournament", *common, "--state-dir", str(tmp_path / "broker"), *via(worker))))
    thread.start()
    give_up = time.monotonic() + 60
    while voluntary_switches(child) < before + 40:  # it sleeps at every decision: playing
        assert time.monotonic() < give_up and thread.is_alive(), done
        time.sleep(0.01)
    os.kill(child, signal.SIGKILL)
    thread.join(timeout=120)
    assert not thread.is_alive()
    out = done["out"]
    assert out.exit_code == 0, out.output
    assert results(json.loads(out.stdout)) == results(json.loads(local.stdout))
    assert worker.child() != child
    assert "WorkerLostError" in worker.log.read_text(errors="replace")  # it was playing


def sleepy_fixtures(tag: str) -> list[Any]:
    from tournaments.fixtures import schedule
    from tournaments.plan import Entrant, Plan

    plan = Plan("tokaido-duo", (Entrant("sleepy", "sleepy"), Entrant("random", "random")),
                games=2, seats=2, seed=4)
    return schedule(plan, f"{tag}-{secrets.token_hex(4)}")


def test_a_match_late_past_the_timeout_is_sent_again_and_counted_once(worker, monkeypatch):
    """Each match (about a second on the worker) outlives a 0.3 s timeout and is sent again;
    the first result of each is taken, the copy revoked."""
    from api.broker_pool import BrokerPool
    from api.tasks import make_celery
    from tournaments.pool import play_fixture

    import support.service_worker as sleepy

    fixtures = sleepy_fixtures("late")
    app = make_celery(REDIS, worker.queue)
    lines: list[str] = []
    try:
        pool = BrokerPool(app, worker.queue, 2, match_timeout_s=0.3, warn=lines.append)
        got = sorted(pool.run(fixtures), key=lambda o: o.index)
    finally:
        app.close()
    monkeypatch.setattr(sleepy, "DELAY_S", 0.0)
    assert got == [play_fixture(f, False) for f in fixtures]
    assert len(lines) == 2 and all("s after a worker started it; sent again" in line
                                   for line in lines), lines


def test_a_match_late_on_every_try_stops_the_pool_in_one_line(worker):
    from api.broker_pool import BrokerError, BrokerPool
    from api.tasks import make_celery

    app = make_celery(REDIS, worker.queue)
    try:
        pool = BrokerPool(app, worker.queue, 1, match_timeout_s=0.3, tries=1)
        with pytest.raises(BrokerError, match=r"no result 0.3 s after a worker started it "
                                              r"\(tries: 1; raise --match-timeout"):
            list(pool.run(sleepy_fixtures("stuck")))
    finally:
        app.close()


def test_the_workers_apply_the_services_address_policy(worker, tmp_path, bot_url):
    out = invoke("tournament", f"me={bot_url}", "greedy", "--game", "tokaido-duo",
                 "--games", "2", "--seed", "1", "--state-dir", str(tmp_path), *via(worker))
    assert_clean_error(out, 1, "the worker refused it: seat me: blocked", "loopback",
                       "0 of 2 games are kept", "--resume")


@pytest.fixture(scope="module")
def bot_url() -> Iterator[str]:
    from bots.server import BotApp, BotServer

    server = BotServer(BotApp("random", None, 7)).start()
    yield server.url
    server.stop()


@pytest.mark.parametrize("url, needle", [
    ("redis://127.0.0.1:1/0", "--broker: cannot reach redis://127.0.0.1:1/0"),
    ("amqp://guest:secret@127.0.0.1//", "is not a redis:// or rediss:// URL"),
])
def test_a_broker_out_of_reach_fails_in_one_line_before_anything_is_written(
        tmp_path, url, needle):
    out = invoke("tournament", "random", "greedy", "--game", "tokaido-duo", "--games", "2",
                 "--state-dir", str(tmp_path), "--broker", url)
    assert_clean_error(out, 1, needle)
    assert "secret" not in out.output and list(tmp_path.iterdir()) == []


def test_a_bot_url_with_credentials_is_never_put_on_the_broker(tmp_path):
    out = invoke("tournament", "me=http://user:pw@127.0.0.1:9", "greedy", "--allow-dead",
                 "--game", "tokaido-duo", "--games", "2", "--state-dir", str(tmp_path),
                 "--broker", REDIS, "--queue", f"nobody-{secrets.token_hex(4)}")
    assert_clean_error(out, 1, "--broker: entrant me: the workers play no bot URL with "
                               "credentials")
    assert "pw" not in out.output and list(tmp_path.iterdir()) == []


def test_broker_options_need_a_broker(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_BROKER", raising=False)
    base = ["tournament", "random", "greedy", "--game", "tokaido-duo", "--games", "2",
            "--state-dir", str(tmp_path)]
    assert_clean_error(invoke(*base, "--match-timeout", "5"), 2, "--match-timeout goes with")
    assert_clean_error(invoke(*base, "--broker"), 2, "REFEREE_BROKER, which is not set")


# -- the message and the worker's checks, without a broker -----------------------------------


def test_a_board_file_travels_as_its_data(tmp_path):
    from api.broker_pool import wire_description
    from arena import MatchDescription, Seat, load_board
    from referee.match import board_data

    packaged = board_data(load_board("tokaido-duo", None))
    path = tmp_path / "board.yaml"
    path.write_text(json.dumps(packaged))  # JSON is YAML
    description = MatchDescription("tokaido-duo", (Seat("greedy"), Seat("random")), seed=1,
                                   board=str(path))
    message = wire_description(description)
    assert message["board"] == packaged and str(path) not in json.dumps(message)
    assert wire_description(MatchDescription("tokaido-duo", (Seat("random"),), 1))["board"] \
        is None


@pytest.mark.parametrize("change, needle", [
    ({"board": "/etc/passwd"}, "a board must be sent as data"),
    ({"over_http": True}, "over_http is not played by workers"),
    ({"seats": [{"bot": "http://user:pw@bots.example", "name": "x"}]},
     "seat x: a bot URL may not carry credentials"),
    ({"seats": [{"bot": "http://169.254.169.254", "name": "meta"}]}, "seat meta: blocked"),
    ({"seed": "7"}, "field seed is not an integer"),
    ({"seats": [{"bot": "no-such-bot", "name": "n"}, {"bot": "random"}]}, "no-such-bot"),
])
def test_a_worker_refuses_what_the_service_would_refuse_in_one_line(change, needle):
    from api.broker_pool import play_description
    from arena import MatchDescription, Seat
    from referee.netpolicy import UrlPolicy

    data = {**MatchDescription("tokaido-duo", (Seat("greedy"), Seat("random")), 1).to_dict(),
            **change}
    answer = play_description(data, True, UrlPolicy(resolver=lambda host, port: ["8.8.8.8"]))
    assert set(answer) == {"error"} and needle in answer["error"], answer
    assert "\n" not in answer["error"]


def test_the_summary_a_worker_sends_makes_the_outcome_the_whole_log_makes():
    from api.broker_pool import play_description
    from arena import MatchDescription, Seat
    from referee.netpolicy import UrlPolicy
    from tournaments.fixtures import Fixture, Outcome

    description = MatchDescription("tokaido-duo", (Seat("greedy"), Seat("random")), 5,
                                   match_id="t-0")
    fixture = Fixture(0, 0, (1, 0), description)
    whole = play_description(description.to_dict(), True, UrlPolicy())["log"]
    summary = play_description(description.to_dict(), False, UrlPolicy())["log"]
    assert len(json.dumps(summary)) < len(json.dumps(whole)) / 5
    assert Outcome.from_log(fixture, summary, False) == Outcome.from_log(fixture, whole, False)
