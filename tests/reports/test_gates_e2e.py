"""compare's gates and plan/flakiness through the real CLI against an embedded stack:
new errors, different suites, removed/added cases, why it passed or failed, what a
small k cannot see, and flakiness across runs."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from tests.reports import agents

pytestmark = pytest.mark.asyncio(loop_scope="module")

CASES = ("alpha", "beta", "gamma", "delta")


def _suite(name: str, cases: tuple[str, ...] = CASES, changed: str | None = None) -> Suite:
    return Suite.model_validate(
        {
            "name": name,
            "cases": [
                {
                    "id": c,
                    "input": c,
                    "graders": [{"output_contains": {"text": c.upper() if c != changed else "ANSWER"}}],
                }
                for c in cases
            ],
        }
    )


SUITE = _suite("gates-e2e")
K = 5


@dataclass
class World:
    target: str
    good: str
    crashy: str
    bad: str
    bad_crashy: str
    good_k3: str
    good_k3b: str
    other_suite: str
    edited: str
    moody: list[str]


async def _run(client: Client, suite: Suite, agent: str, version: str, seed: int, k: int = K) -> str:
    run = await client.submit(
        suite, agent=f"python:tests.reports.agents:{agent}", k=k, seed=seed, agent_version=version
    )
    async for _ in client.watch(run.run_id):
        pass
    for _ in range(200):
        if (await client.get_run(run.run_id)).status == "completed":
            return run.run_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run.run_id} of {agent} did not complete")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory):
    async with EmbeddedStack(tmp_path_factory.mktemp("gates") / "data", grpc_address="127.0.0.1:0") as stack:
        async with Client(stack.target) as client:
            good = await _run(client, SUITE, "good", "good", 1)
            crashy = await _run(client, SUITE, "crashy", "crashy", 1)
            bad = await _run(client, SUITE, "bad", "bad", 1)
            bad_crashy = await _run(client, SUITE, "bad_crashy", "bad-crashy", 1)
            good_k3 = await _run(client, SUITE, "good", "good-k3", 2, k=3)
            good_k3b = await _run(client, SUITE, "good", "good-k3b", 3, k=3)
            other_suite = await _run(client, _suite("another-suite"), "good", "other", 1)
            # gamma removed, epsilon added, alpha's grader changed.
            edited_suite = _suite("gates-e2e", ("alpha", "beta", "delta", "epsilon"), changed="alpha")
            edited = await _run(client, edited_suite, "good", "edited", 1)
            moody = []
            for i in range(4):  # the same version, its dependency down in every other run
                agent = "moody_down" if i % 2 == 1 else "moody"
                moody.append(await _run(client, SUITE, agent, "moody", 10 + i, k=8))
        yield World(
            stack.target, good, crashy, bad, bad_crashy, good_k3, good_k3b, other_suite, edited, moody
        )


async def _cli(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agenteval.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "200"},  # piped tables follow COLUMNS; these read whole lines
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, stdout.decode(), stderr.decode()


async def test_a_dead_case_at_k5_is_caught_and_its_errors_counted(world: World) -> None:
    rc, out, err = await _cli("compare", world.good, world.crashy, "--json", "--server", world.target)
    assert rc == 0, err
    doc = json.loads(out)
    # 5/5 -> 0/5 is flagged by the per-case test (Holm over 4 cases with alpha halved could not).
    assert doc["status"] == "FAILED" and doc["regressions"] == ["beta"]
    [new] = doc["new_errors"]
    assert (new["case_id"], new["candidate_errors"], new["candidate_trials"], new["baseline_errors"]) == (
        "beta",
        K,
        K,
        0,
    )
    why = {r["check"]: r for r in doc["reasons"]}
    assert why["cases"]["failed"] and "beta 5/5 -> 0/5" in why["cases"]["message"]
    assert why["errors"]["failed"] and "beta: 5/5 trials error (baseline 0/5)" in why["errors"]["message"]
    assert not why["suite"]["failed"]
    assert doc["headline"] == "FAILED: 1 regression, 1 case newly errors"


async def test_new_errors_alone_fail_the_gate_unless_told_not_to(world: World) -> None:
    # bad already failed beta (wrong answers); bad-crashy fails it by raising: no change in pass
    # counts, only new errors.
    base = ("compare", world.bad, world.bad_crashy, "--server", world.target)
    (
        (rc_gate, out_gate, err_gate),
        (rc_off, out_off, err_off),
        (rc_only, _, err_only),
        (rc_none, out_none, _),
    ) = await asyncio.gather(
        _cli(*base, "--fail-on-regression"),
        _cli(*base, "--fail-on-regression", "--no-fail-on-new-errors"),
        _cli(*base, "--fail-on-new-errors", "--json"),
        _cli(*base, "--json"),
    )
    assert rc_gate == 1, err_gate
    assert out_gate.startswith("FAILED: 1 case newly errors\n")
    assert (
        "why: errors: FAILED - 1 case newly errors or times out: beta: 5/5 trials error (baseline 0/5)"
        in out_gate
    )
    assert rc_off == 0, err_off
    assert out_off.startswith("PASSED: no regressions, 1 case newly errors (not gating)\n")
    assert rc_only == 1 and "(--fail-on-new-errors)" in err_only
    # Without a flag the command succeeds; the document still says why it failed.
    assert rc_none == 0
    doc = json.loads(out_none)
    assert doc["status"] == "FAILED" and doc["regressions"] == []
    assert [r["check"] for r in doc["reasons"] if r["failed"]] == ["errors"]


async def test_runs_of_different_suites_are_refused_unless_allowed(world: World) -> None:
    rc, out, err = await _cli("compare", world.good, world.other_suite, "--server", world.target)
    assert rc == 2 and out == ""
    assert "different suites (baseline 'gates-e2e', candidate 'another-suite')" in err
    assert "--allow-different-suites" in err and "Traceback" not in err
    rc, out, err = await _cli(
        "compare", world.good, world.other_suite, "--allow-different-suites", "--server", world.target
    )
    assert rc == 0, err
    assert "WARNING: different suites: baseline 'gates-e2e', candidate 'another-suite'" in out
    rc, out, err = await _cli(
        "compare",
        world.good,
        world.other_suite,
        "--allow-different-suites",
        "--json",
        "--server",
        world.target,
    )
    doc = json.loads(out)
    assert doc["suites_differ"] and doc["notes"][0].startswith("SUITES DIFFER")


async def test_removed_added_and_changed_cases_are_in_the_notes(world: World) -> None:
    rc, out, err = await _cli(
        "compare", world.good, world.edited, "--format", "markdown", "--server", world.target
    )
    assert rc == 0, err
    assert "> 1 case removed (in the baseline only, not compared): gamma" in out
    assert "> 1 case added (in the candidate only, not compared): epsilon" in out
    assert (
        "> 1 case changed definition between the runs (their verdicts compare different tests): alpha" in out
    )
    assert "**Why:**" in out and "- cases: ok - no case regressed" in out
    _, js, _ = await _cli("compare", world.good, world.edited, "--json", "--server", world.target)
    doc = json.loads(js)
    assert (doc["removed"], doc["added"], doc["changed_cases"]) == (["gamma"], ["epsilon"], ["alpha"])


async def test_compare_says_what_a_small_k_cannot_see(world: World) -> None:
    rc, out, err = await _cli("compare", world.good_k3, world.good_k3b, "--json", "--server", world.target)
    assert rc == 0, err
    doc = json.loads(out)
    # At k = 3 the best evidence a case can give, 3/3 -> 0/3, is p = 1/20 = 0.05: above the
    # per-case level 0.0375 whatever the other cases do. The note says so, and from when.
    cases = {c["case_id"]: c for c in doc["cases"]}
    assert all(c["min_p_value"] == pytest.approx(1 / 20) for c in cases.values())
    assert sorted(doc["unflaggable"]) == sorted(CASES)
    # 1 / C(2n, n) < 0.0375 / 4 first at n = 5.
    assert doc["min_trials_to_flag"] == 5
    assert all(c["trials_to_flag"] == 5 for c in cases.values())
    note = next(n for n in doc["notes"] if "cannot be flagged" in n)
    assert note.startswith("4 cases of 4 cannot be flagged by the per-case test")
    assert "(they would need 5 trials per run)" in note
    assert "new errors and timeouts are checked separately" in note
    why = {r["check"]: r["message"] for r in doc["reasons"]}
    assert why["cases"].endswith("4 of 4 cannot be flagged at these trial counts")


async def test_plan_sizes_both_tests_compare_runs(world: World) -> None:
    rc, out, err = await _cli(
        "plan", "--baseline-rate", "0.9", "--cases", "20", "--drop", "0.3", "--json", "--server", world.target
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["case_alpha"] == pytest.approx(0.0375) and doc["suite_alpha"] == pytest.approx(0.0125)
    assert doc["n_cases"] == 20 and doc["alpha_per_case"] == pytest.approx(0.0375 / 20)
    # One case falling 30 points needs far more trials than all 20 falling together.
    assert doc["recommended_trials"] > 5 * doc["suite_trials"]
    rc, text, err = await _cli(
        "plan", "--baseline-rate", "0.9", "--cases", "20", "--drop", "0.3", "--server", world.target
    )
    assert rc == 0, err
    text = " ".join(text.split())
    assert f"one case falling needs {doc['recommended_trials']} trials per case" in text
    assert f"every case falling needs {doc['suite_trials']}" in text


async def test_flakiness_warns_only_about_the_case_that_moved_across_runs(world: World) -> None:
    rc, out, err = await _cli(
        "flakiness", "--suite", "gates-e2e", "--agent-version", "moody", "--json", "--server", world.target
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert sorted(doc["runs"]) == sorted(world.moody)
    cases = {c["case_id"]: c for c in doc["cases"]}
    # beta and delta: 8/8 in two runs, 0/8 in the other two.
    for case in agents.BROKEN:
        assert cases[case]["warn"] and cases[case]["across_runs"] and not cases[case]["within_run"]
        assert sorted(cases[case]["passes"]) == [0, 0, 8, 8]
    # alpha passes 70% of its trials in every run: non-deterministic, not flaky across runs.
    assert cases["alpha"]["within_run"] and not cases["alpha"]["warn"]
    assert not cases["gamma"]["warn"] and not cases["gamma"]["within_run"]
    assert doc["warnings"] == 2
