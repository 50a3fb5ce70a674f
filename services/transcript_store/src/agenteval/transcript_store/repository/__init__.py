"""The transcript store's tables: trials of runs (``trials``) and imported, labeled traces in
versioned datasets (``datasets``)."""

from agenteval.transcript_store.repository.datasets import DatasetRepository
from agenteval.transcript_store.repository.trials import TranscriptRepository

__all__ = ["DatasetRepository", "TranscriptRepository"]
