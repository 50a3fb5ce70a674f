"""The suite store's Prometheus instruments."""

from prometheus_client import Counter

VERSIONS_STORED = Counter(
    "agenteval_suite_store_versions_stored_total", "Suite versions stored (new content)"
)
