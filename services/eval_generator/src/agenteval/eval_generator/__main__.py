"""``python -m agenteval.eval_generator``: this service alone (distributed mode), settings from the environment."""

from agenteval.eval_generator.app import EvalGeneratorComponent
from agenteval.eval_generator.settings import EvalGeneratorSettings
from agenteval.runtime.host import serve_main

if __name__ == "__main__":
    serve_main(EvalGeneratorComponent, EvalGeneratorSettings().grpc_address)
