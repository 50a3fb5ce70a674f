"""runner_runs

Revision ID: runner_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "runner_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runner_runs",
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("request_id", sa.String(200), unique=True, nullable=True),
        sa.Column("suite", sa.String(200), nullable=False, index=True),
        sa.Column("agent", sa.String(500), nullable=False),
        sa.Column("agent_version", sa.String(200), nullable=False, index=True),
        sa.Column("k", sa.Integer, nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("concurrency", sa.Integer, nullable=False),
        sa.Column("timeout_s", sa.Float, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("trials_total", sa.Integer, nullable=False),
        sa.Column("trials_graded", sa.Integer, nullable=False),
        sa.Column("passes", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("suite_json", sa.Text, nullable=False),
        sa.Column("summary_json", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("runner_runs")
