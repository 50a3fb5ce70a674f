"""Regression reports end to end: real runs on an embedded stack, CompareRuns, and the CLI."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts import pb
from agenteval.contracts.suite import Suite
from agenteval.reports import comparison_report
from agenteval.sdk import Client
from agenteval.stats import plan_trials, planning_rates
from agenteval.v1 import runner_pb2
from tests.reports.agents import BROKEN
from tests.reports.tables import markdown_tables, terminal_tables

pytestmark = pytest.mark.asyncio(loop_scope="module")

CASES = ("alpha", "beta", "gamma", "delta")
SUITE = Suite.model_validate(
    {
        "name": "reports-e2e",
        "cases": [
            {"id": c, "input": c, "graders": [{"output_contains": {"text": c.upper()}}]} for c in CASES
        ],
    }
)
K = 10


@dataclass
class World:
    target: str
    good: str
    bad: str
    noisy_a: str
    noisy_b: str


async def _run(client: Client, agent: str, version: str, seed: int) -> str:
    run = await client.submit(
        SUITE, agent=f"python:tests.reports.agents:{agent}", k=K, seed=seed, agent_version=version
    )
    async for _ in client.watch(run.run_id):
        pass
    # The runner records completion a moment after watchers see it; labels resolve to
    # completed runs only.
    for _ in range(200):
        if (await client.get_run(run.run_id)).status == "completed":
            return run.run_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run.run_id} of {agent} did not complete")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory):
    async with EmbeddedStack(
        tmp_path_factory.mktemp("reports") / "data", grpc_address="127.0.0.1:0"
    ) as stack:
        async with Client(stack.target) as client:
            # One after the other: each run is well under a second, and sequential runs
            # keep the v1/v2 labels' "newest run" unambiguous.
            good = await _run(client, "good", "v1", seed=1)
            bad = await _run(client, "bad", "v2", seed=1)
            noisy_a = await _run(client, "noisy", "noisy", seed=11)
            noisy_b = await _run(client, "noisy", "noisy", seed=12)
        yield World(stack.target, good, bad, noisy_a, noisy_b)


async def _compare(world: World, baseline: str, candidate: str) -> runner_pb2.CompareRunsResponse:
    async with Client(world.target) as client:
        return await client._stubs.runs.CompareRuns(
            runner_pb2.CompareRunsRequest(baseline=baseline, candidate=candidate)
        )


async def test_compare_by_run_id_finds_exactly_the_broken_cases(world: World) -> None:
    resp = await _compare(world, world.good, world.bad)
    report = comparison_report(pb.comparison_from_pb(resp.comparison))
    assert not resp.passed and not report.passed
    assert sorted(report.regressions) == sorted(BROKEN)
    verdicts = {c.case_id: c.verdict for c in report.cases}
    assert verdicts == {c: "regressed" if c in BROKEN else "unchanged" for c in CASES}
    assert report.headline == "FAILED: 2 regressions"
    assert (report.baseline.run_id, report.candidate.run_id) == (world.good, world.bad)
    # Per case and grader, both runs' mean scores and the delta.
    scores = {
        (g.case_id, g.grader): (g.baseline_score, g.candidate_score, g.delta) for g in report.grader_scores
    }
    assert scores == {
        (c, "output_contains"): (1.0, 0.0, -1.0) if c in BROKEN else (1.0, 1.0, 0.0) for c in CASES
    }
    [grader] = report.graders
    assert (grader.grader, grader.cases, grader.delta) == ("output_contains", len(CASES), -0.5)


async def test_compare_by_agent_version_label_uses_the_newest_runs(world: World) -> None:
    resp = await _compare(world, "v1", "v2")
    assert (resp.baseline_run_id, resp.candidate_run_id) == (world.good, world.bad)
    report = comparison_report(pb.comparison_from_pb(resp.comparison))
    assert sorted(report.regressions) == sorted(BROKEN)
    assert (report.baseline.agent_version, report.candidate.agent_version) == ("v1", "v2")


async def test_two_runs_of_the_same_noisy_agent_are_not_a_regression(world: World) -> None:
    async with Client(world.target) as client:  # the typed client's method, same document
        report = comparison_report(await client.compare(world.noisy_a, world.noisy_b))
    # The runs really differ (different seeds), so this is noise being tolerated, not equality.
    assert any(c.delta != 0 for c in report.cases), [c.delta for c in report.cases]
    assert all(0 < c.baseline_passes < K or 0 < c.candidate_passes < K for c in report.cases)
    assert report.passed and report.regressions == [] and report.suite.verdict != "regressed"


async def _cli(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, stdout.decode(), stderr.decode()


async def test_cli_fail_on_regression_exits_1_on_a_regression_and_0_on_noise(world: World) -> None:
    (rc_bad, out_bad, err_bad), (rc_noise, out_noise, err_noise) = await asyncio.gather(
        _cli("compare", world.good, world.bad, "--fail-on-regression", "--server", world.target),
        _cli("compare", world.noisy_a, world.noisy_b, "--fail-on-regression", "--server", world.target),
    )
    assert rc_bad == 1, err_bad
    assert out_bad.startswith("FAILED: 2 regressions\n")
    # Piped, the table comes out whole (fixed width, no colour codes).
    verdicts = {r["Case"]: r["Verdict"] for r in terminal_tables(out_bad)[0]}
    assert verdicts == {c: "regressed" if c in BROKEN else "unchanged" for c in CASES}
    assert rc_noise == 0, err_noise
    assert "PASSED: no regressions" in out_noise
    # Without the flag a failed comparison is still a successful command.
    rc, out, err = await _cli("compare", world.good, world.bad, "--json", "--server", world.target)
    assert rc == 0, err
    assert json.loads(out)["status"] == "FAILED"


async def test_cli_markdown_comparison_by_version_labels(world: World, tmp_path: Path) -> None:
    rc, out, err = await _cli("compare", "v1", "v2", "--format", "markdown", "--server", world.target)
    assert rc == 0, err
    assert out.startswith("## agenteval comparison: reports-e2e\n")
    assert "\n**FAILED: 2 regressions**\n" in out
    rows = {r["Case"]: r for r in markdown_tables(out)[0]}
    for case in BROKEN:
        assert rows[case]["Baseline"] == "10/10 (100.0%)"
        assert rows[case]["Candidate"] == "0/10 (0.0%)"
        assert rows[case]["Change (points)"] == "-100.0"
        assert rows[case]["Verdict"] == "regressed"
    assert {rows[c]["Verdict"] for c in CASES if c not in BROKEN} == {"unchanged"}

    # --output writes the same document to a file and still fails the build when asked.
    path = tmp_path / "comment.md"
    rc, out_file, err = await _cli(
        "compare",
        "v1",
        "v2",
        "-f",
        "markdown",
        "-o",
        str(path),
        "--fail-on-regression",
        "--server",
        world.target,
    )
    assert rc == 1 and out_file == ""
    assert path.read_text() == out
    assert "FAILED: 2 regressions" in err


async def test_cli_report_gives_the_runs_figures(world: World) -> None:
    rc, out, err = await _cli(
        "report", world.bad, "--format", "json", "--drop", "0.5", "--server", world.target
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["run_id"] == world.bad and doc["k"] == K
    assert {c["case_id"]: c["passes"] for c in doc["cases"]} == {c: 0 if c in BROKEN else K for c in CASES}
    assert doc["totals"]["input_tokens"] == 100 * K * (len(CASES) - len(BROKEN))
    # 0/10 is consistent with a rate up to 27.8% (Wilson), not with a 50-point drop.
    assert doc["trial_plan"]["infeasible"] == sorted(BROKEN)

    rc, md, err = await _cli("report", world.noisy_a, "--format", "markdown", "--server", world.target)
    assert rc == 0, err
    rows = {r["Case"]: r for r in markdown_tables(md)[0]}
    _, js, _ = await _cli("report", world.noisy_a, "--json", "--server", world.target)
    for case in json.loads(js)["cases"]:
        assert rows[case["case_id"]]["Passes"] == f"{case['passes']}/{K}"
        assert rows[case["case_id"]]["Flaky"] == ("yes" if case["flaky"] else "")


async def test_cli_plan_from_a_run_uses_its_pass_rates(world: World) -> None:
    rc, out, err = await _cli("plan", "--run", world.noisy_a, "--json", "--server", world.target)
    assert rc == 0, err
    doc = json.loads(out)
    observed = {c["case_id"]: c["observed_rate"] for c in doc["cases"]}
    assert set(observed) == set(CASES) and doc["estimate"] == "bounded"
    counts = {c: (round(r * K), K) for c, r in observed.items()}
    rates, highs = planning_rates(counts, 0.1, "bounded")
    assert {c["case_id"]: c["baseline_rate"] for c in doc["cases"]} == pytest.approx(rates)
    expected = plan_trials(rates, 0.1, 0.8, 0.05, upper_bounds=highs)
    assert doc["recommended_trials"] == expected["recommended_trials"]
    assert doc["suite_trials"] == expected["suite_trials"]
    assert doc["current_trials"] == K and doc["enough"] is False
    # As observed instead, and the plan says so.
    rc, out, err = await _cli(
        "plan", "--run", world.noisy_a, "--estimate", "observed", "--json", "--server", world.target
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["estimate"] == "observed"
    assert {c["case_id"]: c["baseline_rate"] for c in doc["cases"]} == observed


async def test_cli_names_an_unknown_run_and_exits_2(world: World) -> None:
    for args in (("compare", world.good, "run-nope"), ("report", "run-nope"), ("plan", "--run", "run-nope")):
        rc, _out, err = await _cli(*args, "--server", world.target)
        assert rc == 2, (args, err)
        assert "run-nope" in err and "Traceback" not in err, err


async def test_comparing_a_run_with_itself_is_an_error_not_a_pass(world: World) -> None:
    # The same run id twice, a label and the run it resolves to, and one label twice.
    for baseline, candidate in ((world.good, world.good), ("v1", world.good), ("v1", "v1")):
        rc, out, err = await _cli("compare", baseline, candidate, "--server", world.target)
        assert rc == 2, (baseline, candidate, out, err)
        assert f"baseline and candidate are the same run {world.good}" in err, err
        assert "PASSED" not in out and "Traceback" not in err, (out, err)
