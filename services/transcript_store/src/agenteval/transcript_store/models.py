"""The transcript-store's tables: trial transcripts (and, later, imported traces)."""

from sqlalchemy import Boolean, Column, DateTime, Float, Integer, MetaData, String, Table, Text

metadata = MetaData()

trials = Table(
    "store_trials",
    metadata,
    Column("trial_id", String(500), primary_key=True),
    Column("run_id", String(64), nullable=False, index=True),
    Column("case_id", String(200), nullable=False),
    Column("trial_index", Integer, nullable=False),
    Column("status", String(16), nullable=True),
    Column("latency_ms", Float, nullable=True),
    Column("trace_json", Text, nullable=True),
    Column("passed", Boolean, nullable=True),
    Column("score", Float, nullable=True),
    Column("grades_json", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("project", String(64), nullable=False, default="default"),
)

datasets = Table(
    "store_datasets",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("project", String(64), nullable=False, default="default"),
)

traces = Table(
    "store_traces",
    metadata,
    Column("dataset", String(200), primary_key=True),
    Column("trace_id", String(200), primary_key=True),
    Column("trace_json", Text, nullable=False),
    Column("label", String(16), nullable=True),
    Column("comment", Text, nullable=True),
    Column("rater", String(200), nullable=True),
    Column("source_format", String(32), nullable=False),
    Column("summary", Text, nullable=False),
    Column("step_count", Integer, nullable=False),
    Column("has_tool_calls", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("labeled_at", DateTime(timezone=True), nullable=True),
    # The agent (or source) the trace came from, as the import named it; None when it did not.
    Column("agent", String(200), nullable=True),
)
