"""SandboxPool behaviour: results, batches, ctx.call_llm, limits and worker replacement."""

from __future__ import annotations

import asyncio
import datetime
import os
import signal
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from agenteval.contracts.trace import Step, Trace
from agenteval.sandbox import EvalResult, LLMReply, LLMRequest, SandboxLimits, SandboxPool

REFUND_EVAL = '''
import re

def eval_refund_issued(trace, ctx=None):
    """Passes when the agent called issue_refund and said so."""
    called = [c["name"] for c in trace["tool_calls"]]
    said = bool(re.search(r"\\brefund", trace.get("output") or "", re.I))
    if "issue_refund" in called and said:
        return 1.0, "refund issued and confirmed"
    if "issue_refund" in called:
        return 0.5, "refund issued but not confirmed"
    return 0.0, "no refund issued (tools: " + ", ".join(called) + ")"
'''

INDEX_EVAL = "def eval_index(trace):\n    return trace['n'] / 1000, 'n=' + str(trace['n'])"


def make_trace(tools: list[str], output: str | None) -> dict:
    steps = [Step(type="tool_call", name=name, arguments={"order": "A1"}, result="ok") for name in tools]
    return Trace(
        input=[{"role": "user", "content": "refund please"}], steps=steps, output=output
    ).to_eval_dict()


@pytest_asyncio.fixture
async def pool() -> AsyncIterator[SandboxPool]:
    async with SandboxPool(workers=2) as p:
        yield p


async def test_normal_eval_function_scores_several_traces(pool: SandboxPool) -> None:
    cases = [
        (
            make_trace(["lookup_order", "issue_refund"], "Your refund is on its way."),
            1.0,
            "refund issued and confirmed",
        ),
        (make_trace(["issue_refund"], "Done."), 0.5, "refund issued but not confirmed"),
        (make_trace(["lookup_order"], None), 0.0, "no refund issued (tools: lookup_order)"),
    ]
    for trace, score, explanation in cases:
        result = await pool.run(REFUND_EVAL, trace)
        assert result == EvalResult(score, explanation, None, result.duration_ms, 0)
        assert result.ok and result.duration_ms >= 0


async def test_batch_results_come_back_in_trace_order(pool: SandboxPool) -> None:
    traces = [{"n": n} for n in range(300)]
    results = await pool.run_batch(INDEX_EVAL, traces)
    assert [r.explanation for r in results] == [f"n={n}" for n in range(300)]
    assert [r.score for r in results] == [n / 1000 for n in range(300)]
    assert await pool.run_batch(INDEX_EVAL, []) == []


async def test_one_bad_trace_in_a_batch_does_not_cost_the_others(pool: SandboxPool) -> None:
    code = """
def eval_mixed(trace):
    mode = trace["mode"]
    if mode == "loop":
        while True:
            pass
    if mode == "memory":
        return 1.0, str(len(bytearray(2 ** 40)))
    if mode == "raise":
        raise ValueError("bad trace")
    return 1.0, "ok " + str(trace["n"])
"""
    modes = ["ok"] * 40
    modes[3], modes[17], modes[30] = "loop", "memory", "raise"
    traces = [{"mode": m, "n": n} for n, m in enumerate(modes)]
    results = await pool.run_batch(code, traces, timeout_s=1.0)
    assert len(results) == 40
    errors = {n: r.error.rule for n, r in enumerate(results) if r.error}
    assert errors == {3: "timeout", 17: "memory_limit", 30: "exception"}
    assert all(r.explanation == f"ok {n}" for n, r in enumerate(results) if n not in errors)


async def test_the_allowed_stdlib_works_inside_the_walls(pool: SandboxPool) -> None:
    code = """
from __future__ import annotations
import collections, datetime, difflib, functools, itertools, json, math, re, statistics, typing
from collections.abc import Mapping
from typing import NamedTuple

class Hit(NamedTuple):
    word: str
    count: int

@functools.lru_cache(maxsize=8)
def double(x):
    return x * 2

def eval_stdlib(trace: dict, ctx=None) -> tuple[float, str]:
    when = datetime.datetime.strptime(trace["when"], "%Y-%m-%d")
    words = collections.Counter(re.findall(r"\\w+", trace["text"]))
    pair = collections.namedtuple("Pair", "a b")(1, 2)
    parts = [
        when.strftime("%d/%m/%Y"),
        str(when.timetuple().tm_yday),
        str(Hit(*words.most_common(1)[0])),
        str(pair),
        str(difflib.get_close_matches("refnd", ["refund", "order"])),
        str(statistics.median([3, 1, 2])),
        str(list(itertools.accumulate([1, 2, 3]))),
        str(double(21)),
        str(isinstance(trace, Mapping)),
        json.dumps({"pi": round(math.pi, 2)}),
    ]
    return 1.0, " | ".join(parts)
"""
    result = await pool.run(code, {"when": "2024-03-01", "text": "refund refund order"})
    assert result.error is None, result.error
    assert result.explanation == (
        "01/03/2024 | 61 | Hit(word='refund', count=2) | Pair(a=1, b=2) | ['refund'] | 2 | [1, 3, 6]"
        ' | 42 | True | {"pi": 3.14}'
    )
    extra = "import textwrap\ndef eval_x(t):\n    return 1.0, textwrap.shorten('a b c d e f', 7)"
    assert (await pool.run(extra, {}, allowed_imports=["textwrap"])).explanation == "a [...]"


