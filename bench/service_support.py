"""Shared set-up of the service benchmarks: a fresh database, servers and bots as processes."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG = os.environ.get("REFEREE_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("REFEREE_BENCH_REDIS", "redis://127.0.0.1:6379/0")
TICKS = os.sysconf("SC_CLK_TCK")
"""Clock ticks a second: the unit of ``/proc/PID/stat``'s CPU times."""
BOT_SERVER = ("import sys; from bots.server import BotApp, BotServer; "
              "s = BotServer(BotApp('random', sys.argv[1], seed=int(sys.argv[2])), port=0, "
              "threads=32); print(s.url, flush=True); s.serve_forever()")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pg_schema() -> tuple[str, Any]:
    """A new schema on the benchmark server; returns its URL and a function dropping it."""
    schema = f"referee_bench_{secrets.token_hex(4)}"
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(PG).update_query_dict({"options": f"-csearch_path={schema}"})

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    return url.render_as_string(hide_password=False), drop


def sqlite_url() -> str:
    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    return f"sqlite:///{folder / 'bench.sqlite3'}"


def migrate(url: str) -> None:
    from ladder.db import make_engine, migrate as run

    engine = make_engine(url)
    run(engine)
    engine.dispose()


def start_bot(game: str, seed: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", BOT_SERVER, game, str(seed)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "from cli import main; main()", *args],
                            env={**os.environ, **env},
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait_http(url: str, timeout: float = 60) -> None:
    give_up = time.monotonic() + timeout
    while True:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > give_up:
            raise SystemExit(f"{url} did not come up")
        time.sleep(0.2)


def stop(proc: subprocess.Popen[Any]) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


@dataclass(frozen=True)
class Proc:
    """One live process as ``/proc/PID/stat`` tells it (Linux); CPU times in clock ticks."""

    pid: int
    comm: str
    ppid: int
    pgrp: int
    session: int
    ticks: int
    """user + system time"""
    reaped_ticks: int
    """user + system time of the children it waited for (a pool process replaced)"""


def processes() -> list[Proc]:
    """Every live process (one that ends while being read is left out)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                head, tail = f.read().rsplit(")", 1)
        except OSError:  # gone meanwhile
            continue
        fields = tail.split()  # from the state on: ppid is the 2nd, pgrp 3rd, session 4th
        found.append(Proc(int(entry), head.split("(", 1)[1], int(fields[1]), int(fields[2]),
                          int(fields[3]), int(fields[11]) + int(fields[12]),
                          int(fields[13]) + int(fields[14])))
    return found


def group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) of the live processes of process group ``pgid``."""
    return sum(p.ticks for p in processes() if p.pgrp == pgid) / TICKS
