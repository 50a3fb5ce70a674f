"""The suite store's tables: suites, their versions, and the cases of each version.

A case's content is stored once per suite by its digest (``suite_store_cases``); a version
lists its cases in order (``suite_store_version_cases``), so a version that changes one case
of a thousand stores one case. Rows are only ever inserted, except the suite's pointer to
its current version and the deletion of a whole suite.
"""

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKeyConstraint,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

suites = Table(
    "suite_store_suites",
    metadata,
    Column("name", String(128), primary_key=True),
    Column("current_version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("project", String(64), nullable=False, default="default"),
)

versions = Table(
    "suite_store_versions",
    metadata,
    Column("name", String(128), nullable=False),
    Column("version", Integer, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("header_json", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("case_count", Integer, nullable=False),
    Column("tags_json", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("name", "version", name="pk_suite_store_versions"),
    UniqueConstraint("name", "digest", name="uq_suite_store_versions_digest"),
    ForeignKeyConstraint(["name"], ["suite_store_suites.name"], name="fk_suite_store_versions_suite"),
)

cases = Table(
    "suite_store_cases",
    metadata,
    Column("name", String(128), nullable=False),
    Column("digest", String(64), nullable=False),
    Column("case_json", Text, nullable=False),
    PrimaryKeyConstraint("name", "digest", name="pk_suite_store_cases"),
)

version_cases = Table(
    "suite_store_version_cases",
    metadata,
    Column("name", String(128), nullable=False),
    Column("version", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("case_id", String(200), nullable=False),
    Column("case_digest", String(64), nullable=False),
    PrimaryKeyConstraint("name", "version", "position", name="pk_suite_store_version_cases"),
    ForeignKeyConstraint(
        ["name", "version"],
        ["suite_store_versions.name", "suite_store_versions.version"],
        name="fk_suite_store_version_cases_version",
    ),
)
