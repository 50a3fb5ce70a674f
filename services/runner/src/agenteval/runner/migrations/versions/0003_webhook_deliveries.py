"""runner_webhook_deliveries: every webhook POST, its tries and how it ended

Revision ID: runner_0003
Revises: runner_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "runner_0003"
down_revision = "runner_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runner_webhook_deliveries",
        sa.Column("delivery_id", sa.String(200), primary_key=True),
        sa.Column("event", sa.String(40), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("last_status_code", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("runner_webhook_deliveries")
