"""metrics keeps no copy of run summaries: it computes them from its trial results, and the
runner keeps the one stored summary of a run (with the run record and its suite)

Revision ID: metrics_0004
Revises: metrics_0003
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0004"
down_revision = "metrics_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.drop_column("summary_json")


def downgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.add_column(sa.Column("summary_json", sa.Text(), nullable=True))
