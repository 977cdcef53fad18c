"""Spectator frames of stored matches: built from the public log, kept in memory, gzipped.

Frames are a pure function of the log and of the code that derives them
(:func:`referee.frames.build_frames`), and a finished match's log never changes, so a frames
document is built once per process and served with a strong ETag that is known before it is
built (the log's SHA-256, the frames format version and the package version).  Building costs
5 to 10 ms of CPU for a whole game (``bench/frames_cost.py``); the cache keeps the gzipped
JSON (10 to 20 KB a match) up to a byte budget, least recently used first out.

The same rule as the log's applies (:func:`ladder.reads.match_log`): no frames until the match
and every match sharing its seed are over.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Engine

import referee
from ladder import ConflictError
from ladder.reads import match_log
from referee.frames import FRAMES_VERSION, LogError, build_frames

CACHE_BYTES = 32 * 1024 * 1024
"""About 2,000 games' frames (gzipped) per process."""
GZIP_LEVEL = 6
"""zlib's default: level 9 took 60% more CPU for a 5% smaller answer."""


@dataclass(frozen=True)
class Frames:
    gz: bytes
    """The frames document as JSON, gzipped."""
    etag: str
    """A strong ETag, quoted."""

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(gzip.decompress(self.gz))
        return doc


def frames_etag(log_sha256: str) -> str:
    """The ETag of the frames of the log whose SHA-256 is ``log_sha256``."""
    key = f"{log_sha256}:{FRAMES_VERSION}:{referee.__version__}".encode()
    return f'"{hashlib.sha256(key).hexdigest()}"'


class FramesCache:
    """Frames by (database, match, log hash), least recently used dropped beyond a budget."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, int, str], Frames] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, engine: Engine, match_pk: int) -> Frames:
        """The frames of match ``match_pk``: NotFoundError (no such match, or voided),
        ConflictError (not public yet, or a log the engine cannot replay)."""
        return self.read(engine, match_pk)[0]

    def read(self, engine: Engine, match_pk: int) -> tuple[Frames, dict[str, Any] | None]:
        """:meth:`get`, and the document itself when this call built it (``None`` when the
        frames were kept): a page that reads the document then need not parse it back."""
        gz, sha = match_log(engine, match_pk)
        key = (str(engine.url), match_pk, sha)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found, None
        zipped, doc = _build(match_pk, gz)
        frames = Frames(zipped, frames_etag(sha))
        self._keep(key, frames)
        return frames, doc

    def _keep(self, key: tuple[str, int, str], frames: Frames) -> None:
        with self._lock:
            if key in self._items or len(frames.gz) > self.max_bytes:
                return
            self._items[key] = frames
            self._bytes += len(frames.gz)
            while self._bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.gz)

    def __len__(self) -> int:
        return len(self._items)


def _build(match_pk: int, log_gz: bytes) -> tuple[bytes, dict[str, Any]]:
    """The frames of a stored log, gzipped, and the document."""
    try:
        text = gzip.decompress(log_gz)
        doc = build_frames(json.loads(text))
    except (LogError, ValueError, KeyError, TypeError) as exc:
        raise ConflictError(f"match {match_pk} cannot be replayed here: {exc}") from exc
    return gzip.compress(encode(doc, text), compresslevel=GZIP_LEVEL, mtime=0), doc


_EXPONENT = re.compile(rb"e-(?<=\de-)")  # a literal first: searched at memchr speed
"""Where orjson's bytes may differ from the standard encoder's: a float under 1e-4 (``1e-05``
there, ``0.00001`` or ``1e-7`` here): a negative exponent or ``0.0000``.  Either may also be
found inside a string; that costs only the slower encoder."""


def encode(doc: dict[str, Any], log_text: bytes) -> bytes:
    """``doc`` as compact UTF-8 JSON, byte for byte what ``json.dumps(doc, separators=(",",
    ":"), ensure_ascii=False)`` writes (the format served since version 1), in a tenth of
    its CPU (3 ms a game). orjson writes the same bytes for everything but small floats, NaN
    and the infinities (``null`` there); the standard encoder writes the document whenever one
    of those may be in it: a float the pattern finds, or NaN or Infinity in the log (the
    engines' views hold none), or what orjson refuses (an integer past 64 bits)."""
    if b"NaN" not in log_text and b"Infinity" not in log_text:
        try:
            raw = orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:  # orjson.JSONEncodeError
            pass
        else:
            if b"0.0000" not in raw and _EXPONENT.search(raw) is None:
                return raw
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


FRAMES = FramesCache()
"""The process's cache (the API's frames endpoint and the match pages share it)."""
