"""store_traces.agent: the agent (or source) an imported trace came from, to filter by

Revision ID: store_0003
Revises: store_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "store_0003"
down_revision = "store_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("store_traces", sa.Column("agent", sa.String(200), nullable=True))
    op.create_index("ix_store_traces_dataset_agent", "store_traces", ["dataset", "agent"])


def downgrade() -> None:
    op.drop_index("ix_store_traces_dataset_agent", table_name="store_traces")
    with op.batch_alter_table("store_traces") as batch:
        batch.drop_column("agent")
