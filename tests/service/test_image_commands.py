"""The image's commands, run from the installed package: migrate, web, worker and beat exactly as
``compose.yaml`` writes them, and a challenge played through them over HTTP.

``compose.yaml`` is the one place that says what each process of the image runs (its
``command:`` and ``healthcheck:`` entries); the Dockerfile's ``CMD`` and ``HEALTHCHECK`` must be
its web service's.  Programs are found beside this interpreter, as the image's ``PATH`` finds
them in its virtual environment: under tox that is a clean environment with the built wheel
installed.  Changed from the file, and nothing else: the addresses and ports (loopback, free
ports), the database and broker URLs (the test PostgreSQL, a new schema; the test Redis, a
queue of the test's own), and the secrets compose.yaml asks its user for.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.http_bots import free_port
from support.redis_service import REDIS, redis_ok

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
"""Where the image's programs are: ``referee`` and ``python`` of the environment under test."""
LOOPBACK = "127.0.0.1"
WEB_PORT, METRICS_PORT = "8000", "9101"
"""The ports compose.yaml gives the web and the worker's metrics, replaced by free ones."""
USER_SETTINGS = {"POSTGRES_PASSWORD": "unused", "REFEREE_SECRET_KEY": secrets.token_hex(16)}
"""What compose.yaml asks its user for (``${NAME:?…}``)."""
START_S = 60.0
"""Generous: gunicorn's four workers, Celery's four, on a loaded 2-core machine."""


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?message}`` (``$$``: a $)."""
    def one(found: re.Match[str]) -> str:
        name, how, arg = found.group(1), found.group(2), found.group(3) or ""
        if env.get(name):
            return env[name]
        if how == ":?":
            raise AssertionError(f"compose.yaml needs {name}: {arg}")
        return arg

    pattern = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}"
    return re.sub(pattern, one, value.replace("$$", "\0")).replace("\0", "$")


def local(argv: list[str], ports: Mapping[str, int]) -> list[str]:
    """``argv`` on this machine: its program beside this interpreter, every listening address
    loopback, every port compose.yaml names (``--port 8000``, ``:8000/`` in a URL) a free one."""
    out = [str(BIN / argv[0])]
    for before, arg in zip(argv, argv[1:]):
        if before in ("--host", "--metrics-host"):
            arg = LOOPBACK
        elif before in ("--port", "--metrics-port"):
            arg = str(ports[arg])
        else:
            for theirs, ours in ports.items():
                arg = arg.replace(f"{LOOPBACK}:{theirs}/", f"{LOOPBACK}:{ours}/")
        out.append(arg)
    return out


def dockerfile_instruction(name: str) -> list[str]:
    """The exec-form arguments of the Dockerfile's ``name`` instruction (HEALTHCHECK: of its
    CMD), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line for line in text.splitlines() if line.startswith(name + " ")]
    assert len(lines) == 1, f"the Dockerfile has {len(lines)} {name} instructions"
    found: list[str] = json.loads(lines[0][lines[0].index("["):])
    return found


