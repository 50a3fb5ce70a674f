"""metrics_trial_results.cost_known: whether every token of the trial's agent had a price, so a
run can say "cost unknown for N trials" instead of counting them at $0

Revision ID: metrics_0007
Revises: metrics_0006
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0007"
down_revision = "metrics_0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.add_column(sa.Column("cost_known", sa.Boolean, nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.drop_column("cost_known")
