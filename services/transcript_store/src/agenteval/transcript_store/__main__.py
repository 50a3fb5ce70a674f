"""``python -m agenteval.transcript_store``: this service alone (distributed mode), settings from the environment."""

from agenteval.runtime.host import serve_main
from agenteval.transcript_store.app import TranscriptStoreComponent
from agenteval.transcript_store.settings import TranscriptSettings

if __name__ == "__main__":
    serve_main(TranscriptStoreComponent, TranscriptSettings().grpc_address)
