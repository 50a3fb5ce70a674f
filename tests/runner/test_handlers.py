"""Unit tests of the bus handlers: FastStream's test broker for the runner's trial subscriber,
direct calls for the batch handlers (they receive raw JSON payloads)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from faststream.nats import NatsBroker, TestNatsBroker

from agenteval.contracts.events import (
    Event,
    RunCancelled,
    RunSubmitted,
    TrialCompleted,
    TrialGraded,
    TrialRequested,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.contracts.trace import Trace
from agenteval.grader import handlers as grader_handlers
from agenteval.grader.service import GraderService
from agenteval.runner import handlers as runner_handlers
from agenteval.runner.repository import RunRepository
from agenteval.runner.service import RunnerService
from agenteval.runner.settings import RunnerSettings
from agenteval.runtime import bus

SUBJECTS = Subjects("unit")


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Event]] = []

    async def __call__(self, subject: str, events: Sequence[Event]) -> None:
        self.sent.extend((subject, e) for e in events)


class NoRepo(RunRepository):
    def __init__(self) -> None:
        self.running: list[str] = []

    async def mark_running(self, run_id: str) -> None:
        self.running.append(run_id)


def trial(i: int = 0) -> TrialRequested:
    return TrialRequested(
        event_id=f"trial.requested:r/c/{i}",
        run_id="r",
        trial_id=f"r/c/{i}",
        case=Case(id="c", input="hello"),
        graders=[GraderSpec(name="output_contains", params={"text": "HELLO"})],
        trial_index=i,
        trials_total=2,
        agent="python:tests.agents:echo_tool",
        seed=i,
        timeout_s=5,
    )


async def test_trial_requested_handler_runs_the_agent_and_publishes_trial_completed() -> None:
    broker = NatsBroker()
    sent = Recorder()
    service = RunnerService(NoRepo(), RunnerSettings(concurrency=4), SUBJECTS, sent)
    runner_handlers.register(broker, service)
    [spec] = [s for s in bus._batch_specs.pop(id(broker)) if s.durable == "runner-trial-requested"]
    assert spec.max_workers == 4
    try:
        await spec.handler(trial(0).model_dump_json().encode())
        await spec.handler(b'{"not": "a trial"}')  # rejected, no crash
    finally:
        await service.close()
    [(subject, done)] = sent.sent
    assert subject == SUBJECTS.trial_completed
    assert isinstance(done, TrialCompleted) and done.event_id == "trial.completed:r/c/0"
    assert done.trace.output == "ANSWER: HELLO" and done.trace.tool_calls[0].name == "lookup"


async def test_run_cancelled_reaches_every_replica_through_a_plain_subscription() -> None:
    broker = NatsBroker()
    service = RunnerService(NoRepo(), RunnerSettings(), SUBJECTS, Recorder())
    runner_handlers.register(broker, service)
    bus._batch_specs.pop(id(broker), None)
    async with TestNatsBroker(broker) as tb:
        await tb.publish(
            RunCancelled(event_id="run.cancelled:r9", run_id="r9").model_dump(mode="json"),
            SUBJECTS.run_cancelled,
        )
    assert "r9" in service.cancelled


async def test_run_cancelled_is_not_answered_on_the_publishers_ack_inbox(
    nats_url: str, bus_prefix: str
) -> None:
    """run.cancelled goes to the stream with the ack inbox as reply subject: a subscriber that
    answered there (FastStream answers by default) made CancelRun fail with "no stream
    acknowledged the message" whenever its empty answer beat the stream's ack."""
    import asyncio

    import nats

    subjects = Subjects(bus_prefix)
    broker = NatsBroker(nats_url, logger=None)
    service = RunnerService(NoRepo(), RunnerSettings(), subjects, Recorder())
    runner_handlers.register(broker, service)
    bus._batch_specs.pop(id(broker), None)
    nc = await nats.connect(nats_url)
    try:
        async with broker:
            await broker.start()
            broker_nc = broker.config.broker_config.connection_state.connection

            def cancel(run_id: str) -> bytes:
                return (
                    RunCancelled(event_id=f"run.cancelled:{run_id}", run_id=run_id).model_dump_json().encode()
                )

            async with asyncio.timeout(10):  # until the subscription is live at the server
                while "r0" not in service.cancelled:
                    await nc.publish(subjects.run_cancelled, cancel("r0"))
                    await asyncio.sleep(0.05)
            inbox = nc.new_inbox()
            answers = await nc.subscribe(inbox)
            await nc.publish(subjects.run_cancelled, cancel("r1"), reply=inbox)
            await nc.publish(subjects.run_cancelled, cancel("r2"))
            async with asyncio.timeout(10):
                while "r2" not in service.cancelled:
                    await asyncio.sleep(0.01)
            # r1 was handled (and any answer to it sent) before r2; both flushes order the
            # server's delivery of that answer before this point.
            await broker_nc.flush()
            await nc.flush()
            assert "r1" in service.cancelled
            assert answers.pending_msgs == 0, "the run.cancelled subscriber answered the publisher's inbox"
    finally:
        await nc.close()


