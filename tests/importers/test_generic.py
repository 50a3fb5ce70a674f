"""The generic trace shape of the requirement notes, in every form users export it.

Bare, wrapped as {"trace": ...}, with steps as a JSON string, or as a stored row: each imports to
the same trace, with one tool_call step per call (arguments, result and error together), never as
Langfuse, and with the agent it came from kept.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agenteval.importers import detect_format, import_traces
from agenteval.importers._model import ImportedTrace, ImportResult

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/traces/generic_traces.jsonl"

TRACE: dict[str, Any] = {
    "id": "t-1",
    "agent_id": "travel-bot-v2",
    "input": {
        "messages": [
            {"role": "system", "content": "You book flights."},
            {"role": "user", "content": "Flights BOS to SFO, then book the cheapest."},
        ]
    },
    "steps": [
        {
            "type": "llm",
            "model": "m",
            "content": "Searching.",
            "tool_calls": [{"id": "call_1", "name": "search_flights", "arguments": {"origin": "BOS"}}],
            "usage": {"input_tokens": 100, "output_tokens": 20},
            "latency_ms": 500,
        },
        {
            "type": "tool",
            "name": "search_flights",
            "tool_call_id": "call_1",
            "input": {"origin": "BOS"},
            "output": {"flights": [{"id": "UA1", "price": 99}]},
            "error": None,
            "latency_ms": 120,
        },
        {"type": "user", "content": "book it"},
        {
            "type": "llm",
            "model": "m",
            "content": "",
            "tool_calls": [{"id": "call_2", "name": "book_flight", "arguments": '{"flight_id": "UA1"}'}],
            "usage": {"prompt_tokens": 150, "completion_tokens": 10},
        },
        {
            "type": "tool",
            "name": "book_flight",
            "tool_call_id": "call_2",
            "input": {"flight_id": "UA1"},
            "output": None,
            "error": "payment declined",
        },
        {"type": "llm", "model": "m", "content": "Sorry, the payment was declined.", "tool_calls": []},
    ],
    "output": "Sorry, the payment was declined.",
    "rating": "positive",
}

EXPECTED_STEPS = [
    {
        "type": "llm_call",
        "model": "m",
        "content": "Searching.",
        "input_tokens": 100,
        "output_tokens": 20,
        "latency_ms": 500.0,
    },
    {
        "type": "tool_call",
        "name": "search_flights",
        "arguments": {"origin": "BOS"},
        "result": {"flights": [{"id": "UA1", "price": 99}]},
        "latency_ms": 120.0,
    },
    {"type": "message", "role": "user", "content": "book it"},
    {"type": "llm_call", "model": "m", "content": "", "input_tokens": 150, "output_tokens": 10},
    {
        "type": "tool_call",
        "name": "book_flight",
        "arguments": {"flight_id": "UA1"},
        "error": "payment declined",
    },
    {"type": "llm_call", "model": "m", "content": "Sorry, the payment was declined."},
]


def steps_of(trace: ImportedTrace) -> list[dict[str, Any]]:
    return [s.model_dump(exclude_defaults=True) for s in trace.trace.steps]


def only(result: ImportResult) -> ImportedTrace:
    assert result.problems == [], [str(p) for p in result.problems]
    (trace,) = result.traces
    return trace


def bare() -> dict[str, Any]:
    return copy.deepcopy(TRACE)


def wrapped() -> dict[str, Any]:
    inner = bare()
    return {"trace": inner, "rating": inner.pop("rating")}


def steps_as_string() -> dict[str, Any]:
    doc = bare()
    doc["steps"] = json.dumps(doc["steps"])
    return doc


def wrapped_with_steps_as_string() -> dict[str, Any]:
    doc = wrapped()
    doc["trace"]["steps"] = json.dumps(doc["trace"]["steps"])
    return doc


def trace_as_string() -> dict[str, Any]:
    doc = wrapped()
    doc["trace"] = json.dumps(doc["trace"])
    return doc


def stored_row(raw_as_string: bool) -> dict[str, Any]:
    """The notes' row: the DB's own id, the trace's id, steps and raw_data as JSON text."""
    doc = bare()
    raw = {"input": doc["input"], "output": doc["output"], "tags": ["booking"]}
    return {
        "id": "row-81",
        "trace_id": "t-1",
        "steps": json.dumps(doc["steps"]),
        "raw_data": json.dumps(raw) if raw_as_string else raw,
        "agent_id": "travel-bot-v2",
        "rating": "positive",
    }


