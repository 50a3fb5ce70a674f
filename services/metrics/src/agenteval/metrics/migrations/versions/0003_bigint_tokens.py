"""token counts as 64-bit integers (an agent may report over 2**31 tokens)

Revision ID: metrics_0003
Revises: metrics_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "metrics_0003"
down_revision = "metrics_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.alter_column("input_tokens", type_=sa.BigInteger, existing_nullable=False)
        batch.alter_column("output_tokens", type_=sa.BigInteger, existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("metrics_trial_results") as batch:
        batch.alter_column("input_tokens", type_=sa.Integer, existing_nullable=False)
        batch.alter_column("output_tokens", type_=sa.Integer, existing_nullable=False)
