"""store_trials.project and store_datasets.project: trials and labeled datasets belong to a
project (what was stored before: "default")

Revision ID: store_0004
Revises: store_0003
"""

import sqlalchemy as sa
from alembic import op

revision = "store_0004"
down_revision = "store_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("store_trials", "store_datasets"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("project", sa.String(64), nullable=False, server_default="default"))


def downgrade() -> None:
    for table in ("store_trials", "store_datasets"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("project")
