"""The eval-generator's tables: saved evals and their versions."""

from sqlalchemy import Column, DateTime, Float, Integer, MetaData, String, Table, Text, UniqueConstraint

metadata = MetaData()

evals = Table(
    "evalgen_evals",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("code", Text, nullable=False),
    Column("generator", String(200), nullable=False),
    Column("train_accuracy", Float, nullable=True),
    Column("holdout_accuracy", Float, nullable=True),
    Column("dataset", String(200), nullable=False),
    Column("dataset_version", Integer, nullable=False),
    Column("split_json", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("name", "version", name="uq_evalgen_evals_name_version"),
)
