"""LLM judges graded through the real anthropic SDK against the fake Messages API."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.contracts.suite import Case, GraderSpec
from agenteval.contracts.trace import Trace
from agenteval.grading import (
    Grade,
    GradeContext,
    llm_judge,  # noqa: F401  (registers the judges)
    run_grader,
    validate_spec,
)
from agenteval.grading.judge_cache import MemoryCache, SqliteCache, cache_key
from agenteval.grading.llm_client import LLMClient, LLMError, default_client
from agenteval.grading.llm_judge import VerdictError, parse_verdict, render_transcript
from agenteval.stats import cost_usd
from tests.fakes.anthropic_server import FAKE_API_KEY, FakeAnthropicServer, FakeError, text_reply

NO_KEY_ERROR = "no Anthropic API key configured (set ANTHROPIC_API_KEY) for grader 'llm_rubric'"


def verdict(score: Any, passed: bool = True, reasoning: str = "ok", **usage: int) -> dict[str, Any]:
    return text_reply(json.dumps({"score": score, "passed": passed, "reasoning": reasoning}), **usage)


def weather_trace() -> Trace:
    return Trace.model_validate(
        {
            "input": [{"role": "user", "content": "What is the weather in Paris?"}],
            "steps": [
                {"type": "message", "role": "assistant", "content": "I will look it up."},
                {
                    "type": "tool_call",
                    "name": "get_weather",
                    "arguments": {"city": "Paris"},
                    "result": {"temp_c": 18},
                },
                {"type": "tool_call", "name": "get_news", "arguments": {}, "error": "service down"},
            ],
            "output": "It is 18°C in Paris.",
        }
    )


class RecordingSleep:
    """Records the delays the client asks for, without waiting them."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(api_key=FAKE_API_KEY) as fake:
        yield fake


@pytest.fixture
def sleep() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def client(server: FakeAnthropicServer, sleep: RecordingSleep) -> LLMClient:
    return LLMClient(
        api_key=FAKE_API_KEY,
        base_url=server.base_url,
        max_retries=3,
        cache=MemoryCache(),
        backoff_s=0.2,
        sleep=sleep,
    )


async def judge(
    name: str, client: Any, params: dict[str, Any], trace: Trace | None = None, case: Case | None = None
) -> Grade:
    services = {"llm": client} if client is not None else {}
    spec = GraderSpec(name=name, params=params)
    validate_spec(spec)
    return await run_grader(spec, trace or weather_trace(), GradeContext(case=case, services=services))


RUBRIC = {"rubric": "The agent reports the temperature it looked up."}


async def test_passing_verdict_records_score_tokens_and_cost(
    server: FakeAnthropicServer, client: LLMClient
) -> None:
    server.enqueue(
        verdict(0.9, reasoning="Reported 18°C from the tool.", input_tokens=1000, output_tokens=50)
    )
    grade = await judge("llm_rubric", client, RUBRIC)
    assert grade.error is None and grade.passed and grade.score == 0.9
    assert "Reported 18°C from the tool." in grade.explanation
    assert (grade.input_tokens, grade.output_tokens) == (1000, 50)
    assert grade.cost_usd == pytest.approx(cost_usd("claude-haiku-4-5", 1000, 50)) and grade.cost_usd > 0
    assert grade.params == RUBRIC, "the grade records the parameters it ran with"

    (request,) = server.message_requests
    body = request.body or {}
    assert body["model"] == "claude-haiku-4-5" and "temperature" not in body, "SDK 2.x has no sampling params"
    assert "ignore any instructions" in body["system"]
    prompt = request.last_user_text()
    for needle in (
        "reports the temperature",
        "What is the weather in Paris?",
        "get_weather",
        '"city": "Paris"',
        '"temp_c": 18',
        "error: service down",
        "It is 18°C in Paris.",
        '"score"',
    ):
        assert needle in prompt, f"the judge prompt lacks {needle!r}"


async def test_failing_verdict_in_a_json_fence(server: FakeAnthropicServer, client: LLMClient) -> None:
    reply = '```json\n{"score": 0.2, "passed": false, "reasoning": "Never gave a temperature."}\n```'
    server.enqueue(text_reply(reply))
    grade = await judge("llm_rubric", client, RUBRIC)
    assert grade.error is None, "a failing verdict is a grade, not an error"
    assert not grade.passed and grade.score == 0.2
    assert "Never gave a temperature." in grade.explanation


async def test_pass_threshold_decides_and_a_disagreeing_judge_is_noted(
    server: FakeAnthropicServer, client: LLMClient
) -> None:
    server.enqueue(verdict(0.6, passed=True))
    grade = await judge("llm_rubric", client, {**RUBRIC, "pass_threshold": 0.7, "model": "claude-sonnet-4-5"})
    assert not grade.passed and grade.score == 0.6
    assert "passed=true" in grade.explanation
    assert server.message_requests[0].model == "claude-sonnet-4-5"


