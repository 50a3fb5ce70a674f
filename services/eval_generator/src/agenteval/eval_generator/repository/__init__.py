"""Reads and writes of the eval-generator's own tables: saved evals, generation jobs, their events."""

from agenteval.eval_generator.repository._evals import EvalRepository, insert_version
from agenteval.eval_generator.repository._jobs import JobRepository, LostJob

__all__ = ["EvalRepository", "JobRepository", "LostJob", "insert_version"]