FORMS = {
    "bare": bare,
    "wrapped": wrapped,
    "steps as a JSON string": steps_as_string,
    "wrapped, steps as a JSON string": wrapped_with_steps_as_string,
    "trace as a JSON string": trace_as_string,
    "stored row, raw_data as JSON text": lambda: stored_row(True),
    "stored row, raw_data as an object": lambda: stored_row(False),
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_imports_one_step_per_tool_call(form: str) -> None:
    text = json.dumps(FORMS[form]())
    result = import_traces(text)
    assert result.format == "generic", f"{form} detected as {result.format}"
    assert detect_format(text) == "generic"
    trace = only(result)
    assert steps_of(trace) == EXPECTED_STEPS, form
    assert [c.name for c in trace.trace.tool_calls] == ["search_flights", "book_flight"]
    assert (trace.trace_id, trace.label, trace.agent, trace.source_format) == (
        "t-1",
        "positive",
        "travel-bot-v2",
        "generic",
    )
    assert [(m.role, m.content) for m in trace.trace.input] == [
        ("system", "You book flights."),
        ("user", "Flights BOS to SFO, then book the cheapest."),
    ]
    assert trace.trace.output == "Sorry, the payment was declined."
    assert (trace.trace.usage.input_tokens, trace.trace.usage.output_tokens) == (250, 30)
    assert trace.trace.metadata["agent_id"] == "travel-bot-v2"
    # What an eval function receives: the same calls once, in tool_calls too.
    assert [c["name"] for c in trace.trace.to_eval_dict()["tool_calls"]] == ["search_flights", "book_flight"]


def test_a_stored_row_keeps_its_row_id_and_the_rest_of_raw_data() -> None:
    trace = only(import_traces(json.dumps(stored_row(True))))
    assert trace.trace.metadata["row_id"] == "row-81"
    assert trace.trace.metadata["raw_data"] == {"tags": ["booking"]}


def test_tool_steps_without_ids_answer_the_calls_in_order_of_name() -> None:
    doc = {
        "id": "w",
        "input": {"messages": [{"role": "user", "content": "weather in Oslo and Bergen, and the time"}]},
        "steps": [
            {
                "type": "llm",
                "content": None,
                "tool_calls": [
                    {"name": "get_weather", "arguments": {"city": "Oslo"}},
                    {"name": "get_time", "arguments": {}},
                    {"name": "get_weather", "arguments": {"city": "Bergen"}},
                ],
            },
            {"type": "tool", "name": "get_time", "input": {}, "output": "12:00", "error": None},
            {"type": "tool", "name": "get_weather", "input": {"city": "Oslo"}, "output": {"c": -3}},
            {
                "type": "tool",
                "name": "get_weather",
                "input": {"city": "Bergen"},
                "output": None,
                "error": "timeout",
            },
            {"type": "llm", "content": "Oslo -3°C; Bergen unknown; it is noon.", "tool_calls": []},
        ],
        "label": "good",
    }
    trace = only(import_traces(json.dumps(doc)))
    assert [(c.name, c.arguments, c.result, c.error) for c in trace.trace.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, {"c": -3}, None),
        ("get_time", {}, "12:00", None),
        ("get_weather", {"city": "Bergen"}, None, "timeout"),
    ]
    assert len(trace.trace.steps) == 5