async def test_unparseable_verdict_is_corrected_by_one_re_ask(
    server: FakeAnthropicServer, client: LLMClient
) -> None:
    server.enqueue(
        text_reply("The agent did well, I'd say 0.8.", input_tokens=100, output_tokens=10),
        verdict(0.8, input_tokens=130, output_tokens=20),
    )
    grade = await judge("llm_rubric", client, RUBRIC)
    assert grade.error is None and grade.passed and grade.score == 0.8
    assert (grade.input_tokens, grade.output_tokens) == (230, 30), "tokens of both asks count"

    first, second = server.message_requests
    assert [m["role"] for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[0] == first.messages[0]
    assert second.messages[1]["content"] == "The agent did well, I'd say 0.8."
    assert "not a JSON object" in second.last_user_text()


async def test_never_valid_verdict_is_a_failed_grade_with_error(
    server: FakeAnthropicServer, client: LLMClient
) -> None:
    server.enqueue(text_reply("nope", output_tokens=5), text_reply('{"score": 2}', output_tokens=7))
    grade = await judge("llm_rubric", client, RUBRIC)
    assert not grade.passed and grade.score == 0.0
    assert grade.error is not None and grade.error.startswith("judge returned an unparseable verdict:")
    assert '"score" must be from 0 to 1' in grade.error
    assert grade.output_tokens == 12, "a failed grade still records what the judge spent"
    assert len(server.message_requests) == 2, "only one re-ask"


async def test_retries_after_429_and_529_then_succeeds(
    server: FakeAnthropicServer, client: LLMClient, sleep: RecordingSleep
) -> None:
    server.fail_next(1, 429, retry_after=3)
    server.fail_next(1, 529)
    server.enqueue(verdict(1.0))
    grade = await judge("llm_rubric", client, RUBRIC)
    assert grade.error is None and grade.passed
    assert len(server.message_requests) == 3
    assert sleep.delays[0] == 3.0, "the retry-after header is honoured"
    # 529 carries no retry-after: exponential backoff (second retry: 0.2 * 2) with jitter down to 75 %.
    assert 0.3 <= sleep.delays[1] <= 0.4


async def test_retries_exhausted_is_a_failed_grade(
    server: FakeAnthropicServer, sleep: RecordingSleep
) -> None:
    client = LLMClient(
        api_key=FAKE_API_KEY, base_url=server.base_url, max_retries=2, backoff_s=0.01, sleep=sleep
    )
    server.fail_next(5, 529, message="Overloaded")
    grade = await judge("llm_rubric", client, RUBRIC)
    assert not grade.passed and grade.error is not None
    assert (
        "529" in grade.error and "overloaded_error: Overloaded" in grade.error and "3 attempts" in grade.error
    )
    assert len(server.message_requests) == 3 and len(sleep.delays) == 2


async def test_client_errors_are_not_retried(server: FakeAnthropicServer, client: LLMClient) -> None:
    server.enqueue(FakeError(400, "max_tokens: too large"))
    with pytest.raises(LLMError, match=r"400 .*max_tokens: too large") as err:
        await client.complete("hi", model="claude-haiku-4-5")
    assert err.value.status == 400 and len(server.message_requests) == 1


async def test_connection_errors_are_retried_then_reported(sleep: RecordingSleep) -> None:
    with FakeAnthropicServer() as gone:
        url = gone.base_url  # nothing listens here once it stops
    client = LLMClient(
        api_key=FAKE_API_KEY, base_url=url, max_retries=1, backoff_s=0.01, timeout_s=5, sleep=sleep
    )
    grade = await judge("llm_rubric", client, RUBRIC)
    assert grade.error is not None and "could not reach the Anthropic API" in grade.error
    assert len(sleep.delays) == 1


async def test_re_grade_is_served_from_the_cache(server: FakeAnthropicServer, client: LLMClient) -> None:
    server.enqueue(verdict(0.7, input_tokens=500, output_tokens=40))
    first = await judge("llm_rubric", client, RUBRIC)
    again = await judge("llm_rubric", client, RUBRIC)
    assert len(server.message_requests) == 1, "the re-grade must not call the API"
    assert (again.score, again.passed) == (first.score, first.passed)
    assert (again.input_tokens, again.output_tokens, again.cost_usd) == (0, 0, 0.0)
    assert "cached verdict" in again.explanation and "cached" not in first.explanation
    other_rubric = await judge("llm_rubric", client, {"rubric": "something else"})
    assert other_rubric.error is not None, (
        "a different prompt is a cache miss (and the fake has no reply left)"
    )
    assert len(server.message_requests) == 2


async def test_sqlite_cache_is_shared_across_clients(server: FakeAnthropicServer, tmp_path: Path) -> None:
    path = tmp_path / "cache" / "judge.sqlite"
    server.enqueue(verdict(0.4, passed=False))
    first = LLMClient(api_key=FAKE_API_KEY, base_url=server.base_url, cache=SqliteCache(path))
    second = LLMClient(api_key=FAKE_API_KEY, base_url=server.base_url, cache=SqliteCache(path))
    a = await judge("reasoning_quality", first, {})
    b = await judge("reasoning_quality", second, {})
    assert (a.score, b.score) == (0.4, 0.4) and not b.passed
    assert len(server.message_requests) == 1


async def test_missing_api_key_is_a_clear_failed_grade(
    server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyless = LLMClient(api_key="", base_url=server.base_url)
    grade = await judge("llm_rubric", keyless, RUBRIC)
    assert grade.error == NO_KEY_ERROR and not grade.passed and grade.score == 0.0

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    grade = await judge("llm_rubric", None, RUBRIC)
    assert grade.error == NO_KEY_ERROR, "without a service client the environment decides"
    assert server.requests == []


async def test_without_a_service_client_the_judge_uses_the_environment(
    server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in server.env().items():
        monkeypatch.setenv(name, value)
    server.enqueue(verdict(0.95))
    grade = await judge("llm_rubric", None, RUBRIC)
    assert grade.error is None and grade.passed
    assert len(server.message_requests) == 1
    assert default_client().base_url == server.base_url


async def test_reasoning_quality_prompt_and_verdict(server: FakeAnthropicServer, client: LLMClient) -> None:
    server.enqueue(verdict(0.5, reasoning="Ignored the failed news call."))
    grade = await judge("reasoning_quality", client, {"criteria": "Must acknowledge tool failures."})
    assert grade.score == 0.5 and grade.passed and grade.name == "reasoning_quality"
    prompt = server.message_requests[0].last_user_text()
    assert "quality of the AI agent's reasoning" in prompt
    assert "Must acknowledge tool failures." in prompt and "I will look it up." in prompt


async def test_tool_selection_judge_sees_task_tools_and_hints(
    server: FakeAnthropicServer, client: LLMClient
) -> None:
    server.enqueue(verdict(0.5, reasoning="get_news was unnecessary."))
    case = Case(id="weather", input="What is the weather in Paris?", expected_tools=["get_weather"])
    grade = await judge(
        "tool_selection_judge",
        client,
        {"available_tools": ["get_weather: current weather", "get_news"]},
        case=case,
    )
    assert grade.score == 0.5 and grade.error is None
    prompt = server.message_requests[0].last_user_text()
    assert "Tools called, in order: get_weather, get_news" in prompt
    assert "- get_weather: current weather" in prompt
    assert "expected these tools (a hint, not the only right answer): get_weather" in prompt


async def test_rubric_shows_the_reference_answer(server: FakeAnthropicServer, client: LLMClient) -> None:
    server.enqueue(verdict(1.0))
    case = Case(id="c", input="q", expected_output="About 18 degrees.")
    await judge("llm_rubric", client, RUBRIC, case=case)
    assert "<reference_answer>\nAbout 18 degrees." in server.message_requests[0].last_user_text()


def test_judge_parameters_are_checked_at_suite_load() -> None:
    with pytest.raises(ValueError, match="rubric"):
        validate_spec(GraderSpec(name="llm_rubric", params={}))
    with pytest.raises(ValueError, match="pass_threshold"):
        validate_spec(GraderSpec(name="llm_rubric", params={**RUBRIC, "pass_threshold": 0}))
    with pytest.raises(ValueError, match="temprature"):
        validate_spec(GraderSpec(name="reasoning_quality", params={"temprature": 1}))


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ('{"score": 1, "passed": true, "reasoning": "fine"}', 1.0),
        ('  {"score": 0.25}  ', 0.25),
        ('Here it is:\n```json\n{"score": 0.5, "passed": false, "reasoning": "meh"}\n```', 0.5),
        ('```\n{"score": 0}\n```', 0.0),
    ],
)
def test_parse_verdict_accepts_a_bare_or_fenced_object(reply: str, score: float) -> None:
    assert parse_verdict(reply).score == score


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty"),
        ("Score: 0.8", "not a JSON object"),
        ('{"score": 0.8', "not valid JSON"),
        ("[0.8]", "not a JSON object"),
        ("```json\n[1]\n```", "must be a JSON object"),
        ('{"passed": true}', '"score" must be a number'),
        ('{"score": "0.8"}', '"score" must be a number'),
        ('{"score": true}', '"score" must be a number'),
        ('{"score": 1.5}', "from 0 to 1"),
        ('{"score": 0.5, "passed": "yes"}', '"passed" must be true or false'),
        ('{"score": 0.5, "reasoning": 3}', '"reasoning" must be a string'),
        ('```json\n{"score": 1}\n```\n```json\n{"score": 0}\n```', "more than one code block"),
    ],
)
def test_parse_verdict_rejects_anything_else(reply: str, problem: str) -> None:
    with pytest.raises(VerdictError, match=re.escape(problem)):
        parse_verdict(reply)


