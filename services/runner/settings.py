"""Runner settings (env prefix ``AGENTEVAL_RUNNER_``)."""

from pydantic_settings import BaseSettings, SettingsConfigDict


class RunnerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_RUNNER_", extra="ignore")

    database_url: str | None = None
    """The runner's own database (defaults to the shared one)."""
    grpc_address: str = "0.0.0.0:50051"
    """Where RunService listens when the runner runs alone."""
    concurrency: int = 512
    """Trials this replica runs at once (a run may ask for fewer). Agents are mostly waiting on
    models and tools, so a replica holds many in flight; sync agents run on a thread pool."""
    default_timeout_s: float = 60.0
    """Per-trial timeout when neither the run nor the suite sets one."""
