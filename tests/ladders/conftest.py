"""The ladder's database fixtures (defined in support.ladder_db so other suites can reuse them)."""

from support.ladder_db import (
    db_url, empty_db_url, ladder_engine, pg_admin, pg_head_template, pg_head_url, pg_session_prefix,
    pg_url, sqlite_head_template,
)

__all__ = ["db_url", "empty_db_url", "ladder_engine", "pg_admin", "pg_head_template",
           "pg_head_url", "pg_session_prefix", "pg_url", "sqlite_head_template"]
