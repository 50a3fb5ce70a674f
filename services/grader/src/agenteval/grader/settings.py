"""Grader settings (env prefix ``AGENTEVAL_GRADER_``)."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GraderSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_GRADER_", extra="ignore")

    grpc_address: str = "127.0.0.1:50052"
    """Where GraderService listens when the grader runs alone."""
    sandbox_workers: int = 2
    """Sandbox worker processes for eval functions."""
    sandbox_timeout_s: float = 2.0
    """Wall-clock limit of one eval-function call."""
    evalgen_addr: str | None = None
    """EvalGeneratorService address, for eval:NAME graders (embedded: this process's)."""
    batch_size: int = Field(default=256, ge=1)
    """trial.completed messages graded per pull."""
    batches_in_flight: int = Field(default=2, ge=1)
    """Batches graded at once: the next batch starts while one waits on the sandbox or an LLM
    judge, so the sandbox workers are not left idle between batches."""
