"""Settings every service shares (env prefix ``AGENTEVAL_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agenteval.contracts.subjects import DEFAULT_PREFIX, Subjects


class CommonSettings(BaseSettings):
    """Where the bus and the databases are, and how to log."""

    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_", extra="ignore")

    nats_url: str = "nats://127.0.0.1:4222"
    """NATS server with JetStream; several, comma-separated, for a cluster (any one will do)."""
    nats_user: str | None = None
    """NATS user name (with nats_password)."""
    nats_password: str | None = None
    nats_token: str | None = None
    """NATS authentication token."""
    nats_creds: Path | None = None
    """A NATS credentials file (JWT + NKey seed)."""
    nats_tls_ca: Path | None = None
    """CA bundle to verify the NATS servers' certificates (turns TLS on)."""
    nats_tls_cert: Path | None = None
    """Client certificate for NATS mutual TLS (with nats_tls_key)."""
    nats_tls_key: Path | None = None
    metrics_address: str = "127.0.0.1"
    """Interface /metrics listens on (0.0.0.0 to be scraped from other hosts)."""
    bus_prefix: str = DEFAULT_PREFIX
    """Subject prefix; the stream is its upper-case form."""
    bus_max_age_s: float = Field(default=7 * 24 * 3600.0, ge=0)
    """How long events stay on the stream (0: forever). The services store what they carry;
    a consumer down for longer than this loses the events it had not taken."""
    bus_replicas: int = Field(default=1, ge=1, le=5)
    """Copies JetStream keeps of the stream and the buckets (3 on a 3-node NATS cluster, so a
    node may die without losing or stalling anything; 1 on a single server)."""
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
    def nats_servers(self) -> list[str]:
        return [u.strip() for u in self.nats_url.split(",") if u.strip()]

    def nats_options(self) -> dict[str, Any]:
        """Keyword arguments of nats.connect (and of FastStream's broker) for these settings."""
        opts: dict[str, Any] = {"servers": self.nats_servers}
        if self.nats_user:
            opts["user"], opts["password"] = self.nats_user, self.nats_password or ""
        if self.nats_token:
            opts["token"] = self.nats_token
        if self.nats_creds:
            opts["user_credentials"] = str(self.nats_creds)
        if self.nats_tls_ca or self.nats_tls_cert:
            import ssl

            context = ssl.create_default_context(cafile=str(self.nats_tls_ca) if self.nats_tls_ca else None)
            if self.nats_tls_cert:
                context.load_cert_chain(
                    str(self.nats_tls_cert), str(self.nats_tls_key) if self.nats_tls_key else None
                )
            opts["tls"] = context
        return opts

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
