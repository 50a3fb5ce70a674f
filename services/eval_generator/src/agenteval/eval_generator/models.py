"""The eval-generator's tables: saved evals and their versions, generation jobs and their events."""

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

metadata = MetaData()


def _usage_columns() -> list[Column]:
    """What a generation spent; on the job (totals over its runs) and on the eval it saved."""
    return [
        Column("llm_model", String(200), nullable=True),
        Column("input_tokens", Integer, nullable=False, server_default="0"),
        Column("output_tokens", Integer, nullable=False, server_default="0"),
        Column("cost_usd", Float, nullable=False, server_default="0"),
        Column("price_known", Boolean, nullable=False, server_default=false()),
        Column("attempts", Integer, nullable=False, server_default="0"),
        Column("steps", Integer, nullable=False, server_default="0"),
        Column("stop_reason", String(40), nullable=True),
    ]


evals = Table(
    "evalgen_evals",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("code", Text, nullable=False),
    Column("generator", String(200), nullable=False),
    Column("train_accuracy", Float, nullable=True),
    Column("holdout_accuracy", Float, nullable=True),
    Column("dataset", String(200), nullable=False),
    Column("dataset_version", Integer, nullable=False),
    Column("split_json", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # "active" (promoted: eval:NAME may resolve to it) or "candidate" (below the target).
    Column("status", String(20), nullable=False, server_default="active"),
    # eval:NAME resolves to the active version promoted last.
    Column("promoted_at", DateTime(timezone=True), nullable=True),
    Column("target_accuracy", Float, nullable=True),
    Column("job_id", String(40), nullable=True),
    Column("candidates_json", Text, nullable=True),
    Column("project", String(64), nullable=False, server_default="default"),
    *_usage_columns(),
    UniqueConstraint("name", "version", name="uq_evalgen_evals_name_version"),
)

jobs = Table(
    "evalgen_jobs",
    metadata,
    Column("job_id", String(40), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("dataset", String(200), nullable=False),
    Column("request_json", Text, nullable=False),
    # queued, running, done, failed, cancelled
    Column("status", String(20), nullable=False),
    Column("outcome", String(20), nullable=True),
    Column("eval_version", Integer, nullable=True),
    Column("train_accuracy", Float, nullable=True),
    Column("holdout_accuracy", Float, nullable=True),
    Column("error", Text, nullable=True),
    Column("error_code", String(40), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    # The instance running it and when it last said so: a running job whose heartbeat is older
    # than the lease belongs to a dead instance and is run again.
    Column("owner", String(100), nullable=True),
    Column("heartbeat_at", DateTime(timezone=True), nullable=True),
    Column("cancel_requested", Boolean, nullable=False, server_default=false()),
    Column("runs", Integer, nullable=False, server_default="0"),
    Column("last_seq", Integer, nullable=False, server_default="0"),
    Column("project", String(64), nullable=False, server_default="default"),
    *_usage_columns(),
    Index("ix_evalgen_jobs_status", "status"),
    Index("ix_evalgen_jobs_name", "name"),
)

job_events = Table(
    "evalgen_job_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(40), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(20), nullable=False),
    Column("message", Text, nullable=False),
    Column("accuracy", Float, nullable=True),
    Column("step", Integer, nullable=False, server_default="0"),
    Column("eval_version", Integer, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("job_id", "seq", name="uq_evalgen_job_events_job_seq"),
)
