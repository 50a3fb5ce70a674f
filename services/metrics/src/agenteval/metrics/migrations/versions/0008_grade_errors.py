"""metrics_trial_results.grade_errors_json: graders that could not grade a trial (a judge with no
API key, an eval function that raised) and why, so a run says so instead of "0 errors"

Revision ID: metrics_0008
Revises: metrics_0007
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0008"
down_revision = "metrics_0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.add_column(sa.Column("grade_errors_json", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.drop_column("grade_errors_json")
