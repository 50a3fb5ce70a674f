"""store_datasets and store_traces: imported, labeled traces

Revision ID: store_0002
Revises: store_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "store_0002"
down_revision = "store_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "store_datasets",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "store_traces",
        sa.Column("dataset", sa.String(200), primary_key=True),
        sa.Column("trace_id", sa.String(200), primary_key=True),
        sa.Column("trace_json", sa.Text, nullable=False),
        sa.Column("label", sa.String(16), nullable=True),
        sa.Column("comment", sa.Text, nullable=True),
        sa.Column("rater", sa.String(200), nullable=True),
        sa.Column("source_format", sa.String(32), nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("step_count", sa.Integer, nullable=False),
        sa.Column("has_tool_calls", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("labeled_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_store_traces_dataset_label", "store_traces", ["dataset", "label"])


def downgrade() -> None:
    op.drop_table("store_traces")
    op.drop_table("store_datasets")
