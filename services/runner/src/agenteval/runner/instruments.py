"""The runner's Prometheus instruments."""

from prometheus_client import Counter, Gauge, Histogram

RUNS_SUBMITTED = Counter("agenteval_runner_runs_submitted_total", "Runs accepted by SubmitRun")
TRIALS = Counter("agenteval_runner_trials_total", "Trials run, by outcome", ["status"])
# A trace too large for the bus goes whole into the transcripts bucket with a reference on the
# event ("by_reference"), or, when the bucket fails or there is none, as a cut copy alone ("cut_only").
OVERSIZED_TRACES = Counter(
    "agenteval_runner_oversized_traces_total", "Traces too large for the bus, by how they were sent", ["sent"]
)
for _sent in ("by_reference", "cut_only"):  # both series exist from the start, at 0
    OVERSIZED_TRACES.labels(sent=_sent)
TRIALS_IN_FLIGHT = Gauge("agenteval_runner_trials_in_flight", "Trials running now")
TRIAL_SECONDS = Histogram(
    "agenteval_runner_trial_duration_seconds",
    "Wall time of one trial",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
AGENT_WORKERS = Gauge("agenteval_runner_agent_workers", "Agent worker processes alive")
# Why agent workers ended: unresponsive (killed: its event loop was blocked past a trial's time),
# died (by itself: os._exit, a crash, the OOM killer), retired (holding timed-out sync agents),
# failed_start.
AGENT_WORKER_EXITS = Counter(
    "agenteval_runner_agent_worker_exits_total", "Agent worker processes that ended, by why", ["reason"]
)
for _reason in ("unresponsive", "died", "retired", "failed_start"):
    AGENT_WORKER_EXITS.labels(reason=_reason)
