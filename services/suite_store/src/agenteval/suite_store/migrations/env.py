"""Alembic environment: see agenteval.storage.migrate."""

from agenteval.storage.migrate import run_env

run_env()
