"""runner_runs: the suite version a run ran, and its tag filter

Revision ID: runner_0002
Revises: runner_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "runner_0002"
down_revision = "runner_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Runs from before have no recorded version: "" (their stored suite_json is already filtered by tags).
    with op.batch_alter_table("runner_runs") as batch:
        batch.add_column(sa.Column("suite_version", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("suite_version_number", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("tags_json", sa.Text, nullable=False, server_default="[]"))
        batch.create_index("ix_runner_runs_suite_version", ["suite_version"])


def downgrade() -> None:
    with op.batch_alter_table("runner_runs") as batch:
        batch.drop_index("ix_runner_runs_suite_version")
        batch.drop_column("tags_json")
        batch.drop_column("suite_version_number")
        batch.drop_column("suite_version")
