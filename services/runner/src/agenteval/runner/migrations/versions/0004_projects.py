"""runner_runs.project: every run belongs to a project (runs from before: "default")

Revision ID: runner_0004
Revises: runner_0003
"""

import sqlalchemy as sa
from alembic import op

revision = "runner_0004"
down_revision = "runner_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runner_runs") as batch:
        batch.add_column(sa.Column("project", sa.String(64), nullable=False, server_default="default"))
        batch.create_index("ix_runner_runs_project", ["project"])


def downgrade() -> None:
    with op.batch_alter_table("runner_runs") as batch:
        batch.drop_index("ix_runner_runs_project")
        batch.drop_column("project")
