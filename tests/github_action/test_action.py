"""The GitHub Action's script end to end, on a sample repository in a temp dir, with a fake GitHub API."""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / ".github" / "actions" / "agent-eval"
SCRIPT = ACTION / "run.sh"
REPO = "acme/shop"
PR = 7

AGENT_V1 = """
def run(messages, ctx):
    text = messages[-1]["content"]
    order = ctx.call_tool("lookup_order", lambda id: {"id": id, "total": 20}, id="A1001")
    if "refund" in text:
        return f"I refunded order {order['id']}"
    return f"Order {order['id']} ships today"
"""
# The regression: refunds are no longer confirmed.
AGENT_V2 = AGENT_V1.replace(
    "return f\"I refunded order {order['id']}\"", 'return "Sorry, I cannot help with that"'
)

SUITE = {
    "name": "shop",
    "agent": "python:shop_agent.py:run",
    "trials": 10,
    "cases": [
        {
            "id": "refund",
            "input": "Please refund order A1001",
            "graders": [{"output_contains": {"text": "refunded"}}],
        },
        {
            "id": "status",
            "input": "Where is order A1001?",
            "graders": [{"output_contains": {"text": "ships"}}],
        },
    ],
}


@dataclass
class FakeGitHub:
    """Issue comments of one repository, and every request it was sent."""

    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[tuple[str, str, str, dict[str, Any] | None]] = field(default_factory=list)
    url: str = ""


def _handler(state: FakeGitHub) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self, code: int, doc: Any) -> None:
            raw = json.dumps(doc).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _record(self) -> dict[str, Any] | None:
            n = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(n)) if n else None
            state.requests.append((self.command, self.path, self.headers.get("Authorization", ""), body))
            return body

        def do_GET(self) -> None:
            self._record()
            m = re.fullmatch(rf"/repos/{REPO}/issues/(\d+)/comments\?per_page=(\d+)&page=(\d+)", self.path)
            if not m:
                return self._answer(404, {"message": "Not Found"})
            per_page, page = int(m.group(2)), int(m.group(3))
            listed = [c for c in state.comments.values() if c["issue"] == int(m.group(1))]
            self._answer(200, listed[(page - 1) * per_page : page * per_page])

        def do_POST(self) -> None:
            body = self._record()
            m = re.fullmatch(rf"/repos/{REPO}/issues/(\d+)/comments", self.path)
            if not m or not body:
                return self._answer(404, {"message": "Not Found"})
            cid = 1000 + len(state.comments)
            state.comments[cid] = {"id": cid, "issue": int(m.group(1)), "body": body["body"]}
            self._answer(201, {**state.comments[cid], "html_url": f"https://example.invalid/c/{cid}"})

        def do_PATCH(self) -> None:
            body = self._record()
            m = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)", self.path)
            if not m or not body or int(m.group(1)) not in state.comments:
                return self._answer(404, {"message": "Not Found"})
            state.comments[int(m.group(1))]["body"] = body["body"]
            self._answer(200, state.comments[int(m.group(1))])

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_port}"
    yield state
    server.shutdown()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """A repository with an agent and its suite, one commit on main."""
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "ci@example.invalid")
    _git(repo, "config", "user.name", "ci")
    (repo / "shop_agent.py").write_text(AGENT_V1)
    (repo / "agenteval_shop.yaml").write_text(yaml.safe_dump(SUITE, sort_keys=False))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "shop agent")
    return repo


def _commit(repo: Path, agent: str, message: str) -> str:
    (repo / "shop_agent.py").write_text(agent)
    _git(repo, "commit", "-q", "-am", message)
    return _git(repo, "rev-parse", "HEAD")


