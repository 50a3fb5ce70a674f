"""The eval-generation agent loop, driven through the real anthropic SDK against the fake Messages API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import pytest

from agenteval.eval_generator.agent.loop import LoopEvent, TraceSummary, run_agent_loop
from agenteval.eval_generator.agent.prompt import WRAP_UP_MESSAGE
from agenteval.eval_generator.agent.tools import MAX_TRACE_CHARS, AgentTools
from tests.fakes.anthropic_server import (
    FAKE_API_KEY,
    FakeAnthropicServer,
    cut_off_reply,
    server_error,
    text_reply,
    tool_use_reply,
    unauthorized,
)

NAME = "helpful"
TOOLS = {
    "fetch_traces",
    "get_trace_details",
    "test_eval_code",
    "write_note",
    "read_note",
    "list_notes",
    "manage_todos",
}

WEAK = 'def eval_helpful(trace, ctx=None):\n    return 1.0, "everything passes"\n'
WEAK_TOO = 'def eval_helpful(trace, ctx=None):\n    return 0.9, "all fine"\n'
GOOD = (
    "def eval_helpful(trace, ctx=None):\n"
    '    failed = [c for c in trace.get("tool_calls") or [] if c.get("error")]\n'
    "    if failed:\n"
    '        return 0.0, "a tool call failed"\n'
    '    return 1.0, "no tool errors"\n'
)
"""Right on 9 of the 10 traces: one negative trace has no failing tool call."""


def make_trace(i: int, label: str) -> dict[str, Any]:
    error = "search backend timeout" if label == "negative" and i != 4 else None
    call = {
        "type": "tool_call",
        "name": "search",
        "arguments": {"q": f"question {i}"},
        "result": None if error else {"hits": 3},
        "error": error,
        "latency_ms": 12.0,
    }
    output = f"I could not answer question {i}" if label == "negative" else f"The answer to {i} is {i * 7}"
    return {
        "input": [{"role": "user", "content": f"question {i}"}],
        "steps": [call, {"type": "message", "role": "assistant", "content": output}],
        "tool_calls": [call],
        "output": output,
        "state": {},
        "status": "ok",
        "error": None,
        "metadata": {},
    }


LABELED = [(f"{lab[:3]}-{i}", make_trace(i, lab), lab) for lab in ("positive", "negative") for i in range(5)]


class FakeSource:
    """The training split in memory."""

    def __init__(self, labeled: list[tuple[str, dict[str, Any], str]]) -> None:
        self.labeled = labeled
        self.list_calls: list[tuple[str | None, int, int]] = []

    async def list(self, label: str | None, limit: int, offset: int) -> tuple[list[TraceSummary], int]:
        self.list_calls.append((label, limit, offset))
        rows = [r for r in self.labeled if label in (None, r[2])]
        return [
            TraceSummary(tid, lab, str(t.get("output") or "")[:200], len(t["steps"]), bool(t["tool_calls"]))
            for tid, t, lab in rows[offset : offset + limit]
        ], len(rows)

    async def get(self, trace_id: str) -> dict[str, Any] | None:
        return next((t for tid, t, _ in self.labeled if tid == trace_id), None)


class FakeTester:
    """Runs the code in-process over the labeled traces, as TestEvalCode reports it."""

    def __init__(self, labeled: list[tuple[str, dict[str, Any], str]]) -> None:
        self.labeled = labeled
        self.calls: list[tuple[str, list[str] | None]] = []

    async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
        self.calls.append((code, trace_ids))
        rows = [r for r in self.labeled if not trace_ids or r[0] in trace_ids]
        namespace: dict[str, Any] = {}
        try:
            exec(code, namespace)
            fn = namespace[f"eval_{NAME}"]
        except Exception as exc:
            return {
                "accuracy": 0.0,
                "total": len(rows),
                "correct": 0,
                "incorrect": 0,
                "errors": len(rows),
                "mismatches": [],
                "code_error": repr(exc),
            }
        mismatches = []
        for tid, trace, label in rows:
            score, explanation = fn(trace)
            predicted = "positive" if score >= 0.5 else "negative"
            if predicted != label:
                mismatches.append(
                    {
                        "trace_id": tid,
                        "expected": label,
                        "predicted": predicted,
                        "score": score,
                        "explanation": explanation,
                        "error": None,
                    }
                )
        correct = len(rows) - len(mismatches)
        return {
            "accuracy": correct / len(rows),
            "total": len(rows),
            "correct": correct,
            "incorrect": len(mismatches),
            "errors": 0,
            "mismatches": mismatches,
            "code_error": None,
        }


class Recorder:
    def __init__(self) -> None:
        self.events: list[LoopEvent] = []

    async def __call__(self, event: LoopEvent) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]


@pytest.fixture
async def client(anthropic_server: FakeAnthropicServer) -> AsyncIterator[anthropic.AsyncAnthropic]:
    c = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, base_url=anthropic_server.base_url, max_retries=0)
    yield c
    await c.close()


def tool_results(request: Any) -> list[dict[str, Any]]:
    """The tool_result blocks of a request's last (user) message."""
    return [b for b in request.messages[-1]["content"] if b.get("type") == "tool_result"]