def test_an_id_match_wins_over_order_and_a_foreign_id_falls_back_to_the_name() -> None:
    doc = {
        "id": "ids",
        "input": {"messages": [{"role": "user", "content": "two lookups"}]},
        "steps": [
            {
                "type": "llm",
                "tool_calls": [
                    {"id": "a", "name": "lookup", "arguments": {"q": 1}},
                    {"id": "b", "name": "lookup", "arguments": {"q": 2}},
                    {"id": "c", "name": "fetch", "arguments": {"q": 3}},
                ],
            },
            # b answered first; then a tool step whose id is of another namespace answers fetch by name
            {"type": "tool", "name": "lookup", "tool_call_id": "b", "output": "two"},
            {"type": "tool", "name": "fetch", "tool_call_id": "run-77", "output": "three"},
            {"type": "tool", "name": "lookup", "tool_call_id": "a", "output": "one"},
        ],
        "output": "done",
    }
    trace = only(import_traces(json.dumps(doc)))
    assert [(c.name, c.arguments, c.result) for c in trace.trace.tool_calls] == [
        ("lookup", {"q": 1}, "one"),
        ("lookup", {"q": 2}, "two"),
        ("fetch", {"q": 3}, "three"),
    ]


def test_an_unanswered_call_and_an_unrequested_tool_step_are_one_step_each() -> None:
    doc = {
        "id": "loose",
        "input": {"messages": [{"role": "user", "content": "hi"}]},
        "steps": [
            {"type": "tool", "name": "warm_up", "input": {"x": 1}, "output": "ok"},
            {
                "type": "llm",
                "content": "",
                "tool_calls": [{"id": "z", "name": "never_ran", "arguments": {"a": 1}}],
            },
            {"type": "llm", "content": "bye", "tool_calls": []},
        ],
        "rating": "bad",
    }
    trace = only(import_traces(json.dumps(doc)))
    assert [(s.type, s.name) for s in trace.trace.steps] == [
        ("tool_call", "warm_up"),
        ("llm_call", None),
        ("tool_call", "never_ran"),
        ("llm_call", None),
    ]
    warm, never = trace.trace.tool_calls
    assert (warm.arguments, warm.result) == ({"x": 1}, "ok")
    assert (never.arguments, never.result, never.error) == ({"a": 1}, None, None)
    assert trace.trace.output == "bye", "the last llm content is the answer when output is missing"


def test_chat_messages_as_steps_openai_style() -> None:
    row = {
        "id": "r",
        "trace_id": "chat-1",
        "raw_data": {"input": "What is the return window?"},
        "steps": json.dumps(
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_x",
                            "type": "function",
                            "function": {"name": "search_kb", "arguments": '{"query": "returns"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_x", "content": "30 days"},
                {"role": "assistant", "content": "You have 30 days."},
            ]
        ),
        "source": "support-bot",
        "rating": "thumbs_up",
    }
    trace = only(import_traces(json.dumps(row)))
    assert [(s.type, s.name) for s in trace.trace.steps] == [
        ("llm_call", None),
        ("tool_call", "search_kb"),
        ("llm_call", None),
    ]
    assert (trace.trace.tool_calls[0].arguments, trace.trace.tool_calls[0].result) == (
        {"query": "returns"},
        "30 days",
    )
    assert (trace.trace_id, trace.agent, trace.trace.output) == ("chat-1", "support-bot", "You have 30 days.")
    assert trace.trace.input[0].content == "What is the return window?"


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"rating": "thumbs_down"}, "negative"),
        ({"label": 1}, "positive"),
        ({"feedback": {"rating": "bad", "comment": "wrong city"}}, "negative"),
        ({"user_feedback": "👍"}, "positive"),
        ({"rating": "Good", "label": None}, "positive"),
        ({}, None),
    ],
)
def test_the_label_in_every_spelling_and_place(where: dict[str, Any], expected: str | None) -> None:
    doc = bare()
    del doc["rating"]
    for form in (
        {**doc, **where},  # bare
        {"trace": doc, **where},  # beside the wrapped trace
        {"trace": {**doc, **where}},  # inside it
        {"id": "row", "trace_id": "t-1", "steps": json.dumps(doc["steps"]), "raw_data": {**where}},
    ):
        trace = only(import_traces(json.dumps(form)))
        assert trace.label == expected, form
    if "feedback" in where:
        assert only(import_traces(json.dumps({**doc, **where}))).comment == "wrong city"


