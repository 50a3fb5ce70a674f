"""Webhooks: signed POSTs to real local receivers when a run completes and when it regressed
from the suite's previous agent version; failing receivers are tried again, and every
delivery is in the log (RPC and CLI)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import sys
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agenteval.cli.stack import EmbeddedStack
from agenteval.contracts.suite import Suite
from agenteval.sdk import Client
from agenteval.v1 import runner_pb2

pytestmark = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-shared-key"
SUITE = Suite.model_validate(
    {
        "name": "hooked",
        "graders": [{"output_contains": {"text": "ANSWER"}}],
        "cases": [{"id": f"c{i}", "input": f"question {i}"} for i in range(6)],
    }
)
received: list[dict[str, Any]] = []
bad_signatures: list[str] = []
tries: Counter[str] = Counter()


class Receiver(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        if self.headers.get("X-Agenteval-Signature") != expected:
            bad_signatures.append(self.path)
        delivery = self.headers["X-Agenteval-Delivery"]
        tries[f"{self.path} {delivery}"] += 1
        status = 200
        if self.path == "/down" or (self.path == "/flaky" and tries[f"{self.path} {delivery}"] <= 2):
            status = 503
        elif self.path == "/ok":
            received.append({"event": self.headers["X-Agenteval-Event"], **json.loads(body)})
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def receiver() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(receiver: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EmbeddedStack]:
    root = tmp_path_factory.mktemp("hooks")
    config = root / "webhooks.yaml"
    config.write_text(
        "webhooks:\n"
        f"  - {{url: '{receiver}/ok', secret: {SECRET}}}\n"
        f"  - {{url: '{receiver}/flaky', secret: {SECRET}, events: [run.completed]}}\n"
        f"  - {{url: '{receiver}/down', secret: {SECRET}, events: [run.completed]}}\n"
    )
    env = {
        "AGENTEVAL_RUNNER_WEBHOOKS_FILE": str(config),
        "AGENTEVAL_RUNNER_WEBHOOK_ATTEMPTS": "4",
        "AGENTEVAL_RUNNER_WEBHOOK_FIRST_WAIT_S": "0.05",
    }
    os.environ.update(env)
    try:
        async with EmbeddedStack(root / "data") as s:
            yield s
    finally:
        for key in env:
            os.environ.pop(key, None)


async def deliveries(client: Client, run_id: str) -> list[runner_pb2.WebhookDelivery]:
    """The run's deliveries once none is pending."""
    for _ in range(200):
        resp = await client._stubs.runs.ListWebhookDeliveries(
            runner_pb2.ListWebhookDeliveriesRequest(run_id=run_id)
        )
        if resp.deliveries and all(d.status != "pending" for d in resp.deliveries):
            return list(resp.deliveries)
        await asyncio.sleep(0.1)
    raise AssertionError(f"deliveries still pending: {resp.deliveries}")


async def test_completion_and_regression_are_posted_signed_retried_and_logged(stack: EmbeddedStack) -> None:
    async with Client(stack.target) as client:
        good = await client.submit(SUITE, agent="python:tests.agents:echo_tool", k=5, agent_version="v1")
        await client.wait(good.run_id, timeout_s=60)
        first = await deliveries(client, good.run_id)
        bad = await client.submit(SUITE, agent="python:tests.agents:instant", k=5, agent_version="v2")
        await client.wait(bad.run_id, timeout_s=60)
        second = await deliveries(client, bad.run_id)

    assert bad_signatures == [], "every POST carries the HMAC of its body"
    by_url = {d.url.rsplit("/", 1)[1]: d for d in first}
    assert sorted(by_url) == ["down", "flaky", "ok"] and {d.event for d in first} == {"run.completed"}
    assert (by_url["ok"].status, by_url["ok"].attempts) == ("delivered", 1)
    assert (by_url["flaky"].status, by_url["flaky"].attempts) == ("delivered", 3)
    assert (by_url["down"].status, by_url["down"].attempts, by_url["down"].last_status_code) == (
        "failed",
        4,
        503,
    )

    assert sorted((d.event, d.url.rsplit("/", 1)[1]) for d in second) == [
        ("regression.detected", "ok"),
        ("run.completed", "down"),
        ("run.completed", "flaky"),
        ("run.completed", "ok"),
    ]
    [regression] = [r for r in received if r["event"] == "regression.detected"]
    assert regression["run_id"] == bad.run_id and regression["baseline_run_id"] == good.run_id
    assert sorted(regression["comparison"]["regressions"]) == [f"c{i}" for i in range(6)]
    completed = {r["run_id"]: r for r in received if r["event"] == "run.completed"}
    assert (
        completed[good.run_id]["summary"]["passes"] == 30 and completed[bad.run_id]["summary"]["passes"] == 0
    )

    # The CLI lists the same log (here: it needs the deliveries made above).
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agenteval.cli", "webhooks", "deliveries", "--json", "--server", stack.target,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    docs = json.loads(out)["deliveries"]
    assert {(d["event"], d["status"]) for d in docs} >= {
        ("run.completed", "failed"),
        ("regression.detected", "delivered"),
    }


async def test_a_wrong_webhooks_file_is_refused_in_one_line(tmp_path: Path) -> None:
    from agenteval.runner.webhooks import load_webhooks

    bad = tmp_path / "hooks.yaml"
    bad.write_text("webhooks:\n  - {url: 'ftp://x', secret: 'long-enough'}\n")
    with pytest.raises(ValueError, match=r"webhooks\.0\.url: .*http"):
        load_webhooks(bad)
