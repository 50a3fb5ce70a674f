"""Regenerate ``mlflow_traces.jsonl`` from real MLflow tracing (not run by the tests).

Run from a scratch directory (it creates an SQLite tracking store there):
    MLFLOW_ENABLE_ASYNC_TRACE_LOGGING=false python tests/importers/data/make_mlflow_traces.py OUT
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mlflow
from mlflow.entities import AssessmentSource, SpanType
from mlflow.tracing.constant import SpanAttributeKey

REPO = str(Path(__file__).resolve().parents[3])
HUMAN = AssessmentSource(source_type="HUMAN", source_id="alice@example.com")
JUDGE = AssessmentSource(source_type="LLM_JUDGE", source_id="gpt-judge")


@mlflow.trace(span_type=SpanType.TOOL)
def get_weather(city: str) -> dict:
    return {"temp_c": 21, "city": city}


@mlflow.trace(span_type=SpanType.TOOL)
def issue_refund(order_id: str, amount: float) -> dict:
    raise PermissionError(f"refund of {amount} for {order_id} needs approval")


def _chat(messages: list[dict], content: str, tool_calls: list[dict] | None, tokens: tuple[int, int]) -> None:
    with mlflow.start_span(name="ChatCompletion", span_type=SpanType.CHAT_MODEL) as span:
        span.set_inputs({"messages": messages, "model": "gpt-4o-mini", "temperature": 0})
        message: dict = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        span.set_outputs(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
                ],
                "usage": {
                    "prompt_tokens": tokens[0],
                    "completion_tokens": tokens[1],
                    "total_tokens": sum(tokens),
                },
            }
        )
        # What MLflow's OpenAI autolog records on chat spans.
        span.set_attribute(
            SpanAttributeKey.CHAT_USAGE,
            {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)},
        )
        span.set_attribute(SpanAttributeKey.MESSAGE_FORMAT, "openai")


def _call(name: str, arguments: dict) -> dict:
    return {
        "id": f"call_{name}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@mlflow.trace(name="weather_agent", span_type=SpanType.AGENT)
def weather_agent(question: str) -> str:
    messages = [
        {"role": "system", "content": "You answer weather questions."},
        {"role": "user", "content": question},
    ]
    _chat(messages, "", [_call("get_weather", {"city": "Paris"})], (52, 17))
    weather = get_weather("Paris")
    _chat(messages, f"It is {weather['temp_c']}°C in Paris.", None, (88, 12))
    return f"It is {weather['temp_c']}°C in Paris."


@mlflow.trace(name="refund_agent", span_type=SpanType.AGENT)
def refund_agent(request: dict) -> str:
    messages = [{"role": "user", "content": request["message"]}]
    _chat(messages, "", [_call("issue_refund", {"order_id": "A-17", "amount": 40.0})], (40, 20))
    try:
        issue_refund("A-17", 40.0)
    except PermissionError:
        pass
    _chat(messages, "Your refund has been issued.", None, (70, 9))
    return "Your refund has been issued."


@mlflow.trace(name="broken_agent", span_type=SpanType.AGENT)
def broken_agent(question: str) -> str:
    with mlflow.start_span(name="retrieve_docs", span_type=SpanType.RETRIEVER) as span:
        span.set_inputs({"query": question})
        span.set_outputs([{"page_content": "Returns are accepted for 30 days.", "metadata": {"doc": "faq"}}])
    raise RuntimeError("context window exceeded")


def main(out_path: str) -> None:
    mlflow.set_tracking_uri("sqlite:///mlflow.db")
    mlflow.set_experiment("importer-fixtures")
    trace_ids = []

    weather_agent("What's the weather in Paris?")
    trace_ids.append(tid := mlflow.get_last_active_trace_id())
    mlflow.log_feedback(
        trace_id=tid, name="user_feedback", value=True, source=HUMAN, rationale="correct and brief"
    )
    mlflow.log_feedback(trace_id=tid, name="relevance", value=0.9, source=JUDGE, rationale="on topic")
    mlflow.log_expectation(trace_id=tid, name="expected_response", value="21°C in Paris", source=HUMAN)

    refund_agent({"message": "Please refund order A-17", "user_id": "u-9"})
    trace_ids.append(tid := mlflow.get_last_active_trace_id())
    mlflow.log_feedback(
        trace_id=tid,
        name="rating",
        value="thumbs_down",
        source=HUMAN,
        rationale="claims a refund that failed",
    )
    mlflow.set_trace_tag(tid, "team", "payments")

    try:
        broken_agent("What is the return policy?")
    except RuntimeError:
        pass
    trace_ids.append(mlflow.get_last_active_trace_id())

    with open(out_path, "w", encoding="utf-8") as f:
        for tid in trace_ids:
            text = mlflow.get_trace(tid).to_json()
            # Keep local paths of the machine that generated the file out of the fixture.
            for local, placeholder in ((sys.prefix, "/venv"), (os.getcwd(), "/scratch"), (REPO, "/repo")):
                text = text.replace(local, placeholder)
            f.write(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
