"""Traces and suites survive the trip through protobuf exactly, bytes on the wire included.

Property-based: hypothesis draws varied traces and suites (unicode, big integers, None next to
empty values, fields beyond the declared ones, step fields outside their kind) and every one
must come back equal, with every integer still an int and every float still a float.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenteval.contracts import pb
from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.evals import (
    EvalCandidate,
    EvalInfo,
    EvalSplit,
    GenerationEvent,
    GenerationJob,
    GenerationRequest,
    GenerationUsage,
)
from agenteval.contracts.events import GradeRecord
from agenteval.contracts.records import RunInfo, TrialRecord
from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.contracts.trace import Message, Step, Trace, TrialError, Usage
from agenteval.v1 import eval_generator_pb2, suite_pb2, trace_pb2

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# JSON cannot hold lone surrogates; everything else of unicode is fair game.
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
ints = st.integers(min_value=-(2**70), max_value=2**70)
floats = st.floats(allow_nan=False, allow_infinity=False)
int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
counts = st.integers(min_value=0, max_value=2**63 - 1)  # token counts: never negative
json_values = st.recursive(
    st.none() | st.booleans() | ints | floats | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(text, json_values, max_size=4)


def extras(model: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Fields a model with extra="allow" does not declare."""
    names = st.sampled_from(["span_id", "ünïcode", "x", "source", "日本", "kind_of"]).filter(
        lambda n: n not in model.model_fields
    )
    return st.dictionaries(names, json_values, max_size=3)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    return Message.model_validate({**draw(extras(Message)), "role": role, "content": draw(text)})


@st.composite
def steps(draw: st.DrawFn) -> Step:
    d: dict[str, Any] = {
        **draw(extras(Step)),
        "type": draw(st.sampled_from(["message", "tool_call", "llm_call"])),
    }
    # Any field may be set on any kind of step: a source may name a message or fail an LLM call.
    for name in ("name", "error", "role", "content", "model"):
        if draw(st.booleans()):
            d[name] = draw(st.none() | text)
    if draw(st.booleans()):
        d["arguments"] = draw(json_objects)
    if draw(st.booleans()):
        d["result"] = draw(json_values)
    for name in ("input_tokens", "output_tokens"):
        if draw(st.booleans()):
            d[name] = draw(counts)
    d["latency_ms"] = draw(floats)
    return Step.model_validate(d)


usages = st.builds(
    Usage,
    input_tokens=counts,
    output_tokens=counts,
    models=st.dictionaries(
        text,
        st.dictionaries(st.sampled_from(["input_tokens", "output_tokens", "cache_read_tokens"]), counts),
        max_size=3,
    ),
)


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    status = draw(st.sampled_from(["ok", "error", "timeout"]))
    error = draw(st.none() | st.builds(TrialError, code=text, message=text, retryable=st.booleans()))
    return Trace.model_validate(
        {
            **draw(extras(Trace)),
            "input": draw(st.lists(messages(), max_size=3)),
            "steps": draw(st.lists(steps(), max_size=5)),
            "output": draw(st.none() | text),
            "state": draw(json_objects),
            "usage": draw(usages),
            "latency_ms": draw(floats),
            "status": status,
            "error": error,
            "metadata": draw(json_objects),
        }
    )


graders = st.builds(GraderSpec, name=text.filter(bool), params=json_objects)
case_ids = st.from_regex(r"[A-Za-z0-9_.:\-]{1,30}", fullmatch=True)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    return Case(
        id=draw(case_ids),
        description=draw(text),
        input=draw(st.lists(messages(), min_size=1, max_size=3)),
        initial_state=draw(json_objects),
        tool_mocks=draw(json_objects),
        expected_tools=draw(st.none() | st.lists(text, max_size=3)),
        expected_output=draw(st.none() | text),
        graders=draw(st.lists(graders, max_size=3)),
        trials=draw(st.none() | st.integers(1, 1000)),
        tags=draw(st.lists(text, max_size=3)),
        timeout_s=draw(st.none() | st.floats(min_value=0.001, max_value=3600)),
        metadata=draw(json_objects),
    )


