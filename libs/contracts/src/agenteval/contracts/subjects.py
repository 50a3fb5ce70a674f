"""Every bus subject and the stream, in one place: handlers never spell a subject.

Subjects are ``<prefix>.<entity>.<past-tense verb>``; the prefix is ``agenteval``
unless a deployment (or a test) isolates itself with another one.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

DEFAULT_PREFIX = "agenteval"
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")


def token(value: str) -> str:
    """``value`` as one subject token, injectively: plain names stay readable, anything else
    (dots, spaces, ``*``, ``>``, unicode, the empty string) becomes ``~`` + base64url."""
    if _PLAIN.fullmatch(value):
        return value
    return "~" + base64.urlsafe_b64encode(value.encode()).decode().rstrip("=")


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
    def delivery_failed(self) -> str:
        return f"{self.prefix}.delivery.failed"

    @property
    def eval_generated(self) -> str:
        return f"{self.prefix}.eval.generated"

    def run_reported(self, project: str, suite: str, agent_version: str, run_id: str) -> str:
        """Where a run's result stream is published (see ``RunReported``)."""
        parts = (project, suite, agent_version, run_id)
        return f"{self.prefix}.run.reported." + ".".join(token(p) for p in parts)

    def run_reported_filter(
        self,
        project: str | None = None,
        suite: str | None = None,
        agent_version: str | None = None,
        run_id: str | None = None,
    ) -> str:
        """A subject filter for the result streams of one run, or of every run matching the
        given fields (None: any)."""
        parts = (project, suite, agent_version, run_id)
        return f"{self.prefix}.run.reported." + ".".join("*" if p is None else token(p) for p in parts)
