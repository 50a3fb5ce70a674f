"""evalgen_evals

Revision ID: evalgen_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "evalgen_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evalgen_evals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("code", sa.Text, nullable=False),
        sa.Column("generator", sa.String(200), nullable=False),
        sa.Column("train_accuracy", sa.Float, nullable=True),
        sa.Column("holdout_accuracy", sa.Float, nullable=True),
        sa.Column("dataset", sa.String(200), nullable=False),
        sa.Column("dataset_version", sa.Integer, nullable=False),
        sa.Column("split_json", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_evalgen_evals_name_version"),
    )


def downgrade() -> None:
    op.drop_table("evalgen_evals")