@st.composite
def suites(draw: st.DrawFn) -> Suite:
    return Suite(
        name=draw(text.filter(bool)),
        description=draw(text),
        agent=draw(st.none() | text),
        trials=draw(st.integers(1, 1000)),
        timeout_s=draw(st.floats(min_value=0.001, max_value=3600)),
        graders=draw(st.lists(graders, max_size=3)),
        allowed_imports=draw(st.lists(st.sampled_from(["re", "math", "json", "pathlib"]), max_size=3)),
        cases=draw(st.lists(cases(), min_size=1, max_size=4, unique_by=lambda c: c.id)),
    )


def typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type, so 3 and 3.0 (or 1 and True) differ."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def assert_same(got: Any, want: Any) -> None:
    assert got == want
    assert typed(got.model_dump()) == typed(want.model_dump()), "a value changed type on the way"


@PROPERTY
@given(traces())
def test_a_trace_round_trips_exactly(trace: Trace) -> None:
    wire = pb.trace_to_pb(trace).SerializeToString()
    assert_same(pb.trace_from_pb(trace_pb2.Trace.FromString(wire)), trace)


@PROPERTY
@given(suites())
def test_a_suite_round_trips_exactly(suite: Suite) -> None:
    wire = pb.suite_to_pb(suite).SerializeToString()
    assert_same(pb.suite_from_pb(suite_pb2.Suite.FromString(wire)), suite)


@PROPERTY
@given(st.lists(steps(), max_size=4))
def test_steps_of_an_agent_round_trip(found: list[Step]) -> None:
    for step in found:
        wire = pb.step_to_pb(step).SerializeToString()
        assert_same(pb.step_from_pb(trace_pb2.Step.FromString(wire)), step)


def test_tool_arguments_and_results_keep_integers_that_a_double_cannot_hold() -> None:
    big = 2**53 + 1  # google.protobuf.Struct would turn this into 9007199254740992.0
    trace = Trace(
        steps=[
            Step(type="tool_call", name="lookup", arguments={"order": big, "qty": 3}, result={"total": 20})
        ]
    )
    [step] = pb.trace_from_pb(trace_pb2.Trace.FromString(pb.trace_to_pb(trace).SerializeToString())).steps
    assert step.arguments == {"order": big, "qty": 3}
    assert type(step.arguments["qty"]) is int and type(step.result["total"]) is int


def test_none_and_empty_stay_apart() -> None:
    empty = Trace(output="", steps=[Step(type="tool_call", name="", result="", error="")])
    unset = Trace(output=None, steps=[Step(type="tool_call")])
    for trace in (empty, unset):
        assert_same(pb.trace_from_pb(pb.trace_to_pb(trace)), trace)
    case = Case(id="c", input="hi", expected_tools=[])
    back = pb.suite_from_pb(pb.suite_to_pb(Suite(name="s", cases=[case]))).cases[0]
    assert back.expected_tools == [] and back.expected_output is None and back.trials is None


def test_each_kind_of_step_travels_in_its_own_message() -> None:
    """What a client in another language sees: typed fields, JSON only for user data."""
    msg = pb.trace_to_pb(
        Trace(
            steps=[
                Step(type="message", role="assistant", content="hello"),
                Step(type="llm_call", model="m", input_tokens=10, output_tokens=2, content="out"),
                Step(
                    type="tool_call", name="t", arguments={"a": 1}, result=[1, 2], error="boom", latency_ms=5
                ),
            ]
        )
    )
    said, llm, call = msg.steps
    assert said.WhichOneof("kind") == "message" and said.message.content == "hello"
    assert llm.llm_call.model == "m" and llm.llm_call.input_tokens == 10 and llm.llm_call.output == "out"
    assert call.tool_call.name == "t" and call.tool_call.arguments_json == '{"a":1}'
    assert call.tool_call.result_json == "[1,2]" and call.tool_call.error == "boom" and call.latency_ms == 5
    assert not any(s.extra_json for s in msg.steps), "a step's own fields must not fall into extra_json"


