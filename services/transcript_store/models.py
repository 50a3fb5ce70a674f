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
)
