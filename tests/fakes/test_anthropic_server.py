"""The fake Anthropic API answers the real SDK the way the real API would."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from tests.fakes.anthropic_server import (
    FAKE_API_KEY,
    FakeAnthropicServer,
    FakeError,
    Gate,
    content_text,
    cut_off_reply,
    overloaded,
    rate_limited,
    text_reply,
    tool_use_reply,
    unauthorized,
)

USER_HI = [{"role": "user", "content": "hi"}]


def sync_client(server: FakeAnthropicServer, max_retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=FAKE_API_KEY, base_url=server.base_url, max_retries=max_retries)


def test_text_reply_has_the_message_shape_the_sdk_parses(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue(text_reply("Hello!", input_tokens=12, output_tokens=3))
    message = sync_client(anthropic_server).messages.create(
        model="claude-haiku-4-5", max_tokens=50, system="be brief", messages=USER_HI
    )
    assert message.type == "message" and message.role == "assistant"
    assert message.model == "claude-haiku-4-5", "the fake must echo the requested model"
    assert [b.type for b in message.content] == ["text"] and message.content[0].text == "Hello!"
    assert message.stop_reason == "end_turn"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (12, 3)
    (request,) = anthropic_server.message_requests
    assert request.model == "claude-haiku-4-5" and request.system == "be brief"
    assert request.messages == USER_HI and request.body is not None and request.body["max_tokens"] == 50


def test_usage_is_estimated_when_not_scripted(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue("x" * 400)
    message = sync_client(anthropic_server).messages.create(model="m", max_tokens=500, messages=USER_HI)
    assert message.usage.output_tokens >= 100, "about four characters per token"
    assert message.usage.input_tokens >= 1


async def test_multi_turn_tool_use_conversation_through_a_handler(
    anthropic_server: FakeAnthropicServer,
) -> None:
    def handler(request: dict[str, Any]) -> Any:
        last = request["messages"][-1]
        if isinstance(last["content"], list) and last["content"][0].get("type") == "tool_result":
            return text_reply(f"It is {content_text(last['content'])} in Paris.")
        return tool_use_reply("get_weather", {"city": "Paris"}, text="Let me check.", tool_use_id="toolu_1")

    anthropic_server.handler = handler
    client = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, base_url=anthropic_server.base_url, max_retries=0)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    first = await client.messages.create(model="m", max_tokens=100, messages=messages)
    assert first.stop_reason == "tool_use"
    tool_use = first.content[-1]
    assert (
        tool_use.type == "tool_use" and tool_use.name == "get_weather" and tool_use.input == {"city": "Paris"}
    )

    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": "18°C"}]},
    ]
    second = await client.messages.create(model="m", max_tokens=100, messages=messages)
    assert second.stop_reason == "end_turn" and second.content[0].text == "It is 18°C in Paris."
    assert [len(r.messages) for r in anthropic_server.message_requests] == [1, 3]
    assert anthropic_server.message_requests[1].last_user_text() == "18°C"
    await client.close()


def test_queued_replies_come_before_the_handler_and_may_be_functions(
    anthropic_server: FakeAnthropicServer,
) -> None:
    anthropic_server.handler = lambda request: "from the handler"
    anthropic_server.enqueue("first", lambda request: f"echo {request['messages'][0]['content']}")
    client = sync_client(anthropic_server)
    texts = [
        client.messages.create(model="m", max_tokens=9, messages=USER_HI).content[0].text for _ in range(3)
    ]
    assert texts == ["first", "echo hi", "from the handler"]
    assert anthropic_server.pending() == 0


def test_injected_errors_use_the_api_error_shape_and_retry_after(
    anthropic_server: FakeAnthropicServer,
) -> None:
    anthropic_server.fail_next(1, 429, retry_after=7, message="slow down")
    anthropic_server.enqueue(overloaded(), "finally")
    client = sync_client(anthropic_server)
    with pytest.raises(anthropic.RateLimitError) as rate:
        client.messages.create(model="m", max_tokens=9, messages=USER_HI)
    assert rate.value.body == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert rate.value.response.headers["retry-after"] == "7"
    with pytest.raises(anthropic.OverloadedError) as over:
        client.messages.create(model="m", max_tokens=9, messages=USER_HI)
    assert over.value.body["error"]["type"] == "overloaded_error"
    assert "retry-after" not in over.value.response.headers
    assert client.messages.create(model="m", max_tokens=9, messages=USER_HI).content[0].text == "finally"


def test_sdk_retries_honour_the_injected_retry_after(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue(
        rate_limited(retry_after=0.01), FakeError(529, "Overloaded", retry_after=0.01), "ok"
    )
    message = sync_client(anthropic_server, max_retries=2).messages.create(
        model="m", max_tokens=9, messages=USER_HI
    )
    assert message.content[0].text == "ok"
    retry_counts = [r.headers.get("x-stainless-retry-count") for r in anthropic_server.message_requests]
    assert retry_counts == ["0", "1", "2"]


def test_api_key_is_enforced_when_configured() -> None:
    with FakeAnthropicServer(api_key="right") as server:
        server.enqueue("hello")
        wrong = anthropic.Anthropic(api_key="wrong", base_url=server.base_url, max_retries=0)
        with pytest.raises(anthropic.AuthenticationError):
            wrong.messages.create(model="m", max_tokens=9, messages=USER_HI)
        right = anthropic.Anthropic(api_key="right", base_url=server.base_url, max_retries=0)
        assert right.messages.create(model="m", max_tokens=9, messages=USER_HI).content[0].text == "hello"


def test_unscripted_and_invalid_requests_get_clear_400s(anthropic_server: FakeAnthropicServer) -> None:
    client = sync_client(anthropic_server)
    with pytest.raises(anthropic.BadRequestError, match="no scripted reply for request #1"):
        client.messages.create(model="m", max_tokens=9, messages=USER_HI)
    anthropic_server.enqueue("never used")
    with pytest.raises(anthropic.BadRequestError, match="role"):
        client.messages.create(model="m", max_tokens=9, messages=[{"role": "system", "content": "x"}])  # type: ignore[list-item]
    assert anthropic_server.pending() == 1, "an invalid request must not consume a scripted reply"


def test_a_failing_handler_becomes_an_error_reply(anthropic_server: FakeAnthropicServer) -> None:
    def broken(request: dict[str, Any]) -> Any:
        raise KeyError("oops")

    anthropic_server.handler = broken
    with pytest.raises(anthropic.InternalServerError, match="KeyError"):
        sync_client(anthropic_server).messages.create(model="m", max_tokens=9, messages=USER_HI)


def test_streaming_yields_text_and_tool_use(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue("streamed words", tool_use_reply("calc", {"a": 1}))
    client = sync_client(anthropic_server)
    with client.messages.stream(model="m", max_tokens=50, messages=USER_HI) as stream:
        assert "".join(stream.text_stream) == "streamed words"
        assert stream.get_final_message().stop_reason == "end_turn"
    with client.messages.stream(model="m", max_tokens=50, messages=USER_HI) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    assert final.content[0].type == "tool_use" and final.content[0].input == {"a": 1}


def test_count_tokens_and_unknown_paths(anthropic_server: FakeAnthropicServer) -> None:
    client = sync_client(anthropic_server)
    counted = client.messages.count_tokens(model="m", messages=[{"role": "user", "content": "a" * 40}])
    assert counted.input_tokens >= 10
    with pytest.raises(anthropic.NotFoundError):
        client.models.list()


async def test_env_fixture_points_a_default_sdk_client_at_the_fake(
    anthropic_env: FakeAnthropicServer,
) -> None:
    anthropic_env.enqueue("from the environment")
    client = anthropic.AsyncAnthropic(max_retries=0)
    message = await client.messages.create(model="m", max_tokens=9, messages=USER_HI)
    assert message.content[0].text == "from the environment"
    assert anthropic_env.message_requests[0].headers["authorization"] == f"Bearer {FAKE_API_KEY}"
    await client.close()


def test_reset_forgets_scripts_and_requests(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue("a", FakeError(500))
    anthropic_server.fail_next(2)
    with pytest.raises(anthropic.RateLimitError):
        sync_client(anthropic_server).messages.create(model="m", max_tokens=9, messages=USER_HI)
    anthropic_server.reset()
    assert anthropic_server.pending() == 0 and anthropic_server.requests == []


def test_cut_off_and_unauthorized_replies_are_what_the_sdk_sees_from_the_real_api(
    anthropic_server: FakeAnthropicServer,
) -> None:
    anthropic_server.enqueue(cut_off_reply("```python\ndef eval_x(trace, ctx=None):\n    if"), unauthorized())
    client = sync_client(anthropic_server, max_retries=2)
    cut = client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=USER_HI)
    assert cut.stop_reason == "max_tokens" and cut.usage.output_tokens == 64
    assert cut.content[0].type == "text" and cut.content[0].text.endswith("    if")
    with pytest.raises(anthropic.AuthenticationError):
        client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=USER_HI)
    assert len(anthropic_server.message_requests) == 2, "a 401 is not retried"


async def test_a_gate_holds_the_reply_until_released(anthropic_server: FakeAnthropicServer) -> None:
    import asyncio

    gate = Gate(text_reply("at last"))
    anthropic_server.enqueue(gate)
    client = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, base_url=anthropic_server.base_url, max_retries=0)
    call = asyncio.create_task(client.messages.create(model="m", max_tokens=5, messages=USER_HI))
    assert await asyncio.to_thread(gate.arrived.wait, 10)
    await asyncio.sleep(0.05)
    assert not call.done(), "the reply must wait for release()"
    gate.release()
    assert (await asyncio.wait_for(call, 10)).content[0].text == "at last"
    await client.close()