class Service:
    """compose.yaml's referee processes, started here on a database and a queue of their own."""

    def __init__(self, db_url: str, folder: Path) -> None:
        self.spec = compose()["services"]
        self.folder = folder
        self.ports = {WEB_PORT: free_port(), METRICS_PORT: free_port()}
        self.queue = f"referee-image-{os.getpid()}-{secrets.token_hex(4)}"
        self.db_url = db_url
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.base = f"http://{LOOPBACK}:{self.ports[WEB_PORT]}"

    def argv(self, name: str) -> list[str]:
        command = self.spec[name]["command"]
        return local(shlex.split(command) if isinstance(command, str) else list(command),
                     self.ports)

    def env(self, name: str) -> dict[str, str]:
        """This machine's environment without any referee setting, and the service's."""
        own = {k: v for k, v in os.environ.items()
               if not k.startswith("REFEREE_") and k != "PROMETHEUS_MULTIPROC_DIR"}
        settings = {k: interpolate(str(v), USER_SETTINGS)
                    for k, v in self.spec[name].get("environment", {}).items()}
        assert {"REFEREE_DB", "REFEREE_BROKER"} <= settings.keys()
        return {**own, **settings, "REFEREE_DB": self.db_url, "REFEREE_BROKER": REDIS,
                "REFEREE_QUEUE": self.queue}

    def run(self, name: str) -> str:
        """Run a one-shot service to its end; its output (it must succeed)."""
        done = subprocess.run(self.argv(name), env=self.env(name), cwd=self.folder,
                              capture_output=True, text=True, timeout=START_S)
        assert done.returncode == 0, f"{name} failed:\n{done.stdout}{done.stderr}"
        return done.stdout + done.stderr

    def start(self, name: str) -> None:
        log = open(self.folder / f"{name}.log", "wb")
        self.procs[name] = subprocess.Popen(self.argv(name), env=self.env(name), cwd=self.folder,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        log.close()

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def healthy(self, name: str) -> bool:
        """Whether the service's own health check passes now (its ``CMD`` form)."""
        test = self.spec[name]["healthcheck"]["test"]
        assert test[0] == "CMD", test
        done = subprocess.run(local(test[1:], self.ports), capture_output=True, timeout=30)
        return done.returncode == 0

    def wait_healthy(self, name: str) -> None:
        give_up = time.monotonic() + START_S
        while not self.healthy(name):
            proc = self.procs[name]
            assert proc.poll() is None, f"{name} ended ({proc.returncode}):\n{self.log(name)[-3000:]}"
            assert time.monotonic() < give_up, f"{name} not healthy:\n{self.log(name)[-3000:]}"
            time.sleep(0.3)

    def stop(self) -> None:
        for proc in self.procs.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture
def service(pg_url: str, tmp_path: Path) -> Iterator[Service]:
    redis_ok()
    running = Service(pg_url, tmp_path)
    try:
        yield running
    finally:
        running.stop()


def call(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def finished_on_worker(service: Service, game: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    url = f"http://{LOOPBACK}:{service.ports[METRICS_PORT]}/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == "referee_matches_total" and s.labels == {"game": game,
                                                                        "state": "finished"})


def test_the_dockerfile_runs_the_web_as_compose_yaml_says():
    api = compose()["services"]["api"]
    assert dockerfile_instruction("CMD") == api["command"]
    assert ["CMD", *dockerfile_instruction("HEALTHCHECK")] == api["healthcheck"]["test"]


def test_compose_starts_the_referee_on_a_migrated_database_and_healthy_services():
    """Nothing of the referee starts before the migration succeeded and its database and
    broker answer; the metrics are open to the containers of its network, not its gateway."""
    import ipaddress

    spec = compose()
    services = spec["services"]
    assert services["db"]["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    for name in ("api", "worker", "beat"):
        assert services[name]["depends_on"] == {
            "migrate": {"condition": "service_completed_successfully"},
            "db": {"condition": "service_healthy"}, "redis": {"condition": "service_healthy"}}
        assert services[name]["restart"] == "unless-stopped"
        assert services[name]["image"] == services["migrate"]["image"]
    ipam = spec["networks"]["default"]["ipam"]["config"][0]
    allowed = ipaddress.IPv4Network(services["api"]["environment"]["REFEREE_METRICS_NETWORKS"])
    assert allowed == ipaddress.IPv4Network(ipam["ip_range"])
    assert allowed.subnet_of(ipaddress.IPv4Network(ipam["subnet"]))
    assert ipaddress.IPv4Address(ipam["gateway"]) not in allowed


def test_the_images_commands_play_a_challenge(service: Service):
    """Migrate, then web, worker and beat; an owner's pull bot (its bridge in this process, as
    ``referee bot connect`` runs it) plays a house bot twice, through the web and the worker."""
    from arena.bridge import Bridge, LocalBot
    from cli.connect import HttpLink
    from ladder.db import head_revision

    assert f"at schema revision {head_revision()}" in service.run("migrate")
    for name in ("api", "worker", "beat"):
        service.start(name)
    service.wait_healthy("api")
    service.wait_healthy("worker")

    api = service.base + "/api/v1"
    status, owner = call("POST", f"{api}/owners", {"name": "deployer"})
    assert status == 201, owner
    token = owner["token"]
    status, bot = call("POST", f"{api}/bots", {"name": "laptop", "mode": "pull", "ladder": False,
                                              "games": ["tokaido-duo"]}, token)
    assert status == 201, bot
    status, house = call("GET", f"{api}/bots?game=tokaido-duo")
    assert status == 200, house
    random_bot = next(b["id"] for b in house["items"] if b["name"] == "random")

    lines: list[str] = []
    stop = threading.Event()
    bridge = Bridge(HttpLink(service.base, token, bot["id"]), LocalBot("random", None, 7),
                    lines.append)
    runner = threading.Thread(target=bridge.run, args=(stop, 1), daemon=True)
    runner.start()
    try:
        status, challenge = call("POST", f"{api}/challenges", {
            "game": "tokaido-duo", "bots": [bot["id"], random_bot], "games": 2}, token)
        assert status == 202, challenge
        give_up = time.monotonic() + 60
        while challenge["status"] != "finished":
            assert time.monotonic() < give_up, (challenge, service.log("worker")[-3000:])
            time.sleep(0.3)
            challenge = call("GET", f"{api}/challenges/{challenge['id']}")[1]
    finally:
        stop.set()
        runner.join(timeout=10)
        bridge.close(wait=True)

    for match_id in challenge["match_ids"]:
        status, log = call("GET", f"{api}/matches/{match_id}/log")
        assert status == 200 and log["result"]["end"] == "normal", log.get("result")
        seat = next(p["seat"] for p in log["players"] if p["name"] == "laptop")
        assert {d["status"] for d in log["decisions"] if d["seat"] == seat} == {"ok"}
    assert sum(" over: " in line for line in lines) == 2, lines
    # The worker counts a match once its result is committed: the challenge may read finished
    # a moment before the second count.
    give_up = time.monotonic() + 15
    while finished_on_worker(service, "tokaido-duo") < 2 and time.monotonic() < give_up:
        time.sleep(0.2)
    assert finished_on_worker(service, "tokaido-duo") == 2
    assert service.procs["beat"].poll() is None, service.log("beat")[-3000:]
    assert "beat: Starting" in service.log("beat")
    assert list(service.folder.glob("beat-schedule*")), "beat wrote no schedule where it runs"
