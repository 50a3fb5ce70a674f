"""Storage helpers shared by services: engines, idempotent inserts, per-service migrations."""

from agenteval.storage.db import create_engine, insert_ignore, normalize_url, sqlite_url, upsert
from agenteval.storage.migrate import run_env, upgrade

__all__ = ["create_engine", "insert_ignore", "normalize_url", "run_env", "sqlite_url", "upgrade", "upsert"]
