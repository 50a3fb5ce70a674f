"""``python -m agenteval.metrics``: this service alone (distributed mode), settings from the environment."""

from agenteval.metrics.app import MetricsComponent
from agenteval.metrics.settings import MetricsSettings
from agenteval.runtime.host import serve_main

if __name__ == "__main__":
    serve_main(MetricsComponent, MetricsSettings().grpc_address)