async def test_many_concurrent_callers_each_get_their_own_result(pool: SandboxPool) -> None:
    results = await asyncio.gather(*(pool.run(INDEX_EVAL, {"n": n}) for n in range(40)))
    assert [r.explanation for r in results] == [f"n={n}" for n in range(40)]


async def test_ctx_is_passed_only_to_functions_that_take_it(pool: SandboxPool) -> None:
    code = "def eval_a(trace):\n    return 1.0, 'one arg'\ndef eval_b(trace, ctx=None):\n    return 1.0, repr(ctx)"
    assert (await pool.run(code, {}, function="eval_a")).explanation == "one arg"
    assert "call_llm" in (await pool.run(code, {}, function="eval_b")).explanation


@pytest.mark.parametrize(
    ("ret", "fragment"),
    [
        ("None", "must return (score, explanation)"),
        ("(0.5,)", "must return (score, explanation)"),
        ("('high', 'x')", "score must be a number"),
        ("(1.5, 'x')", "score must be in [0, 1]"),
        ("(float('nan'), 'x')", "score must be in [0, 1]"),
        ("(0.5, 42)", "explanation must be a str"),
    ],
)
async def test_bad_returns_are_reported(pool: SandboxPool, ret: str, fragment: str) -> None:
    result = await pool.run(f"def eval_x(trace):\n    return {ret}", {})
    assert result.error is not None and result.error.rule == "bad_return"
    assert fragment in result.error.message
    assert result.score is None


async def test_bools_and_ints_are_scores(pool: SandboxPool) -> None:
    assert (await pool.run("def eval_x(t):\n    return True, 'yes'", {})).score == 1.0
    assert (await pool.run("def eval_x(t):\n    return [0, 'no']", {})).score == 0.0


async def test_print_cannot_corrupt_the_protocol(pool: SandboxPool) -> None:
    code = """
def eval_noisy(trace):
    for _ in range(2000):
        print("\\x00\\x00\\x00\\x10" + '{"op": "done"}' * 100)
    return 0.75, "still fine"
"""
    result = await pool.run(code, {})
    assert (result.score, result.explanation, result.error) == (0.75, "still fine", None)


async def test_traces_that_are_not_plain_json_are_sent_as_their_json_form(pool: SandboxPool) -> None:
    code = "def eval_x(t):\n    return 1.0, type(t['items']).__name__ + ' ' + repr(t['when'])"
    result = await pool.run(code, {"items": (1, 2), "when": datetime.date(2024, 1, 2)})
    assert result.explanation == "list '2024-01-02'"


async def test_llm_round_trip_through_the_pool_callback() -> None:
    seen: list[LLMRequest] = []

    async def fake_llm(request: LLMRequest) -> str:
        seen.append(request)
        await asyncio.sleep(0)
        return "YES" if "refund" in request.prompt else "NO"

    code = """
def eval_judged(trace, ctx=None):
    first = ctx.call_llm("Did the agent refund? " + trace["output"], model="claude-haiku", max_tokens=5)
    second = ctx.call_llm("Was it polite?", temperature=0.5)
    return (1.0 if first == "YES" else 0.0), first + "/" + second
"""
    async with SandboxPool(workers=2, llm=fake_llm) as pool:
        result = await pool.run(code, {"output": "I issued a refund"})
    assert (result.score, result.explanation, result.error, result.llm_calls) == (1.0, "YES/NO", None, 2)
    assert seen[0] == LLMRequest("Did the agent refund? I issued a refund", "claude-haiku", 0.0, 5)
    assert seen[1] == LLMRequest("Was it polite?", None, 0.5, 1000)


async def test_each_trace_is_charged_the_cost_its_own_llm_calls_report() -> None:
    async def priced_llm(request: LLMRequest) -> LLMReply:
        # a cache hit costs nothing; other calls cost what their prompt says
        return LLMReply("ok", 0.0 if "cached" in request.prompt else float(request.prompt.split()[-1]))

    code = """
def eval_priced(trace, ctx=None):
    for prompt in trace["prompts"]:
        ctx.call_llm(prompt)
    return 1.0, "ok"
"""
    traces = [
        {"prompts": ["p 0.25", "p 0.5"]},
        {"prompts": ["cached"]},
        {"prompts": []},
        {"prompts": ["p 2"]},
    ]
    async with SandboxPool(workers=1, llm=priced_llm) as pool:
        results = await pool.run_batch(code, traces)
    assert [r.llm_calls for r in results] == [2, 1, 0, 1]
    assert [r.llm_cost_usd for r in results] == [0.75, 0.0, 0.0, 2.0]


