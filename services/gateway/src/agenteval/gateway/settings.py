"""Gateway settings (env prefix ``AGENTEVAL_GATEWAY_``)."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GatewaySettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_GATEWAY_", extra="ignore")

    grpc_address: str = "127.0.0.1:50050"
    """Where clients reach every service."""
    runner_addr: str = "127.0.0.1:50051"
    """RunService and OperationsService."""
    grader_addr: str = "127.0.0.1:50052"
    metrics_addr: str = "127.0.0.1:50053"
    transcripts_addr: str = "127.0.0.1:50054"
    evalgen_addr: str = "127.0.0.1:50055"
    suites_addr: str = "127.0.0.1:50056"
    http_address: str | None = None
    """Where the web dashboard and the HTTP API listen (host:port); unset: not served."""
    default_timeout_s: float = Field(default=3600.0, gt=0)
    """Deadline of a forwarded call whose client set none (streams included)."""
