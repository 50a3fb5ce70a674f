"""Who is to blame when a worker cannot report a trial's end itself: the rules of the pool.

Each rule returns a plan ``(culprit, verdict, suspects)``: the trial to end with ``verdict``
(None: nobody can be named), and the keys of trials to run again alone (quarantine). Every
other trial the worker held is run again on another worker.
"""

from __future__ import annotations

from agenteval.runner.workers.jobs import Job, Verdict
from agenteval.runner.workers.process import WorkerProcess, describe_exit

Plan = tuple[Job | None, Verdict | None, set[int]]

BLOCKED_REPORT_S = 2.0
"""How recent the watchdog's word on the trial holding the loop must be to be believed."""
HINT = "(a blocking call in an async agent?)"


def unresponsive(w: WorkerProcess, now: float, named: Job | None = None) -> Plan:
    """A worker whose event loop went silent while a trial's time ran out (``named``: the
    trial that never came back although the loop was alive)."""
    jobs = w.inflight
    silent = now - w.last_seen
    if named is not None:
        message = (
            f"the agent did not finish within {named.timeout_s:g}s and its worker did not answer "
            "for it: the worker process was killed"
        )
        return named, Verdict("timeout", "timeout", message), set()
    if w.blocked_by is not None and now - w.blocked_at < BLOCKED_REPORT_S:
        named = jobs.get(w.blocked_by)
    if named is None and len(jobs) == 1:
        named = next(iter(jobs.values()))
    if named is None:  # the watchdog could not say (the GIL held by C code?): those out of time
        return None, None, {k for k, j in jobs.items() if now >= j.deadline}
    if named.kind == "load":
        message = f"importing it held its worker for over {silent:.1f}s; the worker process was killed"
        return named, Verdict("error", "agent_blocked", message), set()
    if now >= named.deadline:
        message = (
            f"the agent did not finish within {named.timeout_s:g}s and held its worker's event loop "
            f"{HINT}: the worker process was killed"
        )
        return named, Verdict("timeout", "timeout", message), set()
    message = (
        f"the agent blocked its worker's event loop for {silent:.1f}s while other trials' time ran "
        f"out {HINT}: the worker process was killed"
    )
    return named, Verdict("error", "agent_blocked", message), set()


def death(w: WorkerProcess, jobs: list[Job], memory_mb: int) -> Plan:
    """A worker that died by itself (or was killed for misbehaving)."""
    if w.exit_claim is not None:
        key, code = w.exit_claim
        named = next((j for j in jobs if j.key == key), None)
        if named is not None or key is not None:  # named, though maybe not one of these
            message = (
                f"agent process exited with code {code}: the agent called os._exit({code}); "
                "its worker was replaced"
            )
            return named, Verdict("error", "agent_exited", message), set()
    reason = describe_exit(w.returncode)
    if w.killed is not None:
        reason = f"its agent worker was killed: {w.killed}"
    elif w.returncode == -9 and memory_mb:  # not by the pool: the OOM killer?
        reason += f" (out of memory? each agent worker may use {memory_mb} MB)"
    if w.solo and jobs:
        return jobs[0], Verdict("error", "agent_crashed", reason), set()
    # Even a lone trial is only a suspect: the worker may have died (the OOM killer picks the
    # largest process) before it read the trial at all.
    return None, None, {j.key for j in jobs}