async def test_without_an_llm_call_llm_raises_inside_the_eval(pool: SandboxPool) -> None:
    result = await pool.run("def eval_x(trace, ctx):\n    return 1.0, ctx.call_llm('hi')", {})
    assert result.error is not None and result.error.rule == "exception"
    assert "no LLM is configured for eval functions" in result.error.message
    assert result.llm_calls == 1


async def test_llm_failures_reach_the_eval_function_as_catchable_errors() -> None:
    async def broken_llm(request: LLMRequest) -> str:
        raise ConnectionError("upstream down")

    code = """
def eval_x(trace, ctx):
    try:
        return 1.0, ctx.call_llm("hi")
    except LLMError as exc:
        return 0.0, "fallback: " + str(exc)
"""
    async with SandboxPool(workers=1, llm=broken_llm) as pool:
        result = await pool.run(code, {})
    assert result.explanation == "fallback: LLM call failed: ConnectionError: upstream down"


async def test_time_waiting_for_the_llm_does_not_count_against_the_timeout() -> None:
    async def slow_llm(request: LLMRequest) -> str:
        await asyncio.sleep(1.0)
        return "ok"

    async with SandboxPool(workers=1, llm=slow_llm) as pool:
        result = await pool.run("def eval_x(t, ctx):\n    return 1.0, ctx.call_llm('hi')", {}, timeout_s=0.5)
    assert (result.score, result.error) == (1.0, None)


async def test_a_timed_out_worker_is_replaced_and_the_pool_keeps_serving(pool: SandboxPool) -> None:
    before = set(pool.worker_pids())
    result = await pool.run("def eval_x(t):\n    while True:\n        pass", {}, timeout_s=0.5)
    assert result.error is not None and result.error.rule == "timeout"
    assert "0.5 s" in result.error.message
    assert (await pool.run(INDEX_EVAL, {"n": 7})).explanation == "n=7"
    assert len(before - set(pool.worker_pids())) == 1, "the timed-out worker should have been replaced"


async def test_cpu_rlimit_backstops_the_wall_clock_timeout() -> None:
    async with SandboxPool(workers=1, limits=SandboxLimits(cpu_s=1, timeout_s=60)) as pool:
        result = await pool.run("def eval_x(t):\n    while True:\n        pass", {})
        assert result.error is not None and result.error.rule == "timeout"
        assert "CPU time limit of 1 s" in result.error.message
        assert (await pool.run(INDEX_EVAL, {"n": 1})).explanation == "n=1"


async def test_a_worker_killed_mid_call_is_replaced() -> None:
    started = asyncio.Event()

    async def signal_started(request: LLMRequest) -> str:
        started.set()
        return "go"

    code = "def eval_x(t, ctx):\n    ctx.call_llm('starting')\n    while True:\n        pass"
    async with SandboxPool(workers=2, llm=signal_started) as pool:
        call = asyncio.create_task(pool.run(code, {}, timeout_s=60))
        await asyncio.wait_for(started.wait(), 30)
        victims = pool.worker_pids()
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        result = await asyncio.wait_for(call, 30)
        assert result.error is not None and result.error.rule == "worker_crashed"
        assert "SIGKILL" in result.error.message
        assert (await pool.run(INDEX_EVAL, {"n": 3})).explanation == "n=3"
        assert not set(victims) & set(pool.worker_pids())


async def test_workers_that_died_while_idle_cost_no_trace_an_error(pool: SandboxPool) -> None:
    for pid in pool.worker_pids():
        os.kill(pid, signal.SIGKILL)
    results = await pool.run_batch(INDEX_EVAL, [{"n": n} for n in range(10)])
    assert [(r.explanation, r.error) for r in results] == [(f"n={n}", None) for n in range(10)]


async def test_a_trace_that_crashes_its_worker_is_blamed_after_one_retry(pool: SandboxPool) -> None:
    code = "import os\ndef eval_x(t):\n    if t['crash']:\n        os.abort()\n    return 1.0, 'fine'"
    traces = [{"crash": n == 2} for n in range(5)]
    results = await pool.run_batch(code, traces, allowed_imports=["os"])
    assert [r.error.rule if r.error else r.explanation for r in results] == [
        "fine",
        "fine",
        "worker_crashed",
        "fine",
        "fine",
    ]
    crashed = results[2].error
    assert crashed is not None and "SIGABRT" in crashed.message


async def test_a_closed_pool_refuses_work() -> None:
    pool = SandboxPool(workers=1)
    assert (await pool.run(INDEX_EVAL, {"n": 2})).explanation == "n=2"  # starts lazily
    await pool.close()
    assert pool.worker_pids() == []
    with pytest.raises(RuntimeError, match="closed"):
        await pool.run(INDEX_EVAL, {"n": 2})


async def test_invalid_code_fails_every_trace_without_running(pool: SandboxPool) -> None:
    results = await pool.run_batch("import os\ndef eval_x(t):\n    return 1.0, ''", [{}, {}])
    assert [r.error.rule for r in results if r.error] == ["import_not_allowed"] * 2
