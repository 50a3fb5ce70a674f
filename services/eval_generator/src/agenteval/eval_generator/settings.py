"""Eval-generator settings (env prefix ``AGENTEVAL_EVALGEN_``)."""

from pydantic_settings import BaseSettings, SettingsConfigDict


class EvalGeneratorSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_EVALGEN_", extra="ignore")

    database_url: str | None = None
    """The eval-generator's own database (defaults to the shared one)."""
    grpc_address: str = "127.0.0.1:50055"
    """Where EvalGeneratorService listens when it runs alone."""
    transcripts_addr: str | None = None
    """TranscriptService address (embedded: this process's)."""
    grader_addr: str | None = None
    """GraderService address (embedded: this process's)."""
    model: str = "claude-sonnet-4-5"
    """Model of the generation loop when an API key is configured."""