def test_a_suite_from_another_client_gets_the_defaults_for_unset_numbers() -> None:
    msg = suite_pb2.Suite(name="s", cases=[suite_pb2.Case(id="c", input=[trace_pb2.Message(content="hi")])])
    suite = pb.suite_from_pb(msg)
    assert suite.trials == 3 and suite.timeout_s == 60.0
    assert suite.cases[0].input == [Message(role="user", content="hi")]


@pytest.mark.parametrize(
    ("mangle", "where"),
    [
        (
            lambda m: setattr(m.cases[0], "initial_state_json", "{not json"),
            "suite.cases[0].initial_state_json",
        ),
        (lambda m: setattr(m.cases[0], "tool_mocks_json", "[1, 2]"), "suite.cases[0].tool_mocks_json"),
        (
            lambda m: setattr(m.cases[0].graders[0], "params_json", "nope"),
            "suite.cases[0].graders[0].params_json",
        ),
        (lambda m: setattr(m.cases[0], "id", "has space"), "suite is not valid"),
        (lambda m: m.cases.add(id="c", input=[trace_pb2.Message(content="x")]), "duplicate case id"),
    ],
)
def test_a_bad_suite_from_a_client_is_refused_naming_the_field(mangle: Any, where: str) -> None:
    msg = pb.suite_to_pb(Suite(name="s", cases=[Case(id="c", input="hi", graders=[GraderSpec(name="g")])]))
    mangle(msg)
    with pytest.raises(InvalidArgument, match=where.replace("[", r"\[").replace("]", r"\]")):
        pb.suite_from_pb(msg)


def test_a_step_without_a_kind_is_refused() -> None:
    with pytest.raises(InvalidArgument, match=r"trace.steps\[0\]: no kind set"):
        pb.trace_from_pb(trace_pb2.Trace(steps=[trace_pb2.Step(latency_ms=1.0)]))


def test_records_round_trip() -> None:
    trace = Trace(output="ok", steps=[Step(type="tool_call", name="t", arguments={"n": 1})])
    trial = TrialRecord(
        trial_id="r/c/0",
        run_id="r",
        case_id="c",
        trial_index=0,
        status="ok",
        latency_ms=1.5,
        passed=True,
        score=1.0,
        grades=[
            GradeRecord(name="g", params={"k": 2}, score=1.0, passed=True, explanation="é", input_tokens=7)
        ],
        trace=trace,
    )
    assert pb.trial_from_pb(pb.trial_to_pb(trial)) == trial
    ungraded = TrialRecord(trial_id="r/c/1", run_id="r", case_id="c", trial_index=1, status="error")
    assert pb.trial_from_pb(pb.trial_to_pb(ungraded)) == ungraded
    run = RunInfo(run_id="r", suite="s", status="running", k=None, trials_total=10)
    assert pb.run_from_pb(pb.run_to_pb(run)) == run
    saved = EvalInfo(
        name="e",
        version=2,
        code="def eval_e(t, ctx=None): ...",
        split=EvalSplit(seed=7, train=["a"], holdout=["b"]),
    )
    assert pb.eval_from_pb(pb.eval_to_pb(saved)) == saved


