"""Two promises of the protocol module no message test sees: its encoding caches stay bounded
however long the referee runs (every match id and prompt is a new key), and the fault for an
answer naming no offered option stays short (the first 80 characters of the id, the first 8
options) while naming what was offered."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee import protocol
from referee.core import Option
from referee.faults import FaultReason


@pytest.fixture
def empty_caches() -> Iterator[None]:
    caches: tuple[dict[Any, Any], ...] = (protocol._HEADS, protocol._TEXTS,
                                          protocol._OPTIONS_JSON)
    saved = [dict(c) for c in caches]
    for c in caches:
        c.clear()
    yield
    for c, old in zip(caches, saved):
        c.clear()
        c.update(old)


def test_the_encoding_caches_never_grow_past_their_bound(empty_caches):
    for i in range(protocol._CACHE_MAX + 10):
        assert protocol._text(f"prompt {i}") == f'"prompt {i}"'.encode()
        assert protocol._head(f"m{i}", "toy", 1) == \
            f'{{"protocol":1,"match_id":"m{i}","game":"toy","seat":1'.encode()
        assert len(protocol._TEXTS) <= protocol._CACHE_MAX
        assert len(protocol._HEADS) <= protocol._CACHE_MAX
    held = [(Option(str(i), "l", {}),) for i in range(protocol._OPTIONS_JSON_MAX + 10)]
    for options in held:
        assert protocol.options_json(options) == \
            f'[{{"id":"{options[0].id}","label":"l","data":{{}}}}]'.encode()
        assert len(protocol._OPTIONS_JSON) <= protocol._OPTIONS_JSON_MAX


def test_an_unknown_choice_is_named_by_its_start_and_the_options_by_the_first_eight():
    ids = tuple(f"o{i}" for i in range(10))
    long_id = "x" * 79 + "yz"
    answer = protocol.parse_answer(b'{"choice": "%s"}' % long_id.encode(), ids)
    assert answer.fault is not None and answer.fault.reason is FaultReason.UNKNOWN_OPTION
    assert answer.fault.detail == (f"{'x' * 79 + 'y'!r} is not one of: "
                                   "o0, o1, o2, o3, o4, o5, o6, o7, ...")
    few = protocol.parse_answer(b'{"choice": "nope"}', ids[:8])
    assert few.fault is not None
    assert few.fault.detail == "'nope' is not one of: o0, o1, o2, o3, o4, o5, o6, o7"
    assert protocol.parse_answer(b'{"choice": "o9"}', ids).fault is None


def test_the_maintainers_command_writes_every_schema_as_the_docs_hold_it(tmp_path):
    """``python -m referee.protocol DIR`` regenerates ``docs/schemas``: one file per schema,
    each the exact text the docs test compares, its path printed."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "referee.protocol", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=True)
    names = sorted(protocol.SCHEMAS)
    assert sorted(done.stdout.split()) == sorted(str(tmp_path / f"{n}.json") for n in names)
    for name in names:
        assert (tmp_path / f"{name}.json").read_text(encoding="utf-8") == \
            protocol.schema_text(name)