def has_tool_blocks(request: Any) -> bool:
    return any(
        isinstance(m["content"], list)
        and any(b.get("type") in ("tool_use", "tool_result") for b in m["content"])
        for m in request.messages
    )


async def test_scripted_run_refines_until_the_target_and_returns_that_code(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(
        tool_use_reply(
            "fetch_traces",
            {"rating": "positive", "limit": 5},
            text="Good ones first.",
            input_tokens=100,
            output_tokens=10,
        ),
        tool_use_reply("fetch_traces", {"rating": "negative"}, input_tokens=200, output_tokens=20),
        tool_use_reply("get_trace_details", {"trace_id": "neg-0"}, input_tokens=300, output_tokens=30),
        tool_use_reply(
            "test_eval_code", {"code": WEAK}, text="A baseline.", input_tokens=400, output_tokens=40
        ),
        tool_use_reply(
            "test_eval_code",
            {"code": GOOD},
            text="Negatives have failing tool calls.",
            input_tokens=500,
            output_tokens=50,
        ),
    )
    tester, recorder = FakeTester(LABELED), Recorder()

    result = await run_agent_loop(NAME, FakeSource(LABELED), tester, client=client, on_event=recorder)

    assert (result.stopped, result.code, result.accuracy) == ("target_reached", GOOD, 0.9)
    assert (result.attempts, result.steps) == (2, 5)
    assert (result.input_tokens, result.output_tokens) == (1500, 150), "tokens are summed from usage"
    assert tester.calls == [(WEAK, None), (GOOD, None)]
    requests = anthropic_server.message_requests
    assert len(requests) == 5 and anthropic_server.pending() == 0

    first = requests[0]
    assert first.model == "claude-sonnet-4-5"
    assert "def eval_helpful(trace: dict, ctx=None) -> tuple[float, str]" in first.system
    assert "80%" in first.system
    assert {t["name"] for t in first.body["tools"]} == TOOLS
    assert "eval_helpful" in first.last_user_text()

    positives = json.loads(tool_results(requests[1])[0]["content"])
    assert [t["rating"] for t in positives["traces"]] == ["positive"] * 5 and positives["total"] == 5
    negatives = json.loads(tool_results(requests[2])[0]["content"])
    assert {t["rating"] for t in negatives["traces"]} == {"negative"}
    details = tool_results(requests[3])[0]
    assert not details.get("is_error")
    assert json.loads(details["content"])["trace"]["steps"][0]["error"] == "search backend timeout"
    first_test = json.loads(tool_results(requests[4])[0]["content"])
    assert (first_test["accuracy"], first_test["attempt"], first_test["attempts_left"]) == (0.5, 1, 4)
    assert {(m["expected"], m["predicted"]) for m in first_test["mismatches"]} == {("negative", "positive")}

    assert recorder.types == [
        "started",
        "thinking",
        "tool_called",
        "tool_result",
        "tool_called",
        "tool_result",
        "tool_called",
        "tool_result",
        "thinking",
        "tool_called",
        "tool_result",
        "test_result",
        "thinking",
        "tool_called",
        "tool_result",
        "test_result",
        "finished",
    ]
    assert [e.accuracy for e in recorder.events if e.type == "test_result"] == [0.5, 0.9]
    steps = [e.step for e in recorder.events]
    assert steps == sorted(steps) and steps[0] == 0 and steps[-1] == 5
    assert recorder.events[1].message == "Good ones first."
    assert "rating=positive" in recorder.events[2].message


async def test_wrap_up_withdraws_tools_and_takes_the_function_from_the_reply(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(
        tool_use_reply("fetch_traces", {}),
        tool_use_reply("test_eval_code", {"code": WEAK}),
        text_reply(f"Here it is.\n\n```python\n{GOOD}```\n"),
    )
    recorder = Recorder()

    result = await run_agent_loop(
        NAME,
        FakeSource(LABELED),
        FakeTester(LABELED),
        client=client,
        max_steps=4,
        wrap_up_at=2,
        on_event=recorder,
    )

    assert (result.stopped, result.code, result.steps) == ("step_limit", GOOD.strip(), 3)
    assert result.accuracy is None, "the final function was never tested"
    *before, final = anthropic_server.message_requests
    assert all("tools" in r.body for r in before)
    assert "tools" not in final.body, "the wrap-up call must offer no tools"
    assert WRAP_UP_MESSAGE in final.last_user_text()
    # The real API refuses tool blocks without tool definitions: the history is sent as text.
    assert not has_tool_blocks(final)
    assert "[result of test_eval_code]" in final.last_user_text()
    assert recorder.types.index("wrap_up") > recorder.types.index("test_result")
    assert recorder.types[-2:] == ["thinking", "finished"]


async def test_wrap_up_without_code_stops_at_max_steps_with_the_best_tested_code(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(
        tool_use_reply("test_eval_code", {"code": WEAK}),
        text_reply("I believe the function is fine."),
        text_reply("Still thinking about it."),
    )

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), FakeTester(LABELED), client=client, max_steps=3, wrap_up_at=1
    )

    assert (result.stopped, result.code, result.accuracy, result.steps) == ("step_limit", WEAK, 0.5, 3)
    requests = anthropic_server.message_requests
    assert len(requests) == 3
    assert all("tools" not in r.body for r in requests[1:])
    assert "no ```python block defining eval_helpful" in requests[2].last_user_text()


async def test_attempts_exhausted_keeps_the_later_of_equally_good_codes(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    two_tests = {
        "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "test_eval_code", "input": {"code": WEAK_TOO}},
            {"type": "tool_use", "id": "toolu_b", "name": "test_eval_code", "input": {"code": GOOD}},
        ]
    }
    anthropic_server.enqueue(tool_use_reply("test_eval_code", {"code": WEAK}), two_tests)
    tester, recorder = FakeTester(LABELED), Recorder()

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), tester, client=client, max_attempts=2, on_event=recorder
    )

    assert (result.stopped, result.code, result.accuracy, result.attempts) == (
        "attempts_exhausted",
        WEAK_TOO,
        0.5,
        2,
    )
    assert [code for code, _ in tester.calls] == [WEAK, WEAK_TOO], "no third test may run"
    last_result = [e for e in recorder.events if e.type == "tool_result"][-1]
    assert "no test attempts left" in last_result.message
    assert len(anthropic_server.message_requests) == 2


