"""Trace importers: every format normalized to Trace, labels mapped, bad records reported by line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from agenteval.importers import (
    FORMATS,
    ImportResult,
    UnknownTraceFormat,
    detect_format,
    import_traces,
    normalize_label,
)
from agenteval.importers._labels import LabelError

LINE_FORMATS = [f for f in FORMATS if f != "inspect"]
"""Formats read record by record; an Inspect log is one whole file (test_inspect_logs.py)."""

DATA = Path(__file__).parent / "data"
FIXTURES = {
    "jsonl": "jsonl_traces.jsonl",
    "otlp": "otlp_traces.jsonl",
    "mlflow": "mlflow_traces.jsonl",
    "langfuse": "langfuse_traces.jsonl",
    "generic": "generic_traces.jsonl",
}


def fixture_bytes(fmt: str) -> bytes:
    return (DATA / FIXTURES[fmt]).read_bytes()


def fixture_lines(fmt: str) -> list[str]:
    return fixture_bytes(fmt).decode("utf-8").splitlines()


def by_id(result: ImportResult) -> dict[str, Any]:
    return {t.trace_id: t for t in result.traces}


def clean(result: ImportResult) -> ImportResult:
    assert result.problems == [], [str(p) for p in result.problems]
    return result


# -- jsonl (ours) --------------------------------------------------------------------------


def test_jsonl_fixture_imports_every_line_and_normalizes_labels() -> None:
    result = clean(import_traces(fixture_bytes("jsonl")))
    assert result.format == "jsonl"
    assert [t.label for t in result.traces] == ["positive", "negative", "positive", "negative"]
    first = by_id(result)["run-1/case-a/0"]
    assert (first.comment, first.rater, first.source_format) == ("used the right tool", "dana", "jsonl")
    assert first.trace.tool_calls[0].arguments == {"order_id": 55}
    assert first.trace.output == "Order 55 is cancelled."
    assert first.trace.metadata == {"agent_version": "1.2"}
    assert "run-1/case-b/0" in by_id(result), "trace_id is accepted as the id key"


def test_jsonl_usage_is_summed_from_steps_only_when_the_trace_has_none() -> None:
    traces = by_id(import_traces(fixture_bytes("jsonl")))
    summed = traces["run-1/case-a/0"].trace.usage
    assert (summed.input_tokens, summed.output_tokens) == (110, 22)
    assert summed.models == {"claude-sonnet-4": {"input_tokens": 110, "output_tokens": 22}}
    given = traces["run-1/case-b/0"].trace.usage
    assert (given.input_tokens, given.output_tokens) == (90, 5)


def test_jsonl_bare_trace_with_rating_alias_and_string_input() -> None:
    bare = import_traces(fixture_lines("jsonl")[2]).traces[0]
    assert bare.label == "positive"
    assert [m.model_dump() for m in bare.trace.input] == [{"role": "user", "content": "What is 2+2?"}]
    assert "rating" not in bare.trace.model_dump(), "import-record keys must not leak into the trace"


def test_jsonl_status_and_error_are_kept() -> None:
    timeout = import_traces(fixture_lines("jsonl")[3]).traces[0]
    assert timeout.trace.status == "timeout"
    assert timeout.trace.error is not None and timeout.trace.error.retryable


# -- otlp ----------------------------------------------------------------------------------


def test_otlp_groups_spans_by_trace_id_across_lines() -> None:
    result = clean(import_traces(fixture_bytes("otlp")))
    assert result.format == "otlp"
    assert [t.trace_id for t in result.traces] == [
        "5b8efff798038103d269b633813fc60c",
        "0af7651916cd43dd8448eb211c80319c",
        "4bf92f3577b34da6a3ce929d0e0e4736",
    ]
    # Trace A's chat span is on line 1, its tool span and second chat span on line 2.
    steps = result.traces[0].trace.steps
    assert [s.type for s in steps] == ["llm_call", "tool_call", "llm_call"]


def test_otlp_current_genai_convention_is_recovered() -> None:
    a = by_id(import_traces(fixture_bytes("otlp")))["5b8efff798038103d269b633813fc60c"]
    trace = a.trace
    assert (a.label, a.comment, a.rater) == ("positive", "accurate and polite", "bob")
    assert [m.content for m in trace.input] == ["Where is my order 8812?"]
    assert trace.output == "Order 8812 shipped on Monday and arrives Thursday."
    llm, tool, _ = trace.steps
    assert (llm.model, llm.input_tokens, llm.output_tokens, llm.latency_ms) == (
        "gpt-4o-2024-08-06",
        120,
        31,
        890.0,
    )
    assert (tool.name, tool.arguments, tool.result) == (
        "lookup_order",
        {"order_id": "8812"},
        {"status": "shipped", "eta": "Thursday"},
    )
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (300, 53)
    assert trace.latency_ms == 2400.0, "latency comes from the root span"
    source = trace.metadata["source"]
    assert source["resource"]["service.name"] == "support-bot"
    assert source["attributes"]["deployment.environment"] == "prod"
    assert "agenteval.label" not in source["attributes"]


def test_otlp_older_event_convention_and_tool_errors() -> None:
    b = by_id(import_traces(fixture_bytes("otlp")))["0af7651916cd43dd8448eb211c80319c"]
    trace = b.trace
    assert (b.label, b.comment) == ("negative", "made up a stock price")
    assert [(m.role, m.content) for m in trace.input] == [
        ("system", "You are a finance assistant."),
        ("user", "What is ACME trading at?"),
    ]
    tool, llm = trace.steps  # ordered by start time, not by file order
    assert (tool.name, tool.arguments, tool.error) == (
        "get_stock",
        {"symbol": "ACME"},
        "upstream quote service timed out",
    )
    assert (llm.input_tokens, llm.output_tokens) == (95, 40), "deprecated prompt/completion token names"
    assert trace.output == "ACME is trading at $412.50."
    assert trace.status == "ok"


def test_otlp_failed_root_span_and_tool_calls_recovered_from_model_output() -> None:
    c = by_id(import_traces(fixture_bytes("otlp")))["4bf92f3577b34da6a3ce929d0e0e4736"]
    trace = c.trace
    assert c.label is None
    assert trace.status == "error"
    assert trace.error is not None and trace.error.message == "RecursionError: agent exceeded 25 steps"
    assert trace.output is None
    (call,) = trace.tool_calls
    assert call.name == "run_sql"
    assert call.arguments == {"query": "SELECT count(*) FROM users WHERE created = today()"}
    assert call.result == {"rows": [[42]]}, "result matched by call id from the next model input"
    assert trace.metadata["tool_calls_recovered_from"] == "llm_output"


def test_otlp_fixture_is_structurally_valid_otlp() -> None:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    for line in fixture_lines("otlp"):
        json_format.Parse(line, ExportTraceServiceRequest())  # raises on unknown fields or wrong types


def test_otlp_protobuf_canonical_json_with_base64_ids_and_enum_names() -> None:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.trace.v1.trace_pb2 import Status

    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    trace_id = bytes(range(16))
    root = spans.add(trace_id=trace_id, span_id=b"\x01" * 8, name="invoke_agent", start_time_unix_nano=10**18)
    root.end_time_unix_nano = 10**18 + 5 * 10**6
    root.status.code = Status.STATUS_CODE_ERROR
    root.status.message = "boom"
    attr = root.attributes.add(key="gen_ai.input.messages")
    attr.value.string_value = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])
    attr = root.attributes.add(key="label")
    attr.value.bool_value = True
    tool = spans.add(
        trace_id=trace_id, span_id=b"\x02" * 8, parent_span_id=b"\x01" * 8, name="execute_tool x"
    )
    tool.start_time_unix_nano = 10**18 + 10**6
    tool.attributes.add(key="gen_ai.operation.name").value.string_value = "execute_tool"
    tool.attributes.add(key="gen_ai.tool.call.arguments").value.string_value = '{"n": 1}'

    for snake in (False, True):
        text = json_format.MessageToJson(request, preserving_proto_field_name=snake)
        result = clean(import_traces(text))
        (imported,) = result.traces
        assert imported.trace_id == trace_id.hex()
        assert imported.label == "positive"
        assert imported.trace.status == "error" and imported.trace.latency_ms == 5.0
        assert imported.trace.tool_calls[0].name == "x"
        assert imported.trace.tool_calls[0].arguments == {"n": 1}


def kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def test_otlp_openinference_spans_structured_values_and_partial_traces() -> None:
    parts = {
        "arrayValue": {
            "values": [
                {
                    "kvlistValue": {
                        "values": [kv("type", {"stringValue": "text"}), kv("content", {"stringValue": "hi"})]
                    }
                }
            ]
        }
    }
    message = {"kvlistValue": {"values": [kv("role", {"stringValue": "user"}), kv("parts", parts)]}}
    llm = {
        "traceId": "cd" * 16,
        "spanId": "02" * 8,
        "parentSpanId": "09" * 8,
        "name": "ChatOpenAI",
        "startTimeUnixNano": "1000000",
        "endTimeUnixNano": "2000000",
        "attributes": [
            kv("openinference.span.kind", {"stringValue": "LLM"}),
            kv("llm.model_name", {"stringValue": "gpt-4o"}),
            kv("llm.token_count.prompt", {"intValue": "7"}),
            kv("gen_ai.input.messages", {"arrayValue": {"values": [message]}}),
            kv("llm.output_messages.0.message.role", {"stringValue": "assistant"}),
            kv("llm.output_messages.0.message.content", {"stringValue": "found it"}),
        ],
    }
    tool = {
        "traceId": "cd" * 16,
        "spanId": "03" * 8,
        "parentSpanId": "09" * 8,
        "name": "search",
        "startTimeUnixNano": "2500000",
        "endTimeUnixNano": "4000000",
        "attributes": [
            kv("openinference.span.kind", {"stringValue": "TOOL"}),
            kv("tool.name", {"stringValue": "search"}),
            kv("input.value", {"stringValue": '{"q": "x"}'}),
            kv("output.value", {"stringValue": "a result"}),
        ],
    }
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [tool, llm]}]}]}
    (imported,) = clean(import_traces(json.dumps(doc))).traces
    trace = imported.trace
    assert [m.content for m in trace.input] == ["hi"]
    assert [(s.type, s.name) for s in trace.steps] == [("llm_call", None), ("tool_call", "search")]
    assert (trace.steps[0].model, trace.steps[0].input_tokens, trace.steps[0].content) == (
        "gpt-4o",
        7,
        "found it",
    )
    assert (trace.steps[1].arguments, trace.steps[1].result) == ({"q": "x"}, "a result")
    assert trace.latency_ms == 3.0, "without its root span a trace lasts from its first start to its last end"


def test_otlp_whole_pretty_printed_document() -> None:
    doc = json.loads(fixture_lines("otlp")[0])
    result = clean(import_traces(json.dumps(doc, indent=2)))
    assert result.format == "otlp"
    assert [t.trace_id for t in result.traces] == ["5b8efff798038103d269b633813fc60c"]


def test_otlp_span_without_trace_id_is_reported_and_the_rest_imported() -> None:
    lines = fixture_lines("otlp")
    doc = json.loads(lines[1])
    del doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]  # trace A's tool span
    lines[1] = json.dumps(doc)
    result = import_traces("\n".join(lines))
    (problem,) = result.problems
    assert problem.line == 2 and "traceId" in problem.reason and "execute_tool lookup_order" in problem.reason
    assert len(result.traces) == 3
    # Without its tool span, trace A's tool call is rebuilt from what the model asked for.
    trace = by_id(result)["5b8efff798038103d269b633813fc60c"].trace
    assert [(c.name, c.arguments, c.result) for c in trace.tool_calls] == [
        ("lookup_order", {"order_id": "8812"}, None)
    ]
    assert trace.metadata["tool_calls_recovered_from"] == "llm_output"


# -- mlflow --------------------------------------------------------------------------------


def test_mlflow_fixture_is_what_mlflow_itself_reads() -> None:
    from mlflow.entities import Trace as MlflowTrace

    for line in fixture_lines("mlflow"):
        assert MlflowTrace.from_json(line).info.trace_id.startswith("tr-")


def test_mlflow_traces_labels_steps_and_errors() -> None:
    result = clean(import_traces(fixture_bytes("mlflow")))
    assert result.format == "mlflow"
    weather, refund, broken = result.traces
    assert all(t.trace_id.startswith("tr-") for t in result.traces)

    assert (weather.label, weather.comment, weather.rater) == (
        "positive",
        "correct and brief",
        "alice@example.com",
    )
    assert [m.content for m in weather.trace.input] == ["What's the weather in Paris?"]
    assert weather.trace.output == "It is 21°C in Paris."
    assert [s.type for s in weather.trace.steps] == ["llm_call", "tool_call", "llm_call"]
    assert weather.trace.tool_calls[0].arguments == {"city": "Paris"}
    assert weather.trace.tool_calls[0].result == {"temp_c": 21, "city": "Paris"}
    assert (weather.trace.usage.input_tokens, weather.trace.usage.output_tokens) == (140, 29)
    others = {a["name"]: a for a in weather.trace.metadata["source"]["assessments"]}
    assert others["relevance"]["value"] == 0.9 and others["expected_response"]["kind"] == "expectation"

    assert (refund.label, refund.comment) == ("negative", "claims a refund that failed")
    assert refund.trace.tool_calls[0].error == "PermissionError: refund of 40.0 for A-17 needs approval"
    assert refund.trace.metadata["source"]["tags"] == {"team": "payments"}

    assert broken.label is None
    assert broken.trace.status == "error"
    assert (
        broken.trace.error is not None
        and broken.trace.error.message == "RuntimeError: context window exceeded"
    )
    assert broken.trace.tool_calls[0].name == "retrieve_docs", "retriever spans are tool calls"


def test_mlflow_json_array_export_reports_problems_by_record_index() -> None:
    records = [json.loads(line) for line in fixture_lines("mlflow")]
    records.insert(1, {"info": {"trace_id": "tr-x"}, "data": {"spans": "not a list"}})
    result = import_traces(json.dumps(records, indent=2))
    assert result.format == "mlflow"
    assert len(result.traces) == 3
    (problem,) = result.problems
    assert (problem.unit, problem.line) == ("record", 2)
    assert "spans" in problem.reason and str(problem).startswith("record 2: ")


def test_mlflow_newest_valid_human_feedback_is_the_label() -> None:
    record = json.loads(fixture_lines("mlflow")[0])

    def feedback(value: Any, source_type: str, when: str, valid: bool = True) -> dict[str, Any]:
        return {
            "assessment_name": "user_feedback",
            "source": {"source_type": source_type, "source_id": f"{source_type}-{when}"},
            "last_update_time": when,
            "feedback": {"value": value},
            "valid": valid,
        }

    record["info"]["assessments"] = [
        feedback("thumbs_down", "HUMAN", "2025-01-01T00:00:00Z"),
        feedback("thumbs_up", "HUMAN", "2025-01-02T00:00:00Z"),
        feedback("thumbs_down", "HUMAN", "2025-01-03T00:00:00Z", valid=False),  # overridden
        feedback(False, "LLM_JUDGE", "2025-01-04T00:00:00Z"),
    ]
    (trace,) = import_traces(json.dumps(record)).traces
    assert (trace.label, trace.rater) == ("positive", "HUMAN-2025-01-02T00:00:00Z")


# -- langfuse ------------------------------------------------------------------------------


def test_langfuse_traces_with_observations_and_scores() -> None:
    result = clean(import_traces(fixture_bytes("langfuse")))
    assert result.format == "langfuse"
    flights, banking, _ = result.traces

    assert (flights.trace_id, flights.label, flights.comment, flights.rater) == (
        "lf-trace-001",
        "positive",
        "found the right flight",
        "user_42",
    )
    assert [s.type for s in flights.trace.steps] == ["llm_call", "tool_call", "llm_call"]
    assert flights.trace.tool_calls[0].arguments == {"from": "SFO", "to": "JFK"}
    assert (flights.trace.usage.input_tokens, flights.trace.usage.output_tokens) == (530, 39)
    assert flights.trace.latency_ms == 3250.0
    source = flights.trace.metadata["source"]
    assert source["sessionId"] == "sess-9" and source["scores"][0]["name"] == "hallucination"

    assert (banking.label, banking.comment) == ("negative", "invented the balance")
    tool = banking.trace.tool_calls[0]
    assert (tool.name, tool.arguments, tool.error) == ("get_balance", {"args": ["acct-1"]}, "account locked")
    assert banking.trace.steps[0].input_tokens == 50, "legacy promptTokens usage"
    assert banking.trace.steps[0].content is None, "a tool_use block is not answer text"
    event = banking.trace.steps[-1]
    assert (event.type, event.name, event.content) == (
        "message",
        "guardrail-triggered",
        "answered without tool data",
    )
    assert banking.trace.output == "Your balance is $1,240."


def test_generic_trace_with_steps() -> None:
    generic = by_id(import_traces(fixture_bytes("langfuse")))["generic-003"]
    assert (generic.label, generic.comment, generic.rater) == ("positive", "short and right", "carol")
    assert [(s.type, s.name) for s in generic.trace.steps] == [
        ("message", None),
        ("tool_call", "get_weather"),
        ("llm_call", None),
    ]
    assert generic.trace.tool_calls[0].result == {"temp_c": -3}


def test_langfuse_api_page_shape() -> None:
    page = {
        "data": [json.loads(line) for line in fixture_lines("langfuse")],
        "meta": {"page": 1, "totalItems": 3},
    }
    result = clean(import_traces(json.dumps(page)))
    assert result.format == "langfuse"
    assert [t.trace_id for t in result.traces] == ["lf-trace-001", "lf-trace-002", "generic-003"]


# -- ids -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_importing_twice_gives_the_same_ids_and_traces(fmt: str) -> None:
    first, second = import_traces(fixture_bytes(fmt)), import_traces(fixture_bytes(fmt))
    assert [t.trace_id for t in first.traces] == [t.trace_id for t in second.traces]
    assert [t.trace for t in first.traces] == [t.trace for t in second.traces]
    assert len({t.trace_id for t in first.traces}) == len(first.traces)


def test_traces_without_a_source_id_get_a_content_hash() -> None:
    line = {"label": "good", "trace": {"input": [{"role": "user", "content": "hi"}], "output": "hello"}}
    one = import_traces(json.dumps(line)).traces[0].trace_id
    relabeled = import_traces(json.dumps({**line, "label": "bad", "comment": "rude"})).traces[0].trace_id
    changed = (
        import_traces(json.dumps({**line, "trace": {**line["trace"], "output": "hey"}})).traces[0].trace_id
    )
    assert len(one) == 32 and int(one, 16) >= 0
    assert one == relabeled, "the id depends on the trace, not on its label"
    assert one != changed


def test_the_same_trace_twice_in_a_file_is_imported_once_with_the_later_label() -> None:
    line = {"trace": {"input": [{"role": "user", "content": "hi"}], "output": "hello"}}
    text = "\n".join(json.dumps({**line, "label": label}) for label in ("good", "bad"))
    result = import_traces(text)
    assert [t.label for t in result.traces] == ["negative"]
    (problem,) = result.problems
    assert problem.line == 1 and "line 2" in problem.reason


# -- broken input --------------------------------------------------------------------------

WRONG_SHAPE = {
    "jsonl": '{"trace": {"steps": [{"type": "thinking"}]}, "label": "good"}',
    "otlp": '{"resourceSpans": "nope"}',
    "mlflow": '{"info": {"trace_id": "tr-1"}, "data": {"spans": [42]}}',
    "langfuse": '{"id": "x", "observations": {"not": "a list"}}',
    "generic": '{"id": "row-9", "trace_id": "ext-9", "steps": "[{\\"type\\": \\"llm\\",", "raw_data": {}}',
}


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_broken_lines_are_reported_by_number_and_the_rest_imported(fmt: str) -> None:
    good = fixture_lines(fmt)
    lines = [good[0], '{"trace": oops', *good[1:], WRONG_SHAPE[fmt], ""]
    result = import_traces("\n".join(lines).encode(), format="auto")
    assert result.format == fmt
    assert len(result.traces) == len(clean(import_traces(fixture_bytes(fmt))).traces)
    assert [p.line for p in result.problems] == [2, len(good) + 2]
    assert "not valid JSON" in result.problems[0].reason
    assert all(p.reason and "\n" not in p.reason for p in result.problems)


def test_unreadable_label_is_reported_with_the_accepted_spellings() -> None:
    lines = ['{"trace": {"output": "a"}, "label": "maybe"}', '{"trace": {"output": "b"}, "label": "bad"}']
    result = import_traces("\n".join(lines))
    assert [t.label for t in result.traces] == ["negative"]
    (problem,) = result.problems
    assert problem.line == 1 and "'maybe'" in problem.reason and "positive/negative" in problem.reason


def test_wrong_field_types_name_the_field() -> None:
    result = import_traces(
        '{"trace": {"output": "a", "latency_ms": "slow"}}\n{"id": ["x"], "trace": {"output": "b"}}'
    )
    assert result.traces == []
    first, second = result.problems
    assert first.line == 1 and "trace.latency_ms" in first.reason
    assert second.line == 2 and "'id'" in second.reason


def test_a_record_with_nothing_in_it_is_a_problem() -> None:
    result = import_traces('{"trace": {}, "label": "good"}', format="jsonl")
    assert result.traces == [] and "nothing to import" in result.problems[0].reason


@pytest.mark.parametrize(
    "record",
    [
        {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5, "name": 3}]}]}]},
        {
            "resourceSpans": [
                {"resource": "x", "scopeSpans": [{"spans": [None, {"traceId": "ab", "status": 3}]}]}
            ]
        },
        {"info": {"trace_id": 1, "assessments": "x", "tags": []}, "data": {"spans": [{"attributes": []}]}},
        {"info": {"trace_id": "t", "assessments": [{"assessment_name": "label", "feedback": {"value": 7}}]}},
        {"id": "x", "observations": [1, {"type": 3, "startTime": "yesterday"}], "scores": "x", "input": {}},
        {"id": "x", "observations": [{"type": "GENERATION", "usage": "lots", "output": {"choices": [None]}}]},
        {"trace": {"input": [{"role": "robot"}]}},
        [1, 2, 3],
        "just a string",
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_odd_records_never_crash_an_import(fmt: str, record: Any) -> None:
    result = import_traces(json.dumps(record), format=fmt)
    assert result.format == fmt
    assert result.traces or result.problems


# -- detection and whole-file problems -----------------------------------------------------


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_detect_format_of_each_fixture(fmt: str) -> None:
    assert detect_format(fixture_bytes(fmt)) == fmt


def test_detect_tells_our_steps_from_generic_steps() -> None:
    ours = {"steps": [{"type": "tool_call", "name": "a", "arguments": {}}], "label": 1}
    generic = {"steps": [{"type": "tool", "name": "a", "input": {}}], "label": 1}
    assert detect_format(json.dumps(ours)) == "jsonl"
    assert detect_format(json.dumps(generic)) == "langfuse"
    assert detect_format("") == "unknown"
    assert detect_format('{"hello": "world"}') == "unknown"


def test_detection_skips_a_broken_first_line() -> None:
    text = "not json\n" + fixture_lines("mlflow")[0]
    result = import_traces(text)
    assert result.format == "mlflow" and len(result.traces) == 1 and result.problems[0].line == 1


@pytest.mark.parametrize(
    ("data", "says"),
    [(b"", "empty"), ("  \n\n \r\n", "empty"), ("[]", "no traces"), ('{"data": []}', "no traces")],
)
def test_empty_file_is_a_problem(data: bytes | str, says: str) -> None:
    result = import_traces(data)
    assert result.traces == []
    (problem,) = result.problems
    assert problem.unit == "file" and says in str(problem)


@pytest.mark.parametrize("text", ["id,label\n1,good\n", '{"hello": "world"}', "[1, 2, 3]"])
def test_unknown_format_is_an_error_listing_the_accepted_formats(text: str) -> None:
    with pytest.raises(UnknownTraceFormat) as caught:
        import_traces(text)
    message = str(caught.value)
    assert all(name in message for name in FORMATS)


def test_unknown_format_name_is_rejected() -> None:
    with pytest.raises(UnknownTraceFormat, match="'csv'"):
        import_traces("{}", format="csv")  # type: ignore[arg-type]


def test_broken_pretty_printed_json_is_one_problem_at_the_right_line() -> None:
    records = [json.loads(line) for line in fixture_lines("langfuse")]
    text = json.dumps(records, indent=2)
    broken_at = text.index('"sessionId"')
    text = text[:broken_at] + text[broken_at:].replace(",", "", 1)  # drop one comma
    result = import_traces(text)
    (problem,) = result.problems
    assert result.traces == []
    assert "not valid JSON" in problem.reason
    assert problem.line == text[:broken_at].count("\n") + 2


def test_non_utf8_line_is_a_problem_and_the_rest_imported() -> None:
    lines = fixture_bytes("jsonl").split(b"\n")
    lines[1] = lines[1].replace(b"wrong order", b"wrong \xff order")
    result = import_traces(b"\n".join(lines))
    assert len(result.traces) == 3
    (problem,) = result.problems
    assert problem.line == 2 and "UTF-8" in problem.reason and "0xff" in problem.reason


def test_binary_file_is_one_problem_not_a_crash() -> None:
    result = import_traces(bytes(range(256)) * 10)
    assert result.traces == []
    (problem,) = result.problems
    assert "UTF-8" in problem.reason


def test_utf16_and_gzip_files_are_read() -> None:
    text = fixture_bytes("langfuse").decode("utf-8")
    expected = [t.trace_id for t in import_traces(text).traces]
    assert [t.trace_id for t in clean(import_traces(text.encode("utf-16"))).traces] == expected
    assert [t.trace_id for t in clean(import_traces(gzip.compress(text.encode()))).traces] == expected
    assert [t.trace_id for t in clean(import_traces(b"\xef\xbb\xbf" + text.encode())).traces] == expected


def test_forcing_the_wrong_format_reports_each_record() -> None:
    result = import_traces(fixture_bytes("mlflow"), format="otlp")
    assert result.traces == []
    assert [p.line for p in result.problems] == [1, 2, 3]
    assert all("resourceSpans" in p.reason for p in result.problems)


def test_huge_fields_are_kept_whole() -> None:
    answer = "x" * 5_000_000
    line = json.dumps(
        {"label": "good", "trace": {"input": [{"role": "user", "content": "go"}], "output": answer}}
    )
    (trace,) = import_traces(line).traces
    assert trace.trace.output == answer


# -- labels --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("positive", "positive"), ("Good", "positive"), ("thumbs-up", "positive"), ("👍", "positive"),
        (True, "positive"), (1, "positive"), (1.0, "positive"), ("1", "positive"), ("True", "positive"),
        ("negative", "negative"), ("BAD", "negative"), ("thumbs_down", "negative"), (False, "negative"),
        (0, "negative"), ("0", "negative"), (-1, "negative"), ("fail", "negative"),
        (None, None), ("", None),
    ],
)  # fmt: skip
def test_label_spellings(value: Any, expected: str | None) -> None:
    assert normalize_label(value) == expected


@pytest.mark.parametrize("value", ["maybe", 0.5, 5, ["good"], {"v": 1}])
def test_unreadable_labels_raise(value: Any) -> None:
    with pytest.raises(LabelError):
        normalize_label(value)
