"""``referee serve``, ``worker`` and ``beat`` fail in one line on bad settings."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from cli import main

from support.cli import assert_clean_error

WORKER_SETS = ("REFEREE_DB", "REFEREE_BROKER", "REFEREE_QUEUE")
"""What ``referee worker`` sets in the environment for the processes it forks."""


@pytest.mark.parametrize("args, env, needle", [
    (["serve", "--db", "nosuch://x"], {}, "unsupported database"),
    (["serve", "--db", "sqlite:///x.db"], {"REFEREE_ALLOW_NETWORKS": "10.0.0.0/8, lan"},
     "not a network"),
    (["serve", "--db", "sqlite:///x.db"], {"REFEREE_LEASE_S": "soon"}, "number of seconds"),
    (["serve", "--db", "sqlite:///x.db"], {"REFEREE_TRUSTED_PROXIES": "yes"},
     "REFEREE_TRUSTED_PROXIES must be a whole number"),
    (["worker"], {"REFEREE_BROKER": ""}, "no broker"),
    (["beat"], {"REFEREE_BROKER": ""}, "no broker"),
    (["worker", "--broker", "redis://127.0.0.1:6379/0", "--db", "mysql://h/x"], {},
     "unsupported database"),
])
def test_bad_settings_are_one_line_errors(tmp_path, monkeypatch, args, env, needle):
    monkeypatch.chdir(tmp_path)
    for key in WORKER_SETS:  # `worker` puts its options in os.environ: undone after the test
        monkeypatch.setenv(key, os.environ.get(key, ""))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out = CliRunner().invoke(main, args)
    assert_clean_error(out, 1, needle)


def test_the_commands_are_listed():
    out = CliRunner().invoke(main, ["--help"])
    assert all(name in out.output for name in ("serve", "worker", "beat"))


def test_a_busy_port_is_one_line_that_names_a_free_one_and_no_banner(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = CliRunner().invoke(main, ["serve", "--port", str(port), "--db", "sqlite:///x.db"])
        assert_clean_error(out, 1, f"cannot listen on 127.0.0.1:{port}", "in use", "try --port")
        assert "referee service on" not in out.output
        suggested = int(out.output.rsplit("--port", 1)[1].strip())
        with socket.socket() as again:  # the suggestion is free
            again.bind(("127.0.0.1", suggested))
    assert not (tmp_path / "x.db").exists()  # failed before the database was prepared


def test_the_banner_comes_once_the_server_listens_and_names_its_port(tmp_path, monkeypatch):
    import socket

    from waitress.server import TcpWSGIServer

    import cli.serve

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_BROKER", raising=False)  # embedded: waitress
    monkeypatch.setattr(cli.serve, "build", lambda config: lambda environ, start: [])
    listening = []

    def run(server):  # instead of serving: the socket is bound and listening already
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=5):
            listening.append(server.effective_port)
        raise KeyboardInterrupt

    monkeypatch.setattr(TcpWSGIServer, "run", run)
    out = CliRunner().invoke(main, ["serve", "--port", "0", "--db", "sqlite:///x.db"])
    assert out.exit_code == 0, out.output
    assert listening and f"referee service on http://127.0.0.1:{listening[0]}/" in out.output
