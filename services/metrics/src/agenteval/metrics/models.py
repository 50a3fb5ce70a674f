"""The metrics service's tables: one row per graded trial, one per run (summaries are computed
from the trials, not stored: the runner keeps a run's one stored summary)."""

from sqlalchemy import BigInteger, Boolean, Column, Float, Integer, MetaData, String, Table, Text, true

metadata = MetaData()

trial_results = Table(
    "metrics_trial_results",
    metadata,
    Column("trial_id", String(500), primary_key=True),
    Column("run_id", String(64), nullable=False, index=True),
    Column("case_id", String(200), nullable=False),
    Column("trial_index", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("passed", Boolean, nullable=False),
    Column("score", Float, nullable=False),
    Column("latency_ms", Float, nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
    Column("cost_usd", Float, nullable=False),
    # False: some of the agent's tokens had no price (no model named, or none in the table).
    Column("cost_known", Boolean, nullable=False, server_default=true()),
    Column("grade_errors_json", Text, nullable=True),
    Column("grader_scores_json", Text, nullable=False),
    Column("tags_json", Text, nullable=False),
)

runs = Table(
    "metrics_runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("suite", String(200), nullable=False),
    Column("agent_version", String(200), nullable=False),
    Column("agent", Text, nullable=False, server_default=""),
    Column("trials_total", Integer, nullable=False),
    Column("completed", Boolean, nullable=False),
    # {case_id: trials} from run.submitted; NULL for runs recorded before plans were kept.
    Column("plan_json", Text, nullable=True),
    Column("project", String(64), nullable=False, default="default"),
)
