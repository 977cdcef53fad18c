"""The Redis the production-path tests talk to (``REFEREE_TEST_REDIS``): in CI an unreachable
one fails the test (CI must run them); elsewhere the Redis half of the suite skips."""

from __future__ import annotations

import os

import pytest

REDIS = os.environ.get("REFEREE_TEST_REDIS", "redis://127.0.0.1:6379/0")


def redis_ok() -> None:
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        reason = f"Redis at {REDIS} unreachable: {exc}"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI must run the Redis tests)")
        pytest.skip(reason)
