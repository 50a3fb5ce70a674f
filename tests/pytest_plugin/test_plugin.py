"""The pytest plugin in real pytest sub-sessions (pytester, one subprocess each)."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval.runtime.nats_server import free_port

pytest_plugins = ["pytester"]

AGENT = """
def run(messages, ctx):
    text = messages[-1]["content"]
    if "coin" in text:
        return "heads" if ctx.rng.random() < 0.5 else "tails"
    order = ctx.call_tool("lookup_order", lambda id: {"id": id, "total": 20}, id="A1001")
    return f"I will refund order {order['id']}"
"""

SUITE = """
name: shop
agent: python:shop_agent.py:run
trials: 3
cases:
  - id: refund_ok
    input: Please refund order A1001
    tags: [fast]
    graders:
      - tool_called: {tool: lookup_order}
      - output_contains: {text: refund}
  - id: always_wrong
    input: Please refund order A1001
    tags: [slow]
    graders:
      - output_contains: {text: store credit}
  - id: coin
    input: toss a coin
    tags: [slow, flaky]
    graders:
      - output_contains: {text: heads}
"""


@pytest.fixture
def shop(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(shop_agent=AGENT)
    pytester.path.joinpath("agenteval_shop.yaml").write_text(SUITE)
    return pytester


def run(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    return p.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=240)


def test_cases_are_collected_with_their_tags_as_markers(shop: pytest.Pytester) -> None:
    result = run(shop, "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["agenteval_shop.yaml::refund_ok", "agenteval_shop.yaml::always_wrong", "agenteval_shop.yaml::coin"]
    )
    result = run(shop, "-m", "fast", "-v")
    result.assert_outcomes(passed=1, deselected=2)
    # The summary: one run of the selected case only, with its figures.
    result.stdout.fnmatch_lines(
        ["*= agenteval =*", "suite shop * run run-*", "  PASS  refund_ok  3/3  pass@3 100%  pass^3 100%"]
    )
    assert "always_wrong" not in result.stdout.str()


def test_a_failing_case_reports_its_transcript_and_each_graders_verdict(shop: pytest.Pytester) -> None:
    result = run(shop, "-m", "slow and not flaky", "--agenteval-k", "2")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "*agenteval case 'always_wrong' of suite 'shop': 0/2 trials passed (run run-*)",
            "*pass^2 = 0% is below 100%",
            "*transcript of trial 0 (status ok, failed):",
            "*user: Please refund order A1001",
            '*-> tool lookup_order({"id": "A1001"}) = {"id": "A1001", "total": 20}',
            "*final answer: I will refund order A1001",
            '*FAIL output_contains {"text": "store credit"} 0.00: *',
            "*other failing trials: 1",
            "*agent-eval trials run-* --case always_wrong",
            "*FAIL  always_wrong  0/2  pass@2   0%  pass^2   0%",
        ]
    )


def test_thresholds_on_pass_at_k_and_pass_pow_k_decide(shop: pytest.Pytester) -> None:
    """A coin flip over 10 seeded trials: some heads, some tails."""
    base = ["-k", "coin", "--agenteval-k", "10", "--agenteval-seed", "7"]
    strict = run(shop, *base)  # default: pass^k must be 1, every trial passes
    strict.assert_outcomes(failed=1, deselected=2)
    strict.stdout.fnmatch_lines(["*pass^10 = 0% is below 100%"])
    lenient = run(shop, *base, "--agenteval-min-pass-at-k", "0.9")
    lenient.assert_outcomes(passed=1, deselected=2)
    both = run(shop, *base, "--agenteval-min-pass-at-k", "0.9", "--agenteval-min-pass-pow-k", "0.5")
    both.assert_outcomes(failed=1, deselected=2)
    both.stdout.fnmatch_lines(["*pass^10 = 0% is below 50%"])


def test_a_case_sets_its_own_thresholds_in_metadata(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(shop_agent=AGENT)
    pytester.path.joinpath("agenteval_coin.yaml").write_text(
        "name: coin\nagent: python:shop_agent.py:run\ncases:\n"
        "  - {id: coin, input: toss a coin, metadata: {min_pass_at_k: 0.5},"
        " graders: [{output_contains: {text: heads}}]}\n"
    )
    run(pytester, "--agenteval-k", "10", "--agenteval-seed", "7").assert_outcomes(passed=1)


def test_junit_xml_records_each_case_with_its_figures(shop: pytest.Pytester) -> None:
    result = run(shop, "-k", "not coin", "--junitxml", "report.xml")
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    root = ET.parse(shop.path / "report.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"refund_ok", "always_wrong"}
    props = {p.get("name"): p.get("value") for p in cases["refund_ok"].iter("property")}
    assert props["passes"] == "3/3" and props["pass_at_3"] == "1.0" and props["pass_pow_3"] == "1.0"
    failure = cases["always_wrong"].find("failure")
    assert failure is not None and "pass^3 = 0% is below 100%" in (failure.text or "")


def test_a_suite_by_path_and_a_broken_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(shop_agent=AGENT)
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    pytester.path.joinpath("regression.yaml").write_text(SUITE)
    # --agenteval-suite alone runs that suite only, not the directory's tests.
    result = run(pytester, "--agenteval-suite", "regression.yaml", "-m", "fast")
    result.assert_outcomes(passed=1, deselected=2)
    # A suite file named on the command line is a suite whatever its name, beside other tests.
    result = run(pytester, "regression.yaml", "test_other.py", "-m", "fast or not agenteval")
    result.assert_outcomes(passed=2, deselected=2)

    pytester.path.joinpath("agenteval_broken.yaml").write_text(
        "name: broken\ncases:\n  - {id: a, input: hi, graders: [tool_caled]}\n"
    )
    result = run(pytester, "agenteval_broken.yaml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*agenteval_broken.yaml: cases[[]0[]] (id 'a'): graders[[]0[]]: unknown grader 'tool_caled'*"]
    )
    assert "Traceback" not in result.stdout.str()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`agent-eval up` in a process of its own."""
    address = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agenteval.cli",
            "up",
            "--address",
            address,
            "--data-dir",
            str(tmp_path / "up"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            probe = subprocess.run(
                [sys.executable, "-m", "agenteval.cli", "runs", "--server", address, "--json"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if probe.returncode == 0:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("agent-eval up did not start")
        yield address
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def test_runs_on_a_given_server(shop: pytest.Pytester, server: str) -> None:
    agent = f"python:{shop.path / 'shop_agent.py'}:run"
    result = run(shop, "-m", "fast", "--agenteval-server", server, "--agenteval-agent", agent)
    result.assert_outcomes(passed=1, deselected=2)
    listed = subprocess.run(
        [sys.executable, "-m", "agenteval.cli", "runs", "--server", server, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    [run_doc] = json.loads(listed.stdout)["runs"]
    assert run_doc["suite"] == "shop" and run_doc["trials"] == 3
    assert run_doc["run_id"] in result.stdout.str()


def test_an_unreachable_server_fails_the_cases_with_a_message(shop: pytest.Pytester) -> None:
    result = run(shop, "-m", "fast", "--agenteval-server", f"127.0.0.1:{free_port()}")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(["*suite 'shop' could not be run: cannot reach agenteval*"])


def test_the_logger_table_can_be_walked_while_the_stack_thread_adds_a_logger() -> None:
    # pytest's log capture walks the table at every test phase on the main thread; the embedded
    # stack's thread may add a logger meanwhile (a plain dict raised "dictionary changed size
    # during iteration" in a case's setup or teardown).
    from agenteval.pytest_plugin._runs import _loggers_read_as_snapshots

    _loggers_read_as_snapshots()
    table = logging.root.manager.loggerDict
    walk = iter(table.values())
    next(walk)
    added = threading.Thread(target=logging.getLogger, args=("agenteval.test.added-while-walking",))
    added.start()
    added.join()
    rest = list(walk)
    assert rest and "agenteval.test.added-while-walking" in table
    # Readers still get views: code that takes set differences of the names keeps working.
    assert "agenteval.test.added-while-walking" not in table.keys() - {"agenteval.test.added-while-walking"}
    assert (
        logging.getLogger("agenteval.test.added-while-walking") is table["agenteval.test.added-while-walking"]
    )
