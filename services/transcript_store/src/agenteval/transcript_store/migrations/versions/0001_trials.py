"""store_trials

Revision ID: store_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "store_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "store_trials",
        sa.Column("trial_id", sa.String(500), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("case_id", sa.String(200), nullable=False),
        sa.Column("trial_index", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("latency_ms", sa.Float, nullable=True),
        sa.Column("trace_json", sa.Text, nullable=True),
        sa.Column("passed", sa.Boolean, nullable=True),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("grades_json", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_store_trials_run_case", "store_trials", ["run_id", "case_id"])


def downgrade() -> None:
    op.drop_table("store_trials")
