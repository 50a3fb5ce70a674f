"""Metrics count each graded trial once and publish run.completed once, even on redelivery."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agenteval.contracts.events import (
    Event,
    GradeRecord,
    RunCompleted,
    RunProgressed,
    RunSubmitted,
    TrialGraded,
)
from agenteval.contracts.subjects import Subjects
from agenteval.contracts.suite import Suite
from agenteval.metrics.app import MIGRATIONS
from agenteval.metrics.repository import MetricsRepository
from agenteval.metrics.service import MetricsService
from agenteval.storage import create_engine, upgrade


def graded(run_id: str, case_id: str, i: int, passed: bool, total: int, latency: float = 10.0) -> TrialGraded:
    return TrialGraded(
        event_id=f"trial.graded:{run_id}/{case_id}/{i}",
        run_id=run_id,
        trial_id=f"{run_id}/{case_id}/{i}",
        case_id=case_id,
        trial_index=i,
        trials_total=total,
        suite="s",
        agent_version="v1",
        agent="python:shop.agent:run",
        status="ok",
        passed=passed,
        score=1.0 if passed else 0.0,
        grades=[
            GradeRecord(name="output_contains", score=1.0 if passed else 0.0, passed=passed, explanation="")
        ],
        latency_ms=latency,
        input_tokens=1000,
        output_tokens=100,
        models={"claude-haiku-4-5": {"input_tokens": 1000, "output_tokens": 100}},
    )


async def submit(svc: MetricsService, run_id: str, cases: dict[str, int]) -> None:
    """The run.submitted metrics learns a run's plan from: ``cases`` maps case id to trials."""
    suite = Suite.model_validate(
        {"name": "s", "cases": [{"id": c, "input": "x", "trials": n} for c, n in cases.items()]}
    )
    await svc.on_submitted(
        [
            RunSubmitted(
                event_id=f"run.submitted:{run_id}",
                run_id=run_id,
                suite=suite,
                agent="python:shop.agent:run",
                agent_version="v1",
                trials_total=sum(cases.values()),
            )
        ]
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, Event]] = []

    async def __call__(self, subject: str, events: Sequence[Event]) -> None:
        self.events.extend((subject, e) for e in events)

    def of(self, cls: type) -> list:
        return [e for _, e in self.events if isinstance(e, cls)]


@pytest.fixture
async def service(db_url: str):
    engine = create_engine(db_url)
    await upgrade(engine, "metrics", MIGRATIONS)
    rec = Recorder()
    yield MetricsService(MetricsRepository(engine), Subjects("t"), rec), rec
    await engine.dispose()


async def test_redelivered_trials_count_once_and_completion_is_published_once(service) -> None:
    svc, rec = service
    await submit(svc, "r1", {"a": 3, "b": 3})
    batch = [graded("r1", "a", i, passed=i < 2, total=6) for i in range(3)]
    batch += [graded("r1", "b", i, passed=True, total=6) for i in range(2)]
    await svc.on_graded(batch)
    await svc.on_graded(batch)  # the whole batch redelivered
    assert rec.of(RunCompleted) == []
    progress = rec.of(RunProgressed)
    assert progress and progress[-1].trials_graded == 5

    last = graded("r1", "b", 2, passed=False, total=6)
    await svc.on_graded([last])
    await svc.on_graded([last, *batch])  # and again, after completion
    [done] = rec.of(RunCompleted)
    s = done.summary
    assert (s.trials, s.passes) == (6, 4)
    assert (s.agent, s.agent_version) == ("python:shop.agent:run", "v1"), "the summary names its agent"
    a, b = s.cases
    assert (a.case_id, a.trials, a.passes) == ("a", 3, 2)
    assert (b.case_id, b.trials, b.passes) == ("b", 3, 2)
    assert a.pass_at_k[1] == pytest.approx(2 / 3)
    assert a.pass_at_k[3] == pytest.approx(1.0)
    assert a.pass_pow_k[2] == pytest.approx(1 / 3)
    assert a.flaky and b.flaky
    assert s.input_tokens == 6000 and s.cost_usd > 0
    assert done.event_id == "run.completed:r1"


async def test_runs_are_kept_apart(service) -> None:
    svc, rec = service
    await submit(svc, "r1", {"a": 2})
    await submit(svc, "r2", {"a": 1})
    await svc.on_graded([graded("r1", "a", 0, True, 2), graded("r2", "a", 0, False, 1)])
    [done] = rec.of(RunCompleted)
    assert done.run_id == "r2" and done.summary.passes == 0
    await svc.on_graded([graded("r1", "a", 1, True, 2)])
    assert sorted(e.run_id for e in rec.of(RunCompleted)) == ["r1", "r2"]


