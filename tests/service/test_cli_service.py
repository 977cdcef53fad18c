"""``referee serve``, ``worker`` and ``beat`` fail in one line on bad settings."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from support.cli import assert_clean_error

from cli import main


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
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out = CliRunner().invoke(main, args)
    assert_clean_error(out, 1, needle)


def test_the_commands_are_listed():
    out = CliRunner().invoke(main, ["--help"])
    assert all(name in out.output for name in ("serve", "worker", "beat"))
