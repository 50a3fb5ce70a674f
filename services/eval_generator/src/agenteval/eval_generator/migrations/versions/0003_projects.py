"""evalgen_evals.project and evalgen_jobs.project: saved evals and generation jobs belong to the
project of the caller who started them (before: "default")

Revision ID: evalgen_0003
Revises: evalgen_0002_jobs
"""

import sqlalchemy as sa
from alembic import op

revision = "evalgen_0003"
down_revision = "evalgen_0002_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("evalgen_evals", "evalgen_jobs"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("project", sa.String(64), nullable=False, server_default="default"))


def downgrade() -> None:
    for table in ("evalgen_evals", "evalgen_jobs"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("project")
