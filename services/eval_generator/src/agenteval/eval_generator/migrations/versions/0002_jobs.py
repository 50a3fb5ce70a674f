"""evalgen jobs, their events; eval status (candidates), promotion and generation usage

Revision ID: evalgen_0002_jobs
Revises: evalgen_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "evalgen_0002_jobs"
down_revision = "evalgen_0001"
branch_labels = None
depends_on = None


def _usage_columns() -> list[sa.Column]:  # type: ignore[type-arg]
    return [
        sa.Column("llm_model", sa.String(200), nullable=True),
        sa.Column("input_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("output_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("cost_usd", sa.Float, nullable=False, server_default="0"),
        sa.Column("price_known", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("steps", sa.Integer, nullable=False, server_default="0"),
        sa.Column("stop_reason", sa.String(40), nullable=True),
    ]


def upgrade() -> None:
    with op.batch_alter_table("evalgen_evals") as batch:
        # Versions saved before candidates existed were all what eval:NAME resolved to.
        batch.add_column(sa.Column("status", sa.String(20), nullable=False, server_default="active"))
        batch.add_column(sa.Column("promoted_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("target_accuracy", sa.Float, nullable=True))
        batch.add_column(sa.Column("job_id", sa.String(40), nullable=True))
        batch.add_column(sa.Column("candidates_json", sa.Text, nullable=True))
        for column in _usage_columns():
            batch.add_column(column)
    op.execute("UPDATE evalgen_evals SET promoted_at = created_at")
    op.create_table(
        "evalgen_jobs",
        sa.Column("job_id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("dataset", sa.String(200), nullable=False),
        sa.Column("request_json", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("outcome", sa.String(20), nullable=True),
        sa.Column("eval_version", sa.Integer, nullable=True),
        sa.Column("train_accuracy", sa.Float, nullable=True),
        sa.Column("holdout_accuracy", sa.Float, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("error_code", sa.String(40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("owner", sa.String(100), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("runs", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_seq", sa.Integer, nullable=False, server_default="0"),
        *_usage_columns(),
    )
    op.create_index("ix_evalgen_jobs_status", "evalgen_jobs", ["status"])
    op.create_index("ix_evalgen_jobs_name", "evalgen_jobs", ["name"])
    op.create_table(
        "evalgen_job_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("job_id", sa.String(40), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("accuracy", sa.Float, nullable=True),
        sa.Column("step", sa.Integer, nullable=False, server_default="0"),
        sa.Column("eval_version", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("job_id", "seq", name="uq_evalgen_job_events_job_seq"),
    )


def downgrade() -> None:
    op.drop_table("evalgen_job_events")
    op.drop_index("ix_evalgen_jobs_name", "evalgen_jobs")
    op.drop_index("ix_evalgen_jobs_status", "evalgen_jobs")
    op.drop_table("evalgen_jobs")
    with op.batch_alter_table("evalgen_evals") as batch:
        for name in (
            "stop_reason",
            "steps",
            "attempts",
            "price_known",
            "cost_usd",
            "output_tokens",
            "input_tokens",
            "llm_model",
            "candidates_json",
            "job_id",
            "target_accuracy",
            "promoted_at",
            "status",
        ):
            batch.drop_column(name)