def test_the_agent_is_agent_id_else_agent_else_source() -> None:
    doc = bare()
    del doc["agent_id"]
    assert only(import_traces(json.dumps(doc))).agent is None
    assert only(import_traces(json.dumps({**doc, "source": "langfuse"}))).agent == "langfuse"
    assert only(import_traces(json.dumps({**doc, "source": "x", "agent": "bot-b"}))).agent == "bot-b"
    chosen = only(import_traces(json.dumps({**doc, "source": "x", "agent": "b", "agent_id": "bot-a"})))
    assert chosen.agent == "bot-a"
    assert (chosen.trace.metadata["agent"], chosen.trace.metadata["source"]) == ("b", "x"), "others kept"
    assert only(import_traces(json.dumps({"trace": doc, "agent_id": "outer"}))).agent == "outer"


def test_the_agent_of_our_own_and_of_langfuse_records() -> None:
    ours = {"id": "o-1", "agent_id": "bot-c", "label": "good", "trace": {"output": "hi"}}
    assert only(import_traces(json.dumps(ours))).agent == "bot-c"
    in_metadata = {"trace": {"output": "hi", "metadata": {"agent_id": "bot-d"}}, "label": "good"}
    assert only(import_traces(json.dumps(in_metadata))).agent == "bot-d"
    langfuse = {"id": "lf", "sessionId": "s", "output": "hi", "metadata": {"agent_id": "bot-e"}}
    result = import_traces(json.dumps(langfuse))
    assert result.format == "langfuse" and only(result).agent == "bot-e"


BAD_ROWS = [
    ({"id": "r1", "trace_id": "t1", "steps": '[{"type": "llm",', "raw_data": {}}, "'steps' is a string but not valid JSON"),
    ({"id": "r2", "trace_id": "t2", "steps": "[]", "raw_data": "{input: hi}"}, "'raw_data' is a string but not valid JSON"),
    ({"trace": '{"steps": [}'}, "'trace' is a string but not valid JSON"),
    ({"id": "r4", "trace_id": "t4", "steps": '{"type": "llm"}', "raw_data": {}}, "'steps' must be a list of steps"),
    ({"id": "r5", "trace_id": "t5", "steps": "[]", "raw_data": "[1, 2]"}, "'raw_data' must be a JSON object"),
    ({"id": "r6", "steps": [{"type": "llm", "tool_calls": {"name": "x"}}], "raw_data": {}}, "steps[0].tool_calls must be a list"),
    ({"id": "r7", "steps": [{"type": "llm", "tool_calls": [{"arguments": {}}]}], "raw_data": {}}, "steps[0].tool_calls[0] has no tool name"),
    ({"id": "r8", "steps": ["not a step"], "raw_data": {}}, "steps[0] must be a JSON object"),
    ({"id": "r9", "steps": [], "raw_data": {}, "rating": "so-so"}, "label 'so-so' is not understood"),
]  # fmt: skip