async def test_run_submitted_handler_expands_into_deduplicated_trials() -> None:
    broker = NatsBroker()
    sent = Recorder()
    repo = NoRepo()
    service = RunnerService(repo, RunnerSettings(), SUBJECTS, sent)
    runner_handlers.register(broker, service)
    [spec] = [s for s in bus._batch_specs.pop(id(broker)) if s.durable == "runner-run-submitted"]
    suite = Suite.model_validate(
        {
            "name": "s",
            "trials": 2,
            "cases": [{"id": "a", "input": "x"}, {"id": "b", "input": "y", "trials": 3}],
        }
    )
    ev = RunSubmitted(
        event_id="run.submitted:r",
        run_id="r",
        suite=suite,
        agent="python:tests.agents:instant",
        seed=1,
        trials_total=5,
    )
    await spec.handler([ev.model_dump_json().encode()])
    trials = [e for _, e in sent.sent]
    assert [t.trial_id for t in trials] == ["r/a/0", "r/a/1", "r/b/0", "r/b/1", "r/b/2"]
    assert len({t.event_id for t in trials}) == 5 and len({t.seed for t in trials}) == 5
    assert repo.running == ["r"]


async def test_grader_handler_grades_a_batch_and_skips_invalid_payloads() -> None:
    broker = NatsBroker()
    sent = Recorder()
    grader_handlers.register(broker, GraderService(), SUBJECTS, sent)
    [spec] = bus._batch_specs.pop(id(broker))
    ok = TrialCompleted(
        event_id="e1",
        run_id="r",
        trial_id="r/c/0",
        case=Case(id="c", input="hi"),
        graders=[GraderSpec(name="output_contains", params={"text": "yes"})],
        trial_index=0,
        trials_total=2,
        trace=Trace(output="yes indeed"),
    )
    failed = ok.model_copy(
        update={"trial_id": "r/c/1", "trial_index": 1, "trace": Trace(status="timeout", output=None)}
    )
    await spec.handler([ok.model_dump_json().encode(), b"{broken", failed.model_dump_json().encode()])
    graded = [e for _, e in sent.sent]
    assert [type(g) for g in graded] == [TrialGraded, TrialGraded]
    assert graded[0].passed and graded[0].grades[0].explanation
    assert not graded[1].passed and graded[1].status == "timeout"


@pytest.mark.parametrize("in_process", [False, True], ids=["workers", "in_process"])
async def test_a_result_json_cannot_hold_fails_its_trial_not_the_publish(in_process: bool) -> None:
    sent = Recorder()
    settings = RunnerSettings(agents_in_process=in_process)
    service = RunnerService(NoRepo(), settings, SUBJECTS, sent)
    req = trial(0).model_copy(
        update={
            "agent": "python:tests.runner.fault_agents:misbehaves",
            "case": Case(id="c", input="hello", metadata={"fault": "unserializable"}),
        }
    )
    try:
        await service.execute(req)
    finally:
        await service.close()
    [(_, done)] = sent.sent
    assert isinstance(done, TrialCompleted)
    done.model_dump_json()  # it can be published
    assert done.trace.status == "error" and done.trace.error is not None
    assert done.trace.error.code == "bad_agent_output" and "cannot be serialized" in done.trace.error.message
    assert done.trace.output == "fine"
