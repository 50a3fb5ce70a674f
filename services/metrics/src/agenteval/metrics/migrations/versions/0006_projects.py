"""metrics_runs.project: the project of each run (from run.submitted), so its summary and its
result stream are seen only by callers of that project

Revision ID: metrics_0006
Revises: metrics_0005
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0006"
down_revision = "metrics_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.add_column(sa.Column("project", sa.String(64), nullable=False, server_default="default"))


def downgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.drop_column("project")
