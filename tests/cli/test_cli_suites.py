"""``agent-eval suites ...`` and ``agent-eval run NAME@VERSION`` as a user meets them, each command
its own process on one data dir (the embedded stack)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "agenteval.cli"]

SUITE = """\
name: shop
agent: python:tests.agents:echo_tool
trials: 2
graders:
  - tool_called: {tool: lookup}
cases:
  - id: shout
    input: hello
    tags: [fast]
    graders:
      - output_contains: {text: HELLO}
  - id: slow_case
    input: take your time
    tags: [slow]
"""


class Cli:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir

    def __call__(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*CLI, *args, "--data-dir", str(self.data_dir)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**__import__("os").environ, "COLUMNS": "100"},
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    def json(self, *args: str) -> dict:
        return json.loads(self(*args, "--json").stdout)


def test_push_list_show_diff_export_and_run_a_stored_version(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "data")
    first = tmp_path / "shop.yaml"
    first.write_text(SUITE)
    pushed = cli("suites", "push", str(first))
    assert "stored shop@1" in pushed.stdout and "(new suite)" in pushed.stdout
    assert "unchanged: shop@1" in cli("suites", "push", str(first)).stdout

    second = tmp_path / "shop2.yaml"
    second.write_text(SUITE.replace("trials: 2", "trials: 3").replace("take your time", "take all your time"))
    doc = cli.json("suites", "push", str(second))
    assert (doc["version"], doc["new_version"], doc["previous_version"]) == (2, True, 1)

    listed = cli.json("suites", "list")["suites"]
    assert [(s["name"], s["version"], s["version_count"], s["case_count"]) for s in listed] == [
        ("shop", 2, 2, 2)
    ]
    assert "shop" in cli("suites", "list").stdout

    shown = cli.json("suites", "show", "shop@1")
    assert (shown["version"], shown["current"], shown["suite"]["trials"]) == (1, False, 2)
    assert [v["version"] for v in shown["versions"]] == [2, 1]
    text = cli("suites", "show", "shop").stdout
    assert "shop@2" in text and "slow_case" in text and "versions: 2 (current), 1" in text

    diff = cli("suites", "diff", "shop@1", "shop@2").stdout
    assert "shop@1" in diff and "shop@2" in diff
    assert "trials: 2 → 3" in diff
    assert "1 modified, 1 unchanged" in diff
    assert "~ modified slow_case (input)" in diff
    assert "-input: take your time" in diff and "+input: take all your time" in diff

    exported = tmp_path / "exported.yaml"
    cli("suites", "export", "shop@1", "-o", str(exported))
    assert "name: shop" in exported.read_text()
    assert "- output_contains: {text: HELLO}" in exported.read_text()
    assert cli("suites", "export", "shop@1").stdout == exported.read_text()
    # The exported file is the same content: pushing it back stores nothing, makes @1 current.
    back = cli.json("suites", "push", str(exported))
    assert (back["version"], back["new_version"], back["previous_version"]) == (1, False, 2)

    run = cli.json("run", "shop@2", "--tag", "slow", "-k", "1")
    assert (run["suite_version_number"], run["run_tags"]) == (2, ["slow"])
    assert [c["case_id"] for c in run["cases"]] == ["slow_case"] and run["trials"] == 1
    run = cli.json("run", "shop")  # the current version (1 again), its own trials (2)
    assert run["suite_version_number"] == 1 and run["trials"] == 4 and run["passes"] == 4
    assert run["suite_version"] == back["digest"]
    # The file runs as a file, and records the same version digest.
    from_file = cli.json("run", str(exported), "-k", "1")
    assert (from_file["suite_version"], from_file["suite_version_number"]) == (back["digest"], 0)
    runs = cli.json("runs")["runs"]
    assert sorted(r["suite_version_number"] for r in runs) == [0, 1, 2]
    assert "shop@2" in cli("runs").stdout

    missing = cli("run", "nosuch@3", ok=False)
    assert missing.returncode == 2 and "no stored suite 'nosuch'" in missing.stderr
    missing = cli("run", "nosuch.yaml", ok=False)
    assert missing.returncode == 2 and "no such suite file" in missing.stderr

    refused = cli("suites", "delete", "shop", ok=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "deleted suite shop (2 versions)" in cli("suites", "delete", "shop", "--yes").stdout
    assert cli.json("suites", "list")["suites"] == []
    gone = cli("suites", "show", "shop", ok=False)
    assert gone.returncode == 2 and "no stored suite 'shop'" in gone.stderr


def test_cases_from_jsonl_and_csv_with_bad_rows_store_nothing(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "data")
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"id": "a", "input": "hello", "expected_output": "HELLO"}\n{"id": "b"}\n{"input": \n')
    proc = cli("suites", "push", str(bad), "--name", "faq", ok=False)
    assert proc.returncode == 2
    assert f"{bad}:2: input: missing" in proc.stderr and f"{bad}:3: not valid JSON" in proc.stderr
    assert "nothing was stored" in proc.stderr
    assert cli.json("suites", "list")["suites"] == []

    good = tmp_path / "faq.csv"
    good.write_text(
        'id,input,expected_output,tags\ngreet,hello,HELLO,fast\nbye,"goodbye, then",GOODBYE,"slow;fast"\n'
    )
    doc = cli.json("suites", "push", str(good), "--agent", "python:tests.agents:echo_tool", "--trials", "2")
    assert (doc["name"], doc["version"], doc["case_count"], doc["tags"]) == ("faq", 1, 2, ["fast", "slow"])
    run = cli.json("run", "faq", "--tag", "slow")
    assert [c["case_id"] for c in run["cases"]] == ["bye"] and run["passes"] == 2

    bad_name = cli("suites", "push", str(good), "--name", "my faq", ok=False)
    assert bad_name.returncode == 2 and "cannot name a stored suite" in bad_name.stderr