times = st.none() | st.datetimes(timezones=st.just(UTC))
nonempty = text.filter(bool)
unit = st.floats(min_value=0.0, max_value=1.0)
generation_usages = st.builds(
    GenerationUsage,
    model=text,
    input_tokens=counts,
    output_tokens=counts,
    cost_usd=floats,
    price_known=st.booleans(),
    attempts=st.integers(0, 2**31 - 1),
    steps=st.integers(0, 2**31 - 1),
    stop_reason=text,
)
candidates = st.builds(
    EvalCandidate,
    source=st.sampled_from(["synthesizer", "model_tested", "model_final", "previous"]),
    train_accuracy=unit,
    errors=st.integers(0, 2**31 - 1),
    code_error=st.none() | nonempty,
    chosen=st.booleans(),
    note=text,
    version=st.integers(0, 2**31 - 1),
)
evals = st.builds(
    EvalInfo,
    name=nonempty,
    version=st.integers(1, 2**31 - 1),
    code=text,
    generator=text,
    train_accuracy=unit,
    holdout_accuracy=unit,
    dataset=text,
    dataset_version=st.integers(0, 2**31 - 1),
    split=st.none()
    | st.builds(
        EvalSplit, seed=int64, holdout_fraction=unit, train=st.lists(text, max_size=3), holdout=st.lists(text)
    ),
    created_at=times,
    description=text,
    status=st.sampled_from(["current", "active", "candidate"]),
    promoted_at=times,
    target_accuracy=unit,
    job_id=text,
    usage=generation_usages,
    candidates=st.lists(candidates, max_size=4),
)
# Zeros and empty strings of a request mean "the default" on the wire: a request holds none.
requests = st.builds(
    GenerationRequest,
    name=text,
    dataset=text,
    method=st.sampled_from(["auto", "llm", "synthesizer"]),
    model=nonempty,
    target_accuracy=unit.filter(bool),
    max_attempts=st.integers(1, 2**31 - 1),
    max_steps=st.integers(1, 2**31 - 1),
    holdout_fraction=unit.filter(bool),
    seed=int64,
    allow_fallback=st.booleans(),
)
jobs = st.builds(
    GenerationJob,
    job_id=nonempty,
    status=st.sampled_from(["queued", "running", "done", "failed", "cancelled"]),
    request=requests,
    created_at=times,
    started_at=times,
    finished_at=times,
    outcome=st.none() | st.sampled_from(["promoted", "candidate", "kept"]),
    eval_version=st.integers(0, 2**31 - 1),
    error=st.none() | nonempty,
    error_code=st.none() | nonempty,
    usage=generation_usages,
    runs=st.integers(0, 2**31 - 1),
    last_sequence=int64,
    train_accuracy=unit,
    holdout_accuracy=unit,
)
events = st.builds(
    GenerationEvent,
    type=st.sampled_from(sorted(pb.GENERATE_EVENT_TO_PB)),
    message=text,
    sequence=int64,
    accuracy=unit,
    step=st.integers(0, 2**31 - 1),
    created_at=times,
    eval=st.none() | evals,
)


@PROPERTY
@given(evals)
def test_a_saved_eval_round_trips_exactly_with_its_status_usage_and_candidates(saved: EvalInfo) -> None:
    wire = pb.eval_to_pb(saved).SerializeToString()
    assert_same(pb.eval_from_pb(eval_generator_pb2.Eval.FromString(wire)), saved)


@PROPERTY
@given(jobs, events)
def test_a_generation_job_and_its_events_round_trip_exactly(
    job: GenerationJob, event: GenerationEvent
) -> None:
    wire = pb.generation_job_to_pb(job).SerializeToString()
    assert_same(pb.generation_job_from_pb(eval_generator_pb2.GenerationJob.FromString(wire)), job)
    wire = pb.generation_event_to_pb(event).SerializeToString()
    assert_same(pb.generation_event_from_pb(eval_generator_pb2.GenerationEvent.FromString(wire)), event)
    one_call = pb.generate_eval_response_from_pb(pb.generate_eval_response_to_pb(event))
    assert one_call == event.model_copy(update={"sequence": 0, "created_at": None})


def test_a_request_from_another_client_gets_the_defaults_for_unset_fields() -> None:
    got = pb.generation_request_from_pb(eval_generator_pb2.GenerateEvalRequest(name="e", dataset="d"))
    assert got == GenerationRequest(name="e", dataset="d")
    assert (got.method, got.target_accuracy, got.max_steps, got.holdout_fraction) == ("auto", 0.8, 50, 0.3)


def test_a_request_with_an_unknown_method_is_refused_naming_the_choices() -> None:
    with pytest.raises(InvalidArgument, match="method must be auto, llm or synthesizer, got 'gpt'"):
        pb.generation_request_from_pb(
            eval_generator_pb2.GenerateEvalRequest(name="e", dataset="d", method="gpt")
        )


def test_an_eval_saved_before_statuses_reads_as_promoted() -> None:
    old = eval_generator_pb2.Eval(name="e", version=1, code="def eval_e(t, ctx=None): ...")
    got = pb.eval_from_pb(old)
    assert (got.status, got.promoted_at, got.candidates, got.usage) == ("active", None, [], GenerationUsage())
