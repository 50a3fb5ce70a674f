"""The session's runs: one per suite (its selected cases), on a server or an embedded stack.

pytest is synchronous and the agenteval client is not: an event loop runs on a thread of
its own for the whole session, with the embedded stack (when no server is given) and the
client on it. A suite runs when its first case is reached, with every case of it that the
session selected (after ``-m`` / ``-k``), so one run serves all its items.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import CaseSummary, RunSummary

if TYPE_CHECKING:
    from agenteval.pytest_plugin._items import EvalCaseItem

T = TypeVar("T")


@dataclass(frozen=True)
class RunSettings:
    k: int | None = None
    agent: str | None = None
    server: str | None = None
    min_pass_at_k: float | None = None
    min_pass_pow_k: float | None = None
    seed: int = 0
    agent_version: str = ""
    data_dir: str | None = None

    @classmethod
    def from_config(cls, config: pytest.Config) -> RunSettings:
        def threshold(option: str, ini: str) -> float | None:
            value = config.getoption(option)
            if value is None and config.getini(ini):
                value = float(config.getini(ini))
            return None if value is None else float(value)

        return cls(
            k=config.getoption("agenteval_k"),
            agent=config.getoption("agenteval_agent"),
            server=config.getoption("agenteval_server"),
            min_pass_at_k=threshold("agenteval_min_pass_at_k", "agenteval_min_pass_at_k"),
            min_pass_pow_k=threshold("agenteval_min_pass_pow_k", "agenteval_min_pass_pow_k"),
            seed=config.getoption("agenteval_seed"),
            agent_version=config.getoption("agenteval_agent_version"),
            data_dir=config.getoption("agenteval_data_dir"),
        )


@dataclass
class TrialView:
    """One trial of a case, as the failure report shows it."""

    trial_index: int
    status: str
    passed: bool | None
    trace: dict[str, Any]
    grades: list[dict[str, Any]]


@dataclass
class SuiteResult:
    """The run of one suite: its summary and its trials by case, or why it could not run."""

    suite: Suite
    run_id: str = ""
    summary: RunSummary | None = None
    trials: dict[str, list[TrialView]] = field(default_factory=dict)
    error: str = ""

    def case(self, case_id: str) -> CaseSummary | None:
        if self.summary is None:
            return None
        return next((c for c in self.summary.cases if c.case_id == case_id), None)


class _LoggerTable(dict[str, Any]):
    """The logging manager's table of loggers, read as a snapshot.

    pytest's log capture walks ``logging.root.manager.loggerDict.values()`` on the main thread
    at every test phase, while the session's loop thread (the embedded stack) may create a
    logger at any moment: "dictionary changed size during iteration" failed a test's setup or
    teardown. Readers get the views of a copy (taken while the GIL is held, so whole; set
    operations on keys still work); writers are unchanged."""

    def _copy(self) -> dict[str, Any]:
        # dict.copy(self) would call keys() on a subclass: the base class's view is copied in C.
        return dict(super().items())

    def values(self) -> Any:
        return self._copy().values()

    def items(self) -> Any:
        return self._copy().items()

    def keys(self) -> Any:
        return self._copy().keys()

    def __iter__(self) -> Any:
        return iter(self._copy())


def _loggers_read_as_snapshots() -> None:
    """Make the logger table safe to walk while another thread adds to it (idempotent)."""
    manager = logging.root.manager
    with logging._lock:  # type: ignore[attr-defined]  # the lock getLogger takes
        if not isinstance(manager.loggerDict, _LoggerTable):
            manager.loggerDict = _LoggerTable(manager.loggerDict)


class Runs:
    """The session's suite runs, made on demand and kept for the summary."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.results: dict[Path, SuiteResult] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stack: Any = None
        self._client: Any = None
        self._tmp: str | None = None

    def result_for(self, item: EvalCaseItem) -> SuiteResult:
        path = item.suite_path
        if path not in self.results:
            from agenteval.pytest_plugin._items import EvalCaseItem

            selected = {
                i.case.id for i in item.session.items if isinstance(i, EvalCaseItem) and i.suite_path == path
            }
            suite = item.suite.model_copy(update={"cases": [c for c in item.suite.cases if c.id in selected]})
            self.results[path] = self._run(suite)
        return self.results[path]

    def _run(self, suite: Suite) -> SuiteResult:
        try:
            return self._call(self._run_async(suite))
        except Exception as exc:  # a stack that will not start, a server that is down, a bad agent
            return SuiteResult(suite=suite, error=_message(exc))

    async def _run_async(self, suite: Suite) -> SuiteResult:
        from agenteval.contracts.pb import summary_from_pb
        from agenteval.v1 import runner_pb2

        client = await self._connect()
        agent = self.settings.agent or suite.agent or ""
        run = await client.submit(
            suite,
            agent=agent,
            k=self.settings.k,
            seed=self.settings.seed,
            agent_version=self.settings.agent_version,
        )
        summary = None
        async for ev in client.watch(run.run_id):
            if ev.type in (runner_pb2.RUN_EVENT_TYPE_COMPLETED, runner_pb2.RUN_EVENT_TYPE_FAILED):
                summary = summary_from_pb(ev.summary) if ev.HasField("summary") else None
                break
        if summary is None:
            summary = await client.summary(run.run_id)
        result = SuiteResult(suite=suite, run_id=run.run_id, summary=summary)
        if summary is None:
            result.error = f"run {run.run_id} ended without a summary"
            return result
        for t in await client.trials(run.run_id):
            result.trials.setdefault(t.case_id, []).append(
                TrialView(
                    trial_index=t.trial_index,
                    status=t.status or "ok",
                    passed=t.passed,
                    trace=t.trace.to_eval_dict() if t.trace is not None else {},
                    grades=[g.model_dump() for g in t.grades],
                )
            )
        for views in result.trials.values():
            views.sort(key=lambda v: v.trial_index)
        return result

    async def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        from agenteval.sdk import Client

        target = self.settings.server
        if not target:
            from agenteval.cli.stack import EmbeddedStack

            data_dir = self.settings.data_dir
            if data_dir is None:
                self._tmp = data_dir = tempfile.mkdtemp(prefix="agenteval-pytest-")
            self._stack = EmbeddedStack(Path(data_dir))
            await self._stack.start()
            target = self._stack.target
        self._client = Client(target)
        return self._client

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            _loggers_read_as_snapshots()
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="agenteval-pytest", daemon=True
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        """Stop the client, the embedded stack and the loop."""
        if self._loop is None:
            return

        async def shutdown() -> None:
            if self._client is not None:
                await self._client.close()
            if self._stack is not None:
                await self._stack.stop()

        try:
            self._call(shutdown())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=30)
            self._loop.close()
            self._loop = None
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)


def _message(exc: BaseException) -> str:
    import grpc

    from agenteval.contracts.errors import Unavailable

    if isinstance(exc, Unavailable):
        return f"cannot reach agenteval: {exc}"
    if isinstance(exc, grpc.aio.AioRpcError):
        if exc.code() == grpc.StatusCode.UNAVAILABLE:
            return f"cannot reach agenteval: {exc.details()}"
        return exc.details() or str(exc.code())
    return f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
