"""The CLI as a user meets it: run --json, --help, a bad suite, and `up` serving other commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agenteval.runtime.nats_server import free_port

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "agenteval.cli"]


def agent_eval(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_help_lists_the_commands() -> None:
    proc = agent_eval("--help")
    assert proc.returncode == 0
    for command in (
        "run",
        "up",
        "serve",
        "runs",
        "show",
        "trials",
        "compare",
        "report",
        "plan",
        "evals",
        "traces",
        "suites",
        "export",
    ):
        assert command in proc.stdout


def test_run_json_gives_cases_with_pass_at_k_and_pass_pow_k(tmp_path: Path) -> None:
    proc = agent_eval(
        "run",
        "examples/support_suite.yaml",
        "-k",
        "3",
        "--seed",
        "5",
        "--json",
        "--data-dir",
        str(tmp_path / "data"),
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["status"] == "completed" and doc["trials"] == 3 * len(doc["cases"])
    assert len(doc["cases"]) >= 10
    for case in doc["cases"]:
        assert {"case_id", "trials", "passes", "pass_at_k", "pass_pow_k", "latency"} <= set(case)
        assert set(case["pass_at_k"]) == set(case["pass_pow_k"]) == {"1", "2", "3"}
        assert case["pass_at_k"]["3"] >= case["pass_at_k"]["1"] >= case["pass_pow_k"]["3"]
        assert {"p50_ms", "p95_ms", "p99_ms"} <= set(case["latency"])
    assert doc["passes"] == sum(c["passes"] for c in doc["cases"])
    # the same seed gives the same results
    again = json.loads(
        agent_eval(
            "run",
            "examples/support_suite.yaml",
            "-k",
            "3",
            "--seed",
            "5",
            "--json",
            "--data-dir",
            str(tmp_path / "data"),
        ).stdout
    )
    assert [c["passes"] for c in again["cases"]] == [c["passes"] for c in doc["cases"]]
    # later commands see earlier runs in the same data dir
    runs = json.loads(agent_eval("runs", "--json", "--data-dir", str(tmp_path / "data")).stdout)["runs"]
    assert {r["run_id"] for r in runs} == {doc["run_id"], again["run_id"]}


def test_a_bad_suite_is_explained_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ncases:\n  - id: a\n    input: hi\n    graders:\n      - tool_caled: {tool: x}\n")
    proc = agent_eval(
        "run", str(bad), "--agent", "python:tests.agents:instant", "--data-dir", str(tmp_path / "d")
    )
    assert proc.returncode == 2
    assert "cases[0] (id 'a'): graders[0]" in proc.stderr and "tool_caled" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = agent_eval("run", str(tmp_path / "missing.yaml"))
    assert proc.returncode == 2 and "no such suite file" in proc.stderr


def test_a_bad_setting_is_named_by_its_variable_and_nothing_is_stored(tmp_path: Path) -> None:
    for var, value, rule in [
        ("AGENTEVAL_RUNNER_TRIAL_ACK_WAIT_S", "0", "greater than or equal to 1"),
        ("AGENTEVAL_BUS_MAX_AGE_S", "-5", "greater than or equal to 0"),
    ]:
        proc = subprocess.run(
            [*CLI, "run", "examples/support_suite.yaml", "-k", "1", "--data-dir", str(tmp_path / "d")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, var: value},
        )
        assert proc.returncode == 2, proc.stderr
        assert var in proc.stderr and rule in proc.stderr
        assert "Traceback" not in proc.stderr
    assert not list((tmp_path / "d").glob("*.db")), "a rejected setting left databases behind"


def test_up_serves_other_commands_and_stops_cleanly(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    up = subprocess.Popen(
        [*CLI, "up", "--address", address, "--data-dir", str(tmp_path / "data")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            proc = agent_eval("runs", "--json", "--server", address, timeout=30)
            if proc.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert proc.returncode == 0, proc.stderr
        proc = agent_eval("run", "examples/support_suite.yaml", "-k", "2", "--json", "--server", address)
        assert proc.returncode == 0, proc.stderr
        run_id = json.loads(proc.stdout)["run_id"]
        shown = agent_eval("show", run_id, "--json", "--server", address)
        assert json.loads(shown.stdout)["run_id"] == run_id
        env_run = subprocess.run(
            [*CLI, "runs", "--json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "AGENTEVAL_SERVER": address},
        )
        assert run_id in env_run.stdout
    finally:
        up.send_signal(signal.SIGINT)
        _, err = up.communicate(timeout=30)
    assert up.returncode == 0, err
    assert "Traceback" not in err


def test_a_run_whose_judge_could_not_grade_says_so(tmp_path: Path) -> None:
    """No API key: the judge cannot grade. The run says which grader, how many trials and why,
    instead of "0 errors", in the table and in --json."""
    suite = tmp_path / "judged.yaml"
    suite.write_text(
        "name: judged\nagent: python:tests.agents:coin\ncases:\n"
        "  - id: polite\n    input: be polite\n"
        "    graders:\n      - llm_rubric: {rubric: The answer is polite.}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENTEVAL_"))}
    env.update(AGENTEVAL_DATA_DIR=str(tmp_path / "data"), COLUMNS="200")
    proc = subprocess.run(
        [*CLI, "run", str(suite), "-k", "3", "--seed", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    said = " ".join((proc.stdout + proc.stderr).split())
    assert "grader llm_rubric could not grade 3 of 3 trials" in said, said
    assert "ANTHROPIC_API_KEY" in said
    as_json = subprocess.run(
        [*CLI, "run", str(suite), "-k", "2", "--seed", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    doc = json.loads(as_json.stdout)
    assert doc["grader_failures"] == {"llm_rubric": 2}
    assert "ANTHROPIC_API_KEY" in doc["grader_failure_reasons"]["llm_rubric"]


def test_an_agent_that_cannot_be_imported_from_here_says_where_it_looked_and_what_to_do(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEVAL_")}
    env.pop("PYTHONPATH", None)
    env.update(AGENTEVAL_DATA_DIR=str(tmp_path / "data"), COLUMNS="300")
    proc = subprocess.run(
        [*CLI, "run", str(ROOT / "examples" / "support_suite.yaml"), "-k", "1"],
        cwd=tmp_path,  # not the project's directory: `examples` is not importable here
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 2, proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"looked in {tmp_path}" in said and "PYTHONPATH" in said
    assert "python:path/to/examples/support_agent/agent.py:run" in said
    assert "Traceback" not in proc.stderr
