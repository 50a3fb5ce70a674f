"""suite_store tables

Revision ID: suite_store_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "suite_store_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "suite_store_suites",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("current_version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "suite_store_versions",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("header_json", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("case_count", sa.Integer, nullable=False),
        sa.Column("tags_json", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", "version", name="pk_suite_store_versions"),
        sa.UniqueConstraint("name", "digest", name="uq_suite_store_versions_digest"),
        sa.ForeignKeyConstraint(["name"], ["suite_store_suites.name"], name="fk_suite_store_versions_suite"),
    )
    op.create_table(
        "suite_store_cases",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("case_json", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("name", "digest", name="pk_suite_store_cases"),
    )
    op.create_table(
        "suite_store_version_cases",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("case_id", sa.String(200), nullable=False),
        sa.Column("case_digest", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("name", "version", "position", name="pk_suite_store_version_cases"),
        sa.ForeignKeyConstraint(
            ["name", "version"],
            ["suite_store_versions.name", "suite_store_versions.version"],
            name="fk_suite_store_version_cases_version",
        ),
    )


def downgrade() -> None:
    op.drop_table("suite_store_version_cases")
    op.drop_table("suite_store_cases")
    op.drop_table("suite_store_versions")
    op.drop_table("suite_store_suites")
