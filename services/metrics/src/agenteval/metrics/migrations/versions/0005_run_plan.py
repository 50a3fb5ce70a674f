"""each run's plan (trials per case, from run.submitted): a graded trial the run never asked
for (a forged or stray event) is refused instead of counted

Revision ID: metrics_0005
Revises: metrics_0004
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0005"
down_revision = "metrics_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.add_column(sa.Column("plan_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("metrics_runs") as batch:
        batch.drop_column("plan_json")