async def test_malformed_tool_calls_are_answered_with_errors_and_the_loop_goes_on(
    anthropic_env: FakeAnthropicServer,
) -> None:
    bad_calls = {
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "fetch_traces",
                "input": {"rating": "great", "limit": "lots"},
            },
            {"type": "tool_use", "id": "toolu_2", "name": "get_trace_details", "input": {}},
            {"type": "tool_use", "id": "toolu_3", "name": "delete_everything", "input": {}},
            {
                "type": "tool_use",
                "id": "toolu_4",
                "name": "test_eval_code",
                "input": {"code": "def eval_other(trace, ctx=None):\n    return 1.0, ''\n"},
            },
        ]
    }
    anthropic_env.enqueue(
        bad_calls,
        tool_use_reply("get_trace_details", {"trace_id": "no-such-trace"}),
        text_reply(f"Done.\n```python\n{GOOD}```"),
    )
    tester = FakeTester(LABELED)

    # No client given: one is built from $ANTHROPIC_API_KEY / $ANTHROPIC_BASE_URL.
    result = await run_agent_loop(NAME, FakeSource(LABELED), tester)

    assert (result.stopped, result.code, result.attempts, result.steps) == (
        "model_finished",
        GOOD.strip(),
        0,
        3,
    )
    assert tester.calls == [], "a test of code without eval_helpful must not reach the tester"
    requests = anthropic_env.message_requests
    errors = tool_results(requests[1])
    assert [b["tool_use_id"] for b in errors] == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert all(b.get("is_error") for b in errors)
    texts = [json.loads(b["content"])["error"] for b in errors]
    assert "rating" in texts[0] and "limit" in texts[0]
    assert "trace_id" in texts[1]
    assert "unknown tool 'delete_everything'" in texts[2]
    assert "def eval_helpful" in texts[3]
    (missing,) = tool_results(requests[2])
    assert missing.get("is_error") and "no-such-trace" in missing["content"]


