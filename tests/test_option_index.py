"""``core.option_index``: the runner's check of an answer against the offered ids."""

from __future__ import annotations

from referee.core import Option, option_index


def options(*ids: str) -> tuple[Option, ...]:
    return tuple(Option(i, i, {}) for i in ids)


def test_the_index_of_an_offered_id_and_none_for_anything_else() -> None:
    opts = options("a", "b", "a")
    assert option_index(opts, "b") == 1
    assert option_index(opts, "a") == 0  # the first of equal ids, as a search would find
    for bad in ("c", "", None, 1, ["a"], {"id": "a"}):
        assert option_index(opts, bad) is None


def test_equal_tuples_that_are_other_objects_are_looked_up_afresh() -> None:
    first = options("x", "y")
    assert option_index(first, "y") == 1
    other = options("y", "x")
    assert option_index(other, "y") == 0
    assert option_index(first, "y") == 1
