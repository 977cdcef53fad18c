"""One connection for a page's reads (``ladder.db.shared_reader``): every ``reader`` of the
engine inside it is that connection, in its one transaction; outside it, or for another
engine, each ``reader`` checks out its own."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from ladder.db import make_engine, reader, shared_reader


def engine(tmp_path: Path, name: str) -> Engine:
    return make_engine(f"sqlite:///{tmp_path / name}.sqlite3")


def test_the_reads_inside_share_one_connection_and_transaction(tmp_path: Path) -> None:
    a, b = engine(tmp_path, "a"), engine(tmp_path, "b")
    with shared_reader(a):
        with reader(a) as first:
            with reader(a) as nested:
                assert nested is first
        with reader(a) as later:
            assert later is first and later.in_transaction()
        with shared_reader(a):  # already shared: the same connection
            with reader(a) as inner:
                assert inner is first
        with reader(b) as other:  # another engine: its own
            assert other is not first
    assert not first.in_transaction() and first.closed


def test_outside_each_read_has_a_connection_of_its_own(tmp_path: Path) -> None:
    a = engine(tmp_path, "a")
    with reader(a) as one:
        pass
    with reader(a) as two:
        assert two is not one
    with shared_reader(a):
        with reader(a) as inside:
            pass
    with reader(a) as after:
        assert after is not inside
