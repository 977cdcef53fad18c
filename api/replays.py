"""Spectator frames of stored matches: built from the public log, kept in memory, gzipped.

Frames are a pure function of the log and of the code that derives them
(:func:`referee.frames.build_frames`), and a finished match's log never changes, so a frames
document is built once per process and served with a strong ETag that is known before it is
built (the log's SHA-256, the frames format version and the package version).  Building costs
about 25 ms of CPU for a whole game; the cache keeps the gzipped JSON (tens of KB a match)
up to a byte budget, least recently used first out.

The same rule as the log's applies (:func:`ladder.reads.match_log`): no frames until the match
and every match sharing its seed are over.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

import referee
from ladder import ConflictError
from ladder.reads import match_log
from referee.frames import FRAMES_VERSION, LogError, build_frames

CACHE_BYTES = 32 * 1024 * 1024
"""About 2,000 games' frames (gzipped) per process."""


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
        gz, sha = match_log(engine, match_pk)
        key = (str(engine.url), match_pk, sha)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        frames = Frames(_build(match_pk, gz), frames_etag(sha))
        self._keep(key, frames)
        return frames

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


def _build(match_pk: int, log_gz: bytes) -> bytes:
    try:
        doc = build_frames(json.loads(gzip.decompress(log_gz)))
    except (LogError, ValueError, KeyError, TypeError) as exc:
        raise ConflictError(f"match {match_pk} cannot be replayed here: {exc}") from exc
    raw = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return gzip.compress(raw, mtime=0)


FRAMES = FramesCache()
"""The process's cache (the API's frames endpoint and the match pages share it)."""
