"""metrics_trial_results and metrics_runs

Revision ID: metrics_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "metrics_trial_results",
        sa.Column("trial_id", sa.String(500), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("case_id", sa.String(200), nullable=False),
        sa.Column("trial_index", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("latency_ms", sa.Float, nullable=False),
        sa.Column("input_tokens", sa.Integer, nullable=False),
        sa.Column("output_tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=False),
        sa.Column("grader_scores_json", sa.Text, nullable=False),
        sa.Column("tags_json", sa.Text, nullable=False),
    )
    op.create_table(
        "metrics_runs",
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("suite", sa.String(200), nullable=False),
        sa.Column("agent_version", sa.String(200), nullable=False),
        sa.Column("trials_total", sa.Integer, nullable=False),
        sa.Column("completed", sa.Boolean, nullable=False),
        sa.Column("summary_json", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("metrics_runs")
    op.drop_table("metrics_trial_results")
