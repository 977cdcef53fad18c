"""The ladder's database fixtures (defined in support.ladder_db so other suites can reuse them)."""

from support.ladder_db import db_url, ladder_engine, pg_admin, pg_session_prefix, pg_url

__all__ = ["db_url", "ladder_engine", "pg_admin", "pg_session_prefix", "pg_url"]
