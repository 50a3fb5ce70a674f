"""``python -m agenteval.suite_store``: this service alone (distributed mode), settings from the environment."""

from agenteval.runtime.host import serve_main
from agenteval.suite_store.app import SuiteStoreComponent
from agenteval.suite_store.settings import SuiteStoreSettings

if __name__ == "__main__":
    serve_main(SuiteStoreComponent, SuiteStoreSettings().grpc_address)
