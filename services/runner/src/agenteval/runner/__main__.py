"""``python -m agenteval.runner``: this service alone (distributed mode), settings from the environment."""

from agenteval.runner.app import RunnerComponent
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime.host import serve_main

if __name__ == "__main__":
    serve_main(RunnerComponent, RunnerSettings().grpc_address)