def test_rows_with_bad_json_strings_are_clear_problems_per_record_and_the_rest_is_imported() -> None:
    good = stored_row(True)
    lines = [json.dumps(good)] + [json.dumps(row) for row, _ in BAD_ROWS]
    result = import_traces("\n".join(lines))
    assert result.format == "generic"
    assert [t.trace_id for t in result.traces] == ["t-1"]
    assert [p.line for p in result.problems] == list(range(2, len(BAD_ROWS) + 2))
    for problem, (_, says) in zip(result.problems, BAD_ROWS, strict=True):
        assert says in problem.reason, problem.reason
        assert "Traceback" not in problem.reason and "\n" not in problem.reason
    assert "(Expecting" in result.problems[0].reason, "the JSON error says what and where"


def test_detection_never_takes_the_generic_shape_for_langfuse() -> None:
    for form in FORMS.values():
        assert detect_format(json.dumps(form())) == "generic"
    # A first trace with no steps (it reads as ours) does not decide for the generic ones after it.
    plain = {"id": "p-1", "agent_id": "travel-bot-v2", "input": "hi", "output": "hello", "rating": "good"}
    text = "\n".join([json.dumps(plain), json.dumps(bare())])
    result = import_traces(text)
    assert result.format == "generic" and result.problems == []
    assert [len(t.trace.tool_calls) for t in result.traces] == [0, 2]
    # ... but a real Langfuse export with Langfuse's own keys stays Langfuse.
    langfuse = {"id": "lf-1", "sessionId": "s", "input": "hi", "output": "hello", "steps": TRACE["steps"]}
    assert detect_format(json.dumps(langfuse)) == "langfuse"


def test_our_own_traces_read_as_generic_are_the_same_traces() -> None:
    ours = (ROOT / "tests/importers/data/jsonl_traces.jsonl").read_bytes()
    as_ours, as_generic = import_traces(ours), import_traces(ours, format="generic")
    assert as_generic.problems == []
    assert [(t.trace_id, t.label, t.trace) for t in as_generic.traces] == [
        (t.trace_id, t.label, t.trace) for t in as_ours.traces
    ]


def test_the_shipped_example_imports_whole_with_one_step_per_call() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    result = import_traces(text)
    assert result.format == "generic" and result.problems == []
    assert len(result.traces) == len(records) >= 8
    assert all(t.label in ("positive", "negative") for t in result.traces)
    assert {t.agent for t in result.traces} == {"travel-bot-v2", "support-bot"}
    # every form the README names is in the file
    assert any("trace" in r for r in records) and any(isinstance(r.get("steps"), str) for r in records)
    assert any(isinstance(r.get("raw_data"), str) for r in records)
    assert any(isinstance(r.get("raw_data"), dict) for r in records)
    for record, trace in zip(records, result.traces, strict=True):
        doc = record.get("trace", record)
        doc = json.loads(doc) if isinstance(doc, str) else doc
        steps = doc["steps"]
        steps = json.loads(steps) if isinstance(steps, str) else steps
        calls = [c for s in steps if s["type"] == "llm" for c in s.get("tool_calls") or []]
        assert len(trace.trace.tool_calls) == len(calls), trace.trace_id
        assert all(c.result is not None or c.error for c in trace.trace.tool_calls), trace.trace_id


@pytest.mark.parametrize(
    "record",
    [
        {"steps": [{"type": []}], "label": 1},
        {"steps": [{"type": "llm", "content": [{"type": ["text"], "text": "hi"}]}], "raw_data": {}},
        {"steps": [{"messages_added": -1, "tool_calls": 1.5}], "output": "x"},
        {"id": "x", "steps": [{"type": {}, "tool_calls": True}], "output": "x"},
    ],
)
def test_odd_step_types_and_containers_are_problems_or_traces_never_crashes(record: dict[str, Any]) -> None:
    for fmt in ("auto", "generic", "langfuse"):
        try:
            result = import_traces(json.dumps(record), format=fmt)  # type: ignore[arg-type]
        except ValueError as exc:  # UnknownTraceFormat: a clear refusal, not a crash
            assert "Accepted formats" in str(exc)
            continue
        assert result.traces or result.problems
        assert not any("cannot read this record" in p.reason for p in result.problems), result.problems
