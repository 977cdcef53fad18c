"""The installed package carries its data files (tox tests the built wheel, not the tree)."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import pytest

import referee

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", ["referee.games.tokaido_duo", "referee.games.doubletrack"])
def test_board_data_is_package_data(package):
    board = resources.files(package) / "board.yaml"
    assert board.is_file()
    assert "version:" in board.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["static/viewer.js", "static/viewer.css",
                                  "templates/viewer_page.html", "templates/viewer_fragment.html"])
def test_the_viewer_is_package_data(name):
    assert (resources.files("api.viewer") / name).is_file()


def test_the_pages_are_package_data():
    """Every template and style sheet of the pages (the source tree's list, so a new one
    cannot be forgotten in setup.cfg)."""
    source = REPO / "api" / "pages"
    names = [p.relative_to(source).as_posix() for p in source.rglob("*")
             if p.suffix in (".html", ".css")]
    assert len(names) >= 10
    for name in names:
        assert (resources.files("api.pages") / name).is_file(), name


@pytest.mark.skipif("TOX_ENV_NAME" not in os.environ, reason="only meaningful under tox")
def test_tox_tests_the_installed_wheel_not_the_source_tree():
    installed = Path(referee.__file__).resolve().parent
    assert installed != REPO / "referee"
    assert "site-packages" in installed.parts