def run_action(
    repo: Path, github: FakeGitHub, tmp: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """The action's script as a runner would start it (install skipped: agent-eval is on PATH)."""
    tmp.mkdir(parents=True, exist_ok=True)
    event = tmp / "event.json"
    sha = _git(repo, "rev-parse", "HEAD")
    event.write_text(json.dumps({"pull_request": {"number": PR, "head": {"sha": sha}}}))
    output = tmp / "github_output"
    output.write_text("")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHON": sys.executable,
        "RUNNER_TEMP": str(tmp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(tmp / "step_summary.md"),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "t0ken",
        "GITHUB_SHA": "0" * 40,  # the merge commit: not the version under test
        "INPUT_SUITE": "agenteval_shop.yaml",
        "INPUT_INSTALL": "skip",
        "INPUT_DATA_DIR": str(repo.parent / "agenteval-data"),
        "INPUT_SEED": "3",
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return proc, outputs


def test_the_action_comments_then_updates_and_fails_on_a_regression(
    sample_repo: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    # main: the baseline run; its summary is the artifact the next run compares with.
    base, base_out = run_action(
        sample_repo, github, tmp_path / "main", baseline_summary=str(tmp_path / "none.json")
    )
    assert base.returncode == 0, base.stderr
    assert base_out["passed"] == "true" and base_out["regressions"] == "0"
    [first] = github.comments.values()
    assert first["issue"] == PR and "No baseline" in first["body"]
    assert first["body"].startswith("<!-- agenteval-report:agenteval_shop.yaml -->")
    baseline_summary = Path(base_out["summary-path"])
    artifact = tmp_path / "artifact" / "summary.json"
    artifact.parent.mkdir()
    artifact.write_text(baseline_summary.read_text())

    # The pull request's commit breaks refunds.
    sha = _commit(sample_repo, AGENT_V2, "refunds: shorter answer")
    pr, pr_out = run_action(sample_repo, github, tmp_path / "pr", baseline_summary=str(artifact))
    assert pr.returncode == 1, "a regression fails the step when fail-on-regression is on"
    assert "regressed against" in pr.stderr
    assert pr_out["passed"] == "false" and pr_out["regressions"] == "1"
    assert Path(pr_out["report-path"]).is_file()

    # One comment, updated in place (PATCH), now carrying the comparison.
    assert len(github.comments) == 1
    [comment] = github.comments.values()
    assert comment["id"] == first["id"]
    body = comment["body"]
    assert f"Version `{sha[:12]}`" in body, "the version under test is the PR's head commit"
    assert "regressed" in body and "FAILED: 1 regression" in body and "refund" in body
    assert body == Path(pr_out["report-path"]).read_text()
    methods = [(m, p.split("?")[0]) for m, p, _, _ in github.requests]
    assert methods == [
        ("GET", f"/repos/{REPO}/issues/{PR}/comments"),
        ("POST", f"/repos/{REPO}/issues/{PR}/comments"),
        ("GET", f"/repos/{REPO}/issues/{PR}/comments"),
        ("PATCH", f"/repos/{REPO}/issues/comments/{first['id']}"),
    ]
    assert {auth for _, _, auth, _ in github.requests} == {"Bearer t0ken"}
    assert "FAILED: 1 regression" in (tmp_path / "pr" / "step_summary.md").read_text()


def test_baseline_by_version_on_the_server_and_no_failure_when_not_asked(
    sample_repo: Path, github: FakeGitHub, tmp_path: Path
) -> None:
    first, _ = run_action(sample_repo, github, tmp_path / "v1", agent_version="v1", comment="false")
    assert first.returncode == 0, first.stderr
    assert github.requests == [], "comment: false posts nothing"

    _commit(sample_repo, AGENT_V2, "regress")
    proc, out = run_action(sample_repo, github, tmp_path / "v2", baseline="v1", fail_on_regression="false")
    assert proc.returncode == 0, proc.stderr
    assert out["passed"] == "false" and out["regressions"] == "1"
    [comment] = github.comments.values()
    assert "FAILED: 1 regression" in comment["body"]


def test_an_unknown_baseline_version_is_a_note_and_a_comment_failure_a_warning(
    sample_repo: Path, tmp_path: Path
) -> None:
    dead = FakeGitHub(url="http://127.0.0.1:9")  # nothing listens: the API cannot be reached
    proc, out = run_action(sample_repo, dead, tmp_path / "run", baseline="v0")
    assert proc.returncode == 0, proc.stderr
    assert out["passed"] == "true"
    report = Path(out["report-path"]).read_text()
    assert "No comparison with baseline `v0`" in report and "agent version 'v0'" in report
    assert "::warning::the report could not be posted" in proc.stderr


def test_action_yml_hands_every_input_to_the_script_and_the_script_sets_every_output() -> None:
    action = yaml.safe_load((ACTION / "action.yml").read_text())
    script = SCRIPT.read_text()
    [gate] = [s for s in action["runs"]["steps"] if s.get("id") == "gate"]
    for name in action["inputs"]:
        if name in ("python-version", "github-token"):
            continue
        if name.startswith("agenteval-"):  # read by agent-eval itself from its environment
            var = name.upper().replace("-", "_")
            assert gate["env"].get(var) == f"${{{{ inputs.{name} }}}}", f"input {name} is not passed as {var}"
            continue
        var = "INPUT_" + name.upper().replace("-", "_")
        assert gate["env"].get(var) == f"${{{{ inputs.{name} }}}}", f"input {name} is not passed as {var}"
        assert var in script, f"run.sh ignores {var}"
    assert gate["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"
        assert f"set_output {name} " in script, f"run.sh never sets output {name}"
