"""Settings every service shares (env prefix ``AGENTEVAL_``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agenteval.contracts.subjects import DEFAULT_PREFIX, Subjects


class CommonSettings(BaseSettings):
    """Where the bus and the databases are, and how to log."""

    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_", extra="ignore")

    nats_url: str = "nats://127.0.0.1:4222"
    """NATS server with JetStream."""
    bus_prefix: str = DEFAULT_PREFIX
    """Subject prefix; the stream is its upper-case form."""
    bus_max_age_s: float = Field(default=7 * 24 * 3600.0, ge=0)
    """How long events stay on the stream (0: forever). The services store what they carry;
    a consumer down for longer than this loses the events it had not taken."""
    bus_max_deliver: int = Field(default=10, ge=2, le=1000)
    """Tries of a bus message before it is dead-lettered: its service records the failure as
    data (a trial as error) and the original goes to <prefix>.delivery.failed."""
    bus_retry_max_delay_s: float = Field(default=30.0, gt=0, le=3600, allow_inf_nan=False)
    """Longest wait between two tries of a failed bus message (waits double from 0.5 s)."""
    database_url: str | None = None
    """Default database of every service (a service's own URL wins)."""
    data_dir: Path = Field(default=Path(".agenteval"))
    """Where embedded data lives (SQLite files, JetStream store)."""
    metrics_port: int | None = None
    """Serve Prometheus /metrics on this port (0: a free one; unset: not served)."""
    log_level: str = "WARNING"
    json_logs: bool = True

    @property
    def subjects(self) -> Subjects:
        return Subjects(self.bus_prefix)

    def database_for(self, service: str, own_url: str | None = None) -> str:
        """The service's database: its own URL, the shared one, or a SQLite file in data_dir."""
        if own_url:
            return own_url
        if self.database_url:
            return self.database_url
        from agenteval.storage.db import sqlite_url

        return sqlite_url(self.data_dir / f"{service}.db")
