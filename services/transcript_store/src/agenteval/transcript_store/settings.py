"""Transcript-store settings (env prefix ``AGENTEVAL_TRANSCRIPTS_``)."""

from pydantic_settings import BaseSettings, SettingsConfigDict


class TranscriptSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_TRANSCRIPTS_", extra="ignore")

    database_url: str | None = None
    """The store's own database (defaults to the shared one)."""
    grpc_address: str = "127.0.0.1:50054"
    """Where TranscriptService listens when the store runs alone."""
    batch_size: int = 512
    """Messages stored per pull."""