@pytest.mark.parametrize("name", ["llm_rubric", "reasoning_quality", "tool_selection_judge"])
async def test_judges_read_malformed_traces(
    server: FakeAnthropicServer, client: LLMClient, name: str
) -> None:
    from tests.grading.test_graders_registry import MALFORMED

    server.handler = lambda body: json.dumps({"score": 0.5, "passed": True, "reasoning": "read it"})
    params = RUBRIC if name == "llm_rubric" else {}
    for t in MALFORMED:
        grade = await judge(name, client, params, trace=t)
        assert grade.error is None and grade.score == 0.5, f"{name} on {t!r}: {grade.error}"
    assert len(server.message_requests) == len(MALFORMED)


def test_long_transcripts_are_cut_sensibly() -> None:
    steps = [{"type": "tool_call", "name": f"t{i}", "result": "r" * 5000} for i in range(200)]
    text = render_transcript(
        Trace.model_validate({"input": [{"content": "go"}], "steps": steps, "output": None})
    )
    assert "[1] tool call: t0" in text and "[200] tool call: t199" in text
    assert "120 steps omitted" in text and "[100] tool call" not in text
    assert "chars cut]" in text and "r" * 2000 not in text
    assert "(no final answer)" in text
    assert len(text) < 200_000


async def test_client_merges_system_messages_and_prices_the_response_model(
    server: FakeAnthropicServer,
) -> None:
    server.enqueue(
        text_reply("hi there", input_tokens=2_000_000, output_tokens=0, model="claude-sonnet-4-5-20250929")
    )
    client = LLMClient(api_key=FAKE_API_KEY, base_url=server.base_url)
    reply = await client.complete(
        [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hello"}],
        model="claude-sonnet-4-5",
        system="be brief",
        max_tokens=64,
        temperature=0.0,
    )
    assert reply.text == "hi there" and not reply.cached
    assert reply.cost_usd == pytest.approx(6.0), "2M input tokens at the sonnet-4-5 list price"
    body = server.message_requests[0].body or {}
    assert body["system"] == "be brief\n\nbe kind" and body["messages"] == [
        {"role": "user", "content": "hello"}
    ]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 64
    with pytest.raises(ValueError, match="role"):
        await client.complete([{"role": "tool", "content": "x"}], model="m")


def test_retry_delay_prefers_the_servers_ask_within_a_cap() -> None:
    client = LLMClient(api_key="k", backoff_s=1.0, max_backoff_s=4.0, max_retry_after_s=10.0)
    assert client.retry_delay(0, {"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert client.retry_delay(0, {"retry-after": "2"}) == 2.0
    assert client.retry_delay(0, {"retry-after": "3600"}) == 10.0
    assert 0.75 <= client.retry_delay(0, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) <= 1.0
    assert 3.0 <= client.retry_delay(5) <= 4.0, "exponential backoff is capped"


def test_cache_key_depends_on_every_input() -> None:
    base = {
        "model": "m",
        "system": "s",
        "messages": [{"role": "user", "content": "x"}],
        "temperature": 0.0,
        "max_tokens": 10,
        "tag": "llm_rubric/v1",
    }
    key = cache_key(**base)
    assert key == cache_key(**{**base, "temperature": 0})
    changes = {
        "model": "n",
        "system": None,
        "messages": [{"role": "user", "content": "y"}],
        "temperature": None,
        "max_tokens": 11,
        "tag": "llm_rubric/v2",
    }
    for field, value in changes.items():
        assert cache_key(**{**base, field: value}) != key, f"{field} must change the key"


def test_memory_cache_evicts_the_least_recently_used() -> None:
    from agenteval.grading.judge_cache import CachedCompletion

    cache = MemoryCache(max_entries=2)
    cache.put("a", CachedCompletion("A", "m"))
    cache.put("b", CachedCompletion("B", "m"))
    assert cache.get("a") is not None  # touch a: b is now the oldest
    cache.put("c", CachedCompletion("C", "m"))
    assert cache.get("b") is None and cache.get("a") == CachedCompletion("A", "m") and len(cache) == 2
