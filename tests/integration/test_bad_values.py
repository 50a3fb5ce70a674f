"""Values nobody expected never hang a run: 64-bit counts are stored on PostgreSQL, and a
count no column can hold ends its trial as an error with the reason."""

from __future__ import annotations

import pytest

from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests.integration.test_distributed import topology  # noqa: F401 - fixture

SUITE = Suite.model_validate(
    {
        "name": "odd-values",
        "trials": 2,
        "cases": [
            {"id": "normal", "input": "hello", "graders": [{"output_contains": {"text": "done"}}]},
            {"id": "huge", "input": "huge", "graders": [{"output_contains": {"text": "done"}}]},
            {"id": "impossible", "input": "impossible", "graders": [{"output_contains": {"text": "done"}}]},
        ],
    }
)


@pytest.mark.timeout(180)
async def test_odd_values_end_their_trials_and_the_run_completes_on_postgres(topology) -> None:  # noqa: F811
    addrs, runner_addrs, _ = topology
    async with Client(runner_addrs[0]) as client:
        run = await client.submit(SUITE, agent="python:tests.agents:odd_values")
        events = [ev async for ev in client.watch(run.run_id)]
        assert events[-1].summary.trials == 6
        summary = await client.summary(run.run_id)
        assert summary is not None
        cases = {c.case_id: c for c in summary.cases}
        assert (cases["normal"].passes, cases["huge"].passes) == (2, 2)
        assert cases["huge"].input_tokens == 2 * 3_000_000_000
        assert (cases["impossible"].passes, cases["impossible"].errors) == (0, 2)
        assert (await client.get_run(run.run_id)).status == "completed"

        trials = [t for ev in events for t in ev.trials if t.case_id == "impossible"]
        assert {t.error_code for t in trials} == {"bad_agent_output"}
        assert all("2**63-1" in t.error_message for t in trials)
    async with Client(addrs["transcript_store"]) as store:
        stored = await store.trials(run.run_id, case_id="impossible")
        assert len(stored) == 2 and all(t.status == "error" for t in stored)
        assert all(t.trace is not None and t.trace.error is not None for t in stored)
        assert {t.trace.error.code for t in stored if t.trace and t.trace.error} == {"bad_agent_output"}
