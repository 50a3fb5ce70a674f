"""Metrics settings (env prefix ``AGENTEVAL_METRICS_``)."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class MetricsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_METRICS_", extra="ignore")

    database_url: str | None = None
    """The metrics service's own database (defaults to the shared one)."""
    grpc_address: str = "127.0.0.1:50053"
    """Where MetricsService listens when it runs alone."""
    batch_size: int = 512
    """trial.graded messages handled per pull."""
    transcripts_addr: str | None = None
    """TranscriptService address, for transcripts logged to MLflow (embedded: this process's)."""
    mlflow_max_traces: int = Field(default=200, ge=0)
    """Transcripts of a run logged to MLflow as traces, at most (0: none); a run with more
    trials is tagged ``agenteval.traces_capped=true`` in MLflow."""
    max_versions_per_suite: int = Field(default=10, ge=1, le=1000)
    """Agent versions per suite exported to Prometheus (the newest; older ones' series are
    removed, which bounds the series count)."""
