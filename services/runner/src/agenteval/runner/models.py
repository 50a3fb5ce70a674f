"""The runner's tables: runs as submitted, their status and final summary."""

from sqlalchemy import BigInteger, Column, DateTime, Float, Integer, MetaData, String, Table, Text

metadata = MetaData()

runs = Table(
    "runner_runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("request_id", String(200), unique=True, nullable=True),
    Column("suite", String(200), nullable=False, index=True),
    Column("agent", String(500), nullable=False),
    Column("agent_version", String(200), nullable=False, default="", index=True),
    Column("k", Integer, nullable=True),
    Column("seed", BigInteger, nullable=False, default=0),
    Column("concurrency", Integer, nullable=False, default=0),
    Column("timeout_s", Float, nullable=True),
    Column("status", String(16), nullable=False),
    Column("trials_total", Integer, nullable=False),
    Column("trials_graded", Integer, nullable=False, default=0),
    Column("passes", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), nullable=False, index=True),
    Column("completed_at", DateTime(timezone=True), nullable=True),
    Column("suite_json", Text, nullable=False),
    Column("summary_json", Text, nullable=True),
    Column("error", Text, nullable=True),
    # The suite version the run ran (see Run.suite_version in runner.proto).
    Column("suite_version", String(64), nullable=False, default="", index=True),
    Column("suite_version_number", Integer, nullable=False, default=0),
    Column("tags_json", Text, nullable=False, default="[]"),
    Column("project", String(64), nullable=False, default="default", index=True),
)

webhook_deliveries = Table(
    "runner_webhook_deliveries",
    metadata,
    Column("delivery_id", String(200), primary_key=True),
    Column("event", String(40), nullable=False),
    Column("url", Text, nullable=False),
    Column("run_id", String(64), nullable=False, index=True),
    Column("attempts", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False),
    Column("last_status_code", Integer, nullable=False, default=0),
    Column("last_error", Text, nullable=False, default=""),
    Column("created_at", DateTime(timezone=True), nullable=False, index=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
