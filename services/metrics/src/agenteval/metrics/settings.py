"""Metrics settings (env prefix ``AGENTEVAL_METRICS_``)."""

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
    mlflow_max_traces: int = 200
    """Transcripts of a run logged to MLflow as traces, at most."""
    """trial.graded messages handled per pull."""
