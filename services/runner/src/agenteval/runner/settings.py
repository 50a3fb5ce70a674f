"""Runner settings (env prefix ``AGENTEVAL_RUNNER_``)."""

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class RunnerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTEVAL_RUNNER_", extra="ignore")

    database_url: str | None = None
    """The runner's own database (defaults to the shared one)."""
    grpc_address: str = "127.0.0.1:50051"
    """Where RunService listens when the runner runs alone."""
    concurrency: int = Field(default=512, ge=1)
    """Trials this replica runs at once (a run may ask for fewer). Agents are mostly waiting on
    models and tools, so a replica holds many in flight; sync agents run on a thread pool."""
    shared_limit: bool = True
    """Enforce a run's concurrency limit across every runner replica: the run's trials are
    published as a window that moves on as trials finish (its position is a counter in a
    JetStream key-value bucket). Embedded mode has one runner, whose own limit is exact, and turns it off."""
    trial_ack_wait_s: float = Field(default=10.0, ge=1.0)
    """A trial whose runner went silent this long (died, was killed) is run again elsewhere; a
    living runner keeps its long trials with in-progress acks."""
    default_timeout_s: float = 60.0
    """Per-trial timeout when neither the run nor the suite sets one."""
    agents_in_process: bool = False
    """Run ``python:`` and ``anthropic:`` agents (and the cases' ``{"python": ...}`` tool mocks)
    inside the runner's own process, as trusted code (how agenteval ran them before agent workers). Nothing protects the runner then: a blocking, exiting,
    memory-hungry or noisy agent stops or floods it for every run. For local runs of your own
    agents only; the default runs them in agent worker processes."""
    agent_workers: int = Field(default=0, ge=0)
    """Agent worker processes of this runner (0: two, up to four on a larger machine). Each
    runs many trials at once: async agents on its event loop, sync agents on its threads."""
    agent_worker_threads: int = Field(default=32, ge=1)
    """Sync agents one agent worker runs at once."""
    agent_memory_mb: int = Field(default=4096, ge=0)
    """Address-space limit of each agent worker in MiB (0: none): an agent that allocates past
    it gets a MemoryError (or its worker dies), not the machine's memory."""
    agent_output_chars: int = Field(default=65536, ge=0)
    """What an agent prints to stdout and stderr, kept per trial and stream in its trace
    (``metadata.stdout`` / ``metadata.stderr``); the rest is counted and dropped."""
    agent_max_trace_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    """Largest trace an agent worker sends back; a larger one makes the trial an error."""
    agent_kill_grace_s: float = Field(default=1.0, gt=0)
    """How long past a trial's timeout an agent worker whose event loop is blocked is given
    before it is killed (and the trials it held are judged or run again)."""
    evalgen_addr: str | None = None
    """EvalGeneratorService address, to check a suite's eval:NAME graders at submit (embedded: this
    process's)."""
    agent_modules: str | None = None
    """Which ``python:`` agents a caller may run: comma-separated module prefixes
    (``mycompany.agents,examples``), ``*`` for any module. Unset: any, when the runner listens
    on loopback only (embedded, local); none, when it listens on another interface, since a
    ``python:`` spec runs code on the runner's host. ``grpc://`` agents are always allowed."""
    agent_paths: bool = False
    """Whether ``python:path/to/file.py:fn`` agents may be run (a path on the runner's host).
    Implied when the runner listens on loopback only and agent_modules is unset."""
    agents_file: Path | None = None
    """A YAML file of agents registered by name (``agents: {support: "python:acme.bot:run"}``):
    callers run them as ``agent:support`` whatever agent_modules allows, without naming code."""
    max_suite_bytes: int = Field(default=900 * 1024, ge=1024, le=64 * 1024 * 1024)
    """The largest suite (as JSON) a run takes: its run.submitted event carries it whole, and
    the bus takes 1 MB a message by default."""
    stall_s: float = Field(default=900.0, gt=0, le=7 * 24 * 3600, allow_inf_nan=False)
    """A run in which no trial has been graded for this long is ended as failed, with the
    reason (the watchdog). Set it above your longest trial plus its grading."""
    watchdog_interval_s: float = Field(default=10.0, gt=0, le=3600, allow_inf_nan=False)
    """How often the watchdog looks at the runs that are going on."""
    evalgen_timeout_s: float = Field(default=5.0, gt=0)
    """How long submit waits for the eval generator before accepting the run unchecked."""
    suites_addr: str | None = None
    """SuiteService address, to run a stored suite named NAME@VERSION (embedded: this process's)."""
    suites_timeout_s: float = Field(default=10.0, gt=0)
    """How long submit waits for the suite store to hand over a stored suite."""
    webhooks_file: Path | None = None
    """A YAML/JSON file of webhooks (url, secret, events) told when a run completes and when it
    regressed; read and checked at start-up (see agenteval.runner.webhooks)."""
    webhook_attempts: int = Field(default=6, ge=1, le=20)
    """Tries of one webhook delivery before it is recorded as failed."""
    webhook_first_wait_s: float = Field(default=0.5, gt=0, le=600, allow_inf_nan=False)
    """Wait before a delivery's second try; each later wait doubles."""
