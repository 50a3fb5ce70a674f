"""http:// agents: the case POSTed as JSON to a real local HTTP server, the answer or a trace
read back; bad answers, error statuses and unreachable servers end as trials that say why."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.contracts.summary import RunSummary
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import Client, TrialRecord

pytestmark = pytest.mark.asyncio(loop_scope="module")
SUITE = Suite.model_validate(
    {
        "name": "http-agent",
        "cases": [
            {
                "id": "order",
                "input": "where is order 7?",
                "initial_state": {"orders": {"7": "shipped"}},
                "metadata": {"tier": "gold"},
                "graders": [{"output_contains": {"text": "shipped"}}],
            }
        ],
    }
)
received: list[dict[str, Any]] = []


class Agent(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        case = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        received.append(case)
        order = case["state"]["orders"]["7"]
        if self.path == "/answer":
            self._send(200, json.dumps({"output": f"order 7 is {order}"}).encode())
        elif self.path == "/trace":
            trace = {
                "output": f"order 7 is {order}",
                "steps": [
                    {"type": "tool_call", "name": "lookup_order", "arguments": {"id": "7"}, "result": order},
                ],
                "usage": {"input_tokens": 120, "output_tokens": 30},
            }
            self._send(200, json.dumps({"trace": trace}).encode())
        elif self.path.startswith("/usage/"):  # tokens reported with less and less of a model
            steps: dict[str, list[dict[str, Any]]] = {
                "/usage/none": [],
                "/usage/step-model": [{"type": "llm_call", "model": "claude-sonnet-4-5"}],
                "/usage/unpriced-model": [{"type": "llm_call", "model": "in-house-llm-7"}],
            }
            body = {"output": f"order 7 is {order}", "usage": {"input_tokens": 1000, "output_tokens": 200}}
            if self.path == "/usage/step-tokens":  # tokens on the steps only, no usage
                body = {
                    "output": f"order 7 is {order}",
                    "steps": [
                        {
                            "type": "llm_call",
                            "model": "claude-haiku-4-5",
                            "input_tokens": 700,
                            "output_tokens": 50,
                        },
                        {
                            "type": "llm_call",
                            "model": "claude-haiku-4-5",
                            "input_tokens": 300,
                            "output_tokens": 150,
                        },
                    ],
                }
            else:
                body["steps"] = steps[self.path]
            self._send(200, json.dumps({"trace": body}).encode())
        elif self.path == "/broken":
            self._send(500, b"internal trouble")
        elif self.path == "/html":
            self._send(200, b"<html>hello</html>", "text/html")
        else:
            self._send(200, json.dumps({"result": "no output key"}).encode())


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedStack]:
    async with EmbeddedStack(tmp_path_factory.mktemp("http")) as s:
        yield s


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(stack: EmbeddedStack) -> AsyncIterator[Client]:
    async with Client(stack.target) as c:
        yield c


async def one_trial(client: Client, agent: str) -> TrialRecord:
    run = await client.submit(SUITE, agent=agent, k=1, timeout_s=20)
    await client.wait(run.run_id, timeout_s=60)
    for _ in range(100):
        [trial] = await client.trials(run.run_id) or [None]
        if trial is not None and trial.passed is not None:
            return trial
        await asyncio.sleep(0.1)
    raise AssertionError("the trial was never stored graded")


async def test_an_answer_and_a_trace_come_back_graded(client: Client, agent_url: str) -> None:
    received.clear()
    trial = await one_trial(client, f"{agent_url}/answer")
    assert trial.status == "ok" and trial.passed, trial
    assert trial.trace is not None and trial.trace.output == "order 7 is shipped"
    [sent] = received
    assert sent["case_id"] == "order" and sent["trial_index"] == 0 and sent["metadata"] == {"tier": "gold"}
    assert sent["messages"] == [{"role": "user", "content": "where is order 7?"}]

    trial = await one_trial(client, f"{agent_url}/trace")
    assert trial.passed and trial.trace is not None
    [call] = trial.trace.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup_order", {"id": "7"}, "shipped")
    assert (trial.trace.usage.input_tokens, trial.trace.usage.output_tokens) == (120, 30)


@pytest.mark.parametrize(
    ("path", "code", "says"),
    [
        ("/broken", "agent_error", "HTTP 500"),
        ("/html", "bad_agent_output", "not JSON"),
        ("/shape", "bad_agent_output", "without 'output', 'answer' or 'trace'"),
    ],
)
async def test_bad_answers_end_as_trials_that_say_why(
    client: Client, agent_url: str, path: str, code: str, says: str
) -> None:
    trial = await one_trial(client, f"{agent_url}{path}")
    assert trial.status == "error" and trial.passed is False
    assert trial.trace is not None and trial.trace.error is not None
    assert trial.trace.error.code == code and says in trial.trace.error.message, trial.trace.error


async def test_an_unreachable_agent_is_tried_again_then_said_so(client: Client) -> None:
    trial = await one_trial(client, f"http://127.0.0.1:{free_port()}/agent")
    assert trial.status == "error" and trial.trace is not None and trial.trace.error is not None
    assert "cannot reach" in trial.trace.error.message and "4 tries" in trial.trace.error.message


async def test_a_spec_without_a_host_is_refused_at_submit(client: Client) -> None:
    from agenteval.sdk import InvalidArgument

    with pytest.raises(InvalidArgument, match="needs a host"):
        await client.submit(SUITE, agent="http:///nohost", k=1)


async def summary_of(client: Client, trial: TrialRecord) -> RunSummary:
    summary = await client.summary(trial.run_id)
    assert summary is not None, "the run has no summary"
    return summary


async def test_tokens_without_a_model_are_priced_by_the_model_on_the_steps_or_said_unknown(
    client: Client, agent_url: str
) -> None:
    named = await one_trial(client, f"{agent_url}/usage/step-model")
    assert named.trace is not None
    assert named.trace.usage.models == {"claude-sonnet-4-5": {"input_tokens": 1000, "output_tokens": 200}}
    priced = await summary_of(client, named)
    assert priced.cost_usd > 0 and priced.cost_unknown_trials == 0, priced

    on_steps = await one_trial(client, f"{agent_url}/usage/step-tokens")
    assert on_steps.trace is not None
    assert (on_steps.trace.usage.input_tokens, on_steps.trace.usage.output_tokens) == (1000, 200)
    summed = await summary_of(client, on_steps)
    assert summed.input_tokens == 1000 and summed.cost_usd > 0 and summed.cost_unknown_trials == 0

    for path in ("/usage/none", "/usage/unpriced-model"):
        trial = await one_trial(client, f"{agent_url}{path}")
        unknown = await summary_of(client, trial)
        assert unknown.input_tokens == 1000 and unknown.output_tokens == 200, path
        assert unknown.cost_unknown_trials == 1 and unknown.cost_usd == 0, (path, unknown)
        assert [c.cost_unknown_trials for c in unknown.cases] == [1]
        streamed = [t async for ev in client.watch(trial.run_id) for t in ev.trials]
        assert [(t.cost_usd, t.cost_unknown) for t in streamed] == [(0.0, True)], path
    streamed = [t async for ev in client.watch(named.run_id) for t in ev.trials]
    assert [t.cost_unknown for t in streamed] == [False]


async def test_the_cli_says_cost_unknown_rather_than_zero(
    stack: EmbeddedStack, client: Client, agent_url: str
) -> None:
    trial = await one_trial(client, f"{agent_url}/usage/none")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agenteval.cli", "show", trial.run_id, "--server", stack.target,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "160"},
    )  # fmt: skip
    out_b, err_b = await asyncio.wait_for(proc.communicate(), 60)
    out = out_b.decode()
    assert proc.returncode == 0, err_b.decode()
    assert "cost unknown for 1 trial ·" in out, out
    assert "$0.0000" not in out, out


async def test_the_models_table_says_which_agent_s_cost_is_unknown(
    stack: EmbeddedStack, agent_url: str, tmp_path: Path
) -> None:
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(SUITE.model_dump_json())
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agenteval.cli", "models", str(suite_file),
        "--agent", f"{agent_url}/usage/step-model", "--agent", f"{agent_url}/usage/none",
        "-k", "1", "--server", stack.target,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    out_b, err_b = await asyncio.wait_for(proc.communicate(), 120)
    out = out_b.decode()
    assert proc.returncode == 0, err_b.decode()
    cost = next(line for line in out.splitlines() if line.lstrip().startswith("cost"))
    priced, unknown = cost.split()[1], " ".join(cost.split()[2:])
    assert float(priced.lstrip("$")) > 0 and unknown == "unknown for 1 trial", cost
