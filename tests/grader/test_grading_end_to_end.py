"""Every grader kind in one suite, run end to end through the services:
code graders, a sandboxed eval function (from a file), an eval function calling
ctx.call_llm, and an LLM judge against the fake Messages API through the real SDK."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli.stack import EmbeddedStack
from agenteval.sdk import Client
from agenteval.suites import load_suite
from tests.fakes.anthropic_server import FakeAnthropicServer

EVAL_FILE = '''
import re

def eval_mentions_answer(trace, ctx=None):
    """Positive when the final answer quotes what the lookup tool returned."""
    found = [c["result"]["answer"] for c in trace["tool_calls"] if c["name"] == "lookup" and c["result"]]
    ok = bool(found) and found[0] in (trace["output"] or "")
    return (1.0 if ok else 0.0), ("answer quotes the tool result" if ok else "answer ignores the tool result")
'''

LLM_EVAL = """
def eval_llm_says(trace, ctx=None):
    verdict = ctx.call_llm("Is this answer polite? " + (trace["output"] or ""), max_tokens=5)
    return (1.0 if verdict.strip() == "yes" else 0.0), "llm said " + verdict
"""

# Passes the checks at suite load (an unallowed import would not); stopped in the sandbox.
HOSTILE = """
def eval_evil(trace, ctx=None):
    return 1.0, str(getattr((), "__cla" + "ss__"))
"""


def write_suite(tmp_path: Path) -> Path:
    (tmp_path / "mentions.py").write_text(EVAL_FILE)
    suite = {
        "name": "all-graders",
        "trials": 2,
        "graders": [{"tool_called": {"tool": "lookup"}}],
        "cases": [
            {
                "id": "code",
                "input": "hello",
                "graders": [
                    {"output_contains": {"text": "HELLO"}},
                    {"tool_args": {"tool": "lookup", "args": {"query": "hello"}}},
                    {"latency_budget": {"max_ms": 60000}},
                    {"termination": {}},
                    {"efficiency": {}},
                ],
            },
            {"id": "eval-file", "input": "hi", "graders": [{"eval_function": {"path": "mentions.py"}}]},
            {"id": "eval-llm", "input": "hi", "graders": [{"eval_function": {"code": LLM_EVAL}}]},
            {"id": "judge", "input": "hi", "graders": [{"llm_rubric": {"rubric": "The answer is helpful."}}]},
            {"id": "hostile", "input": "hi", "graders": [{"eval_function": {"code": HOSTILE}}]},
        ],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite))  # JSON is YAML
    return path


async def test_each_grader_kind_through_the_services(
    tmp_path: Path, anthropic_env: FakeAnthropicServer
) -> None:
    def reply(request: dict) -> str:  # the judge gets a JSON verdict; eval functions' call_llm gets "yes"
        text = json.dumps(request["messages"][-1]["content"])
        if "polite" in text:
            return "yes"
        return json.dumps({"score": 0.9, "passed": True, "reasoning": "helpful"})

    anthropic_env.handler = reply
    suite = load_suite(write_suite(tmp_path))
    assert "code" in suite.cases[1].graders[0].params  # the eval file was inlined at load
    async with EmbeddedStack(tmp_path / "data") as stack, Client(stack.target) as client:
        run = await client.submit(suite, agent="python:tests.agents:echo_tool")
        events = [ev async for ev in client.watch(run.run_id)]
        summary = await client.summary(run.run_id)
        assert summary is not None, events[-1]
        cases = {c.case_id: c for c in summary.cases}
        assert cases["code"].passes == 2, cases["code"]
        assert cases["eval-file"].passes == 2 and cases["eval-file"].grader_scores["eval_function"] == 1.0
        store = next(c for c in stack.host.components if c.name == "transcript_store")
        rows = [await store.service.repo.get_trial(f"{run.run_id}/eval-llm/{i}") for i in (0, 1)]
        assert cases["eval-llm"].passes == 2, [r["grades_json"] for r in rows]
        # Both trials send the same prompt: whichever asks first pays, the other may hit the cache.
        costs = [
            g["cost_usd"] for r in rows for g in json.loads(r["grades_json"]) if g["name"] == "eval_function"
        ]
        assert len(costs) == 2 and sum(costs) > 0, "ctx.call_llm is counted in the grade's cost"
        assert cases["judge"].passes == 2 and cases["judge"].grader_scores["llm_rubric"] == 0.9
        assert cases["hostile"].passes == 0
        hostile = await store.service.repo.get_trial(f"{run.run_id}/hostile/0")
        assert "forbidden_attribute" in hostile["grades_json"], hostile["grades_json"]

        trials = await client.trials(run.run_id, case_id="hostile")
        assert len(trials) == 2
    # the judge was asked once per distinct transcript: the second identical trial hit the cache
    judge_requests = [r for r in anthropic_env.message_requests if "polite" not in json.dumps(r.messages)]
    assert 1 <= len(judge_requests) <= 2
