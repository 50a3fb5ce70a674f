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
    tokens_file: Path | None = None
    """YAML file of the bearer tokens gRPC (and HTTP) callers must present, with their projects
    (agent-eval tokens create writes it). Unset: the server is open (loopback only, unless
    allow_open)."""
    allow_open: bool = False
    """Serve without tokens on an interface other than loopback (a private network you trust)."""
    service_token: str | None = None
    """The token a service presents when it calls another one (an admin token of the file)."""
    tls_cert: Path | None = None
    """PEM certificate chain: serve gRPC over TLS (with tls_key)."""
    tls_key: Path | None = None
    tls_ca: Path | None = None
    """PEM of the CA that signed the other services' certificates (their calls use TLS; default:
    tls_cert itself, right for a self-signed certificate)."""
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

    def authenticator(self) -> Any:
        """The Authenticator of tokens_file, or None (open); InvalidArgument on a bad file."""
        from agenteval.runtime.auth import Authenticator

        return None if self.tokens_file is None else Authenticator.from_file(self.tokens_file)

    def server_tls(self) -> tuple[bytes, bytes] | None:
        """(certificate chain, key) PEM to serve TLS with, or None."""
        if self.tls_cert is None and self.tls_key is None:
            return None
        if self.tls_cert is None or self.tls_key is None:
            from agenteval.contracts.errors import InvalidArgument

            raise InvalidArgument("AGENTEVAL_TLS_CERT and AGENTEVAL_TLS_KEY go together")
        return self.tls_cert.read_bytes(), self.tls_key.read_bytes()

    def channel(self, target: str, project: str | None = None) -> Any:
        """A channel to another service: the service token, TLS when tls_ca is set."""
        from agenteval.contracts.transport import channel

        # A self-signed certificate is its own CA: embedded mode with TLS needs nothing more.
        ca_file = self.tls_ca or self.tls_cert
        ca = ca_file.read_bytes() if ca_file else None
        return channel(target, token=self.service_token, project=project, tls_ca=ca)

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
