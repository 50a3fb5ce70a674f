"""Every bus subject and the stream, in one place: handlers never spell a subject.

Subjects are ``<prefix>.<entity>.<past-tense verb>``; the prefix is ``agenteval``
unless a deployment (or a test) isolates itself with another one.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PREFIX = "agenteval"


@dataclass(frozen=True)
class Subjects:
    """The subjects and stream of one deployment."""

    prefix: str = DEFAULT_PREFIX

    @property
    def stream(self) -> str:
        return self.prefix.upper().replace(".", "_").replace("-", "_")

    @property
    def all(self) -> str:
        return f"{self.prefix}.>"

    @property
    def run_submitted(self) -> str:
        return f"{self.prefix}.run.submitted"

    @property
    def run_progressed(self) -> str:
        return f"{self.prefix}.run.progressed"

    @property
    def run_completed(self) -> str:
        return f"{self.prefix}.run.completed"

    @property
    def run_cancelled(self) -> str:
        return f"{self.prefix}.run.cancelled"

    @property
    def trial_requested(self) -> str:
        return f"{self.prefix}.trial.requested"

    @property
    def trial_completed(self) -> str:
        return f"{self.prefix}.trial.completed"

    @property
    def trial_graded(self) -> str:
        return f"{self.prefix}.trial.graded"

    @property
    def eval_generated(self) -> str:
        return f"{self.prefix}.eval.generated"
