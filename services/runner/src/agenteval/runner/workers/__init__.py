"""Agent worker processes: ``python:`` and ``anthropic:`` agents (and the tool mocks that are
Python functions) run here, away from the runner's own process.

:class:`WorkerPool` (``pool``) feeds trials to worker processes (``worker``) over pipes
(``protocol``) and turns every way a worker can fail into a verdict on the right trial.
"""

from agenteval.runner.workers.pool import PoolClosed, Verdict, WorkerLimits, WorkerPool, default_workers

__all__ = ["PoolClosed", "Verdict", "WorkerLimits", "WorkerPool", "default_workers"]
