"""``python -m agenteval.grader``: this service alone (distributed mode), settings from the environment."""

from agenteval.grader.app import GraderComponent
from agenteval.grader.settings import GraderSettings
from agenteval.runtime.host import serve_main

if __name__ == "__main__":
    serve_main(GraderComponent, GraderSettings().grpc_address)