async def test_figures_per_tag(service) -> None:
    svc, rec = service
    await submit(svc, "r9", {"a": 2, "b": 2, "c": 2})

    def tagged(case: str, i: int, passed: bool, tags: list[str], latency: float = 10.0) -> TrialGraded:
        return graded("r9", case, i, passed, total=6, latency=latency).model_copy(update={"tags": tags})

    await svc.on_graded(
        [
            tagged("a", 0, True, ["fast", "negative"], latency=10.0),
            tagged("a", 1, True, ["fast", "negative"], latency=20.0),
            tagged("b", 0, False, ["fast"], latency=30.0),
            tagged("b", 1, True, ["fast"], latency=40.0),
            tagged("c", 0, False, [], latency=1000.0),
            tagged("c", 1, False, [], latency=1000.0),
        ]
    )
    [done] = rec.of(RunCompleted)
    tags = {t.tag: t for t in done.summary.tags}
    assert set(tags) == {"fast", "negative"}
    assert (tags["fast"].cases, tags["fast"].trials, tags["fast"].passes) == (2, 4, 3)
    assert tags["fast"].pass_at_k[2] == pytest.approx((1.0 + 1.0) / 2)
    assert tags["negative"].pass_pow_k[2] == 1.0
    assert tags["fast"].pass_rate_low < 0.75 < tags["fast"].pass_rate_high
    # Latency percentiles over the tag's trials, tokens, cost and mean grader scores per tag.
    fast = tags["fast"]
    assert (fast.latency.p50_ms, fast.latency.max_ms) == (pytest.approx(25.0), 40.0)
    assert tags["negative"].latency.max_ms == 20.0
    assert (fast.input_tokens, fast.output_tokens) == (4000, 400)
    a, b = done.summary.cases[:2]
    assert fast.cost_usd == pytest.approx(a.cost_usd + b.cost_usd) and fast.cost_usd > 0
    assert fast.grader_scores == {"output_contains": 0.75}
    assert tags["negative"].grader_scores == {"output_contains": 1.0}


async def test_the_summary_from_remembered_rows_equals_the_one_read_back(service) -> None:
    svc, rec = service
    await submit(svc, "r9", {"c0": 4, "c1": 4, "c2": 4})
    batch = [
        graded("r9", f"c{c}", i, passed=(c + i) % 3 != 0, total=12, latency=10.0 + i * c)
        for c in range(3)
        for i in range(4)
    ]
    await svc.on_graded(batch[:7])
    await svc.on_graded(batch[5:])  # overlap: redelivered trials
    (done,) = rec.of(RunCompleted)
    from agenteval.metrics.summary import summarize

    read_back = summarize("r9", await svc.repo.trials("r9"), await svc.repo.run_meta("r9"))
    assert done.summary.model_dump() == read_back.model_dump()
    assert "r9" not in svc._rows, "a completed run's rows are let go"


async def test_a_run_recorded_partly_elsewhere_is_summarized_from_the_table(service) -> None:
    svc, rec = service
    await submit(svc, "r8", {"c": 4})
    batch = [graded("r8", "c", i, passed=i % 2 == 0, total=4) for i in range(4)]
    await svc.repo.record(batch[:2], [(0.0, True), (0.0, True)])  # another replica stored these
    await svc.on_graded(batch[2:])
    (done,) = rec.of(RunCompleted)
    assert done.summary.trials == 4 and done.summary.passes == 2


async def test_a_graded_trial_its_run_never_asked_for_is_refused(service) -> None:
    """Forged or stray trial.graded events (a case not in the suite, an index past the case's
    trials, a foreign trial id) are neither counted nor able to complete the run early."""
    from prometheus_client import REGISTRY

    svc, rec = service
    await submit(svc, "r5", {"a": 2, "b": 1})
    labels = {"handler": "metrics-trial-graded"}
    before = REGISTRY.get_sample_value("agenteval_bus_rejected_messages_total", labels) or 0.0
    forged = [
        graded("r5", "not-in-suite", 0, True, total=3),
        graded("r5", "a", 2, True, total=3),  # a has 2 trials: 0 and 1
        graded("r5", "b", 0, True, total=3).model_copy(update={"trial_id": "r5/other/0"}),
    ]
    await svc.on_graded([graded("r5", "a", 0, True, total=3), *forged])
    assert await svc.repo.progress("r5") == (1, 1, 3, False)
    await svc.on_graded(forged)  # three more would have reached 3 of 3
    assert rec.of(RunCompleted) == []
    after = REGISTRY.get_sample_value("agenteval_bus_rejected_messages_total", labels) or 0.0
    assert after - before == 6
    await svc.on_graded([graded("r5", "a", 1, False, total=3), graded("r5", "b", 0, True, total=3)])
    [done] = rec.of(RunCompleted)
    assert (done.summary.trials, done.summary.passes) == (3, 2)
    assert {c.case_id for c in done.summary.cases} == {"a", "b"}


async def test_a_trial_of_a_run_never_submitted_waits_then_is_refused_at_the_delivery_limit(
    service, monkeypatch
) -> None:
    from agenteval.metrics import service as metrics_service

    monkeypatch.setattr(metrics_service, "PLAN_WAITS", 1)
    svc, rec = service
    with pytest.raises(metrics_service.PlanPending):
        await svc.on_graded([graded("ghost", "a", 0, True, total=1)])
    await svc.on_graded([graded("ghost", "a", 0, True, total=1)], wait_for_plan=False)
    assert await svc.repo.progress("ghost") == (0, 0, 0, False)
    assert rec.of(RunCompleted) == []
