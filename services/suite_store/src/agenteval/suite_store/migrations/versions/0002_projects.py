"""suite_store_suites.project: every stored suite belongs to a project (before: "default")

Revision ID: suite_store_0002
Revises: suite_store_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "suite_store_0002"
down_revision = "suite_store_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("suite_store_suites") as batch:
        batch.add_column(sa.Column("project", sa.String(64), nullable=False, server_default="default"))


def downgrade() -> None:
    with op.batch_alter_table("suite_store_suites") as batch:
        batch.drop_column("project")