async def test_api_error_stops_with_the_best_code_so_far(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(
        tool_use_reply("test_eval_code", {"code": WEAK}, input_tokens=70, output_tokens=7), server_error(500)
    )
    recorder = Recorder()

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), FakeTester(LABELED), client=client, on_event=recorder
    )

    assert (result.stopped, result.code, result.accuracy, result.steps) == ("error", WEAK, 0.5, 1)
    assert (result.input_tokens, result.output_tokens) == (70, 7)
    assert recorder.types[-1] == "failed" and "finished" not in recorder.types
    assert "500" in recorder.events[-1].message or "InternalServerError" in recorder.events[-1].message


async def test_start_code_is_offered_and_not_returned_as_the_models_own(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(text_reply("I have nothing to add."))

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), FakeTester(LABELED), client=client, start_code=WEAK
    )

    assert (result.stopped, result.code, result.accuracy) == ("model_finished", None, None)
    assert WEAK.strip() in anthropic_server.message_requests[0].last_user_text()


async def test_a_cut_off_reply_is_not_run_and_the_model_is_asked_for_a_shorter_one(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    cut_tool_call = {
        "content": [
            {"type": "text", "text": "Testing this:"},
            {"type": "tool_use", "id": "toolu_cut", "name": "test_eval_code", "input": {"code": WEAK}},
        ],
        "stop_reason": "max_tokens",
    }
    anthropic_server.enqueue(cut_tool_call, text_reply(f"```python\n{GOOD}```"))
    tester, recorder = FakeTester(LABELED), Recorder()

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), tester, client=client, max_tokens=300, on_event=recorder
    )

    assert (result.stopped, result.code, result.error) == ("model_finished", GOOD.strip(), None)
    assert tester.calls == [], "a tool call in a cut-off reply may be incomplete: it must not run"
    second = anthropic_server.message_requests[1]
    assert "cut off at the limit of 300 output tokens" in second.last_user_text()
    assert not has_tool_blocks(second), "the cut-off tool call must not be sent back unanswered"


async def test_replies_cut_off_twice_in_a_row_stop_the_loop_as_a_failure(
    anthropic_server: FakeAnthropicServer, client: anthropic.AsyncAnthropic
) -> None:
    anthropic_server.enqueue(
        tool_use_reply("test_eval_code", {"code": WEAK}, input_tokens=10, output_tokens=5),
        cut_off_reply("```python\ndef eval_helpful(trace, ctx=None):\n    if", output_tokens=300),
        cut_off_reply("```python\ndef eval_helpful(trace, ctx=None):\n    calls =", output_tokens=300),
    )
    recorder = Recorder()

    result = await run_agent_loop(
        NAME, FakeSource(LABELED), FakeTester(LABELED), client=client, max_tokens=300, on_event=recorder
    )

    assert (result.stopped, result.code, result.steps) == ("cut_off", WEAK, 3)
    assert result.error is not None and "cut off at max_tokens=300" in result.error
    assert result.output_tokens == 605
    assert recorder.types[-1] == "failed"
    # Every event carries the tokens and tests so far, so an interrupted caller still has them.
    last = recorder.events[-1]
    assert (last.input_tokens, last.output_tokens, last.attempts) == (
        result.input_tokens,
        result.output_tokens,
        1,
    )


