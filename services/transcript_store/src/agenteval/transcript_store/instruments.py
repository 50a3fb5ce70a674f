"""The transcript store's Prometheus instruments."""

from prometheus_client import Counter, Histogram

STORED = Counter(
    "agenteval_transcripts_stored_total",
    "Trial records written, by what they carried (completed: the transcript, graded: the verdict)",
    ["kind"],
)
NOT_STORED = Counter(
    "agenteval_transcripts_not_stored_total",
    "Records stored as a stub after the delivery limit (the reason is in the record)",
    ["kind"],
)
STORE_SECONDS = Histogram(
    "agenteval_transcripts_store_duration_seconds",
    "Time to store one batch",
    ["kind"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
for _kind in ("completed", "graded"):  # every series exists from the start, at 0
    STORED.labels(kind=_kind)
    NOT_STORED.labels(kind=_kind)
