"""Suite-store settings (env prefix ``AGENTEVAL_SUITES_``)."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class SuiteStoreSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_SUITES_", extra="ignore")

    database_url: str | None = None
    """The store's own database (defaults to the shared one)."""
    grpc_address: str = "127.0.0.1:50056"
    """Where SuiteService listens when the store runs alone."""
    max_suite_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    """Largest suite text accepted (UTF-8 bytes)."""
    max_cases: int = Field(default=10_000, ge=1)
    """Most cases one version may hold."""
