"""metrics_runs.agent: the agent spec of a run, so its summary (and MLflow) can name it

Revision ID: metrics_0002
Revises: metrics_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0002"
down_revision = "metrics_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.add_column(sa.Column("agent", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.drop_column("agent")