async def test_an_authentication_error_stops_at_once_with_the_reason(
    anthropic_server: FakeAnthropicServer,
) -> None:
    anthropic_server.enqueue(unauthorized())
    c = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, base_url=anthropic_server.base_url, max_retries=2)
    try:
        result = await run_agent_loop(NAME, FakeSource(LABELED), FakeTester(LABELED), client=c)
    finally:
        await c.close()
    assert (result.stopped, result.code, result.steps) == ("error", None, 0)
    assert result.error is not None and "AuthenticationError" in result.error
    assert len(anthropic_server.message_requests) == 1


# -- the tools on their own


async def test_huge_traces_are_shortened_to_valid_json_within_the_limit() -> None:
    huge = make_trace(0, "positive")
    huge["output"] = "x" * 100_000
    huge["steps"] = [dict(huge["steps"][0], result={"page": "y" * 5000}) for _ in range(300)]
    tools = AgentTools(NAME, FakeSource([("big", huge, "positive")]), FakeTester([]))

    outcome = await tools.run("get_trace_details", {"trace_id": "big"})

    assert not outcome.is_error
    assert len(outcome.content) <= MAX_TRACE_CHARS + 100
    shown = json.loads(outcome.content)["trace"]
    assert "shortened" in shown["_truncated"]
    assert shown["output"].startswith("xxx") and "more chars" in shown["output"]
    assert shown["steps"][0]["name"] == "search", "the shape of the trace survives"


async def test_subset_tests_do_not_count_toward_the_target_and_backend_failures_use_no_attempt() -> None:
    class BrokenTester(FakeTester):
        async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
            raise ConnectionError("grader unavailable")

    source = FakeSource(LABELED)
    tools = AgentTools(NAME, source, FakeTester(LABELED), target_accuracy=0.8)
    subset = await tools.run("test_eval_code", {"code": WEAK, "trace_ids": ["pos-0", "pos-1"]})
    assert subset.test is not None and subset.test.accuracy == 1.0
    assert (tools.target_reached, tools.best_code, tools.attempts) == (False, None, 1)

    tools.tester = BrokenTester(LABELED)
    broken = await tools.run("test_eval_code", {"code": GOOD})
    assert broken.is_error and "grader unavailable" in broken.content
    assert tools.attempts == 1

    listed = json.loads((await tools.run("fetch_traces", {"limit": 500})).content)
    assert source.list_calls[-1] == (None, 100, 0) and listed["note"] == "limit capped at 100"


async def test_code_that_fails_on_some_traces_does_not_reach_the_target() -> None:
    class Failing(FakeTester):
        async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
            report = await super().test(code, trace_ids)
            return {**report, "accuracy": 0.9, "correct": 9, "errors": 1}

    tools = AgentTools(NAME, FakeSource(LABELED), Failing(LABELED), target_accuracy=0.8)
    outcome = await tools.run("test_eval_code", {"code": GOOD})
    assert not tools.target_reached, "90% with a trace that raised is not done"
    assert "failed on 1 traces" in json.loads(outcome.content)["verdict"]


async def test_notes_and_todos_are_kept_for_the_run() -> None:
    tools = AgentTools(NAME, FakeSource(LABELED), FakeTester(LABELED))
    await tools.run("write_note", {"name": "signals", "content": "negatives fail tool calls"})
    assert (await tools.run("read_note", {"name": "signals"})).content == "negatives fail tool calls"
    assert json.loads((await tools.run("list_notes", {})).content) == {
        "notes": [{"name": "signals", "chars": 25}]
    }
    assert (await tools.run("read_note", {"name": "other"})).is_error
    todos = await tools.run(
        "manage_todos", {"todos": [{"task": "fetch", "status": "done"}, {"task": "test"}]}
    )
    assert json.loads(todos.content)["todos"][1] == {"task": "test", "status": "pending"}
    assert tools.notes == {"signals": "negatives fail tool calls"}
