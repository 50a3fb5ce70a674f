from agenteval.v1 import common_pb2 as _common_pb2
from agenteval.v1 import trace_pb2 as _trace_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Trial(_message.Message):
    __slots__ = ("trial_id", "run_id", "case_id", "trial_index", "status", "trace", "latency_ms", "created_at", "passed", "score", "grades")
    TRIAL_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    TRIAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GRADES_FIELD_NUMBER: _ClassVar[int]
    trial_id: str
    run_id: str
    case_id: str
    trial_index: int
    status: _common_pb2.TrialStatus
    trace: _trace_pb2.Trace
    latency_ms: float
    created_at: str
    passed: bool
    score: float
    grades: _containers.RepeatedCompositeFieldContainer[TrialGrade]
    def __init__(self, trial_id: _Optional[str] = ..., run_id: _Optional[str] = ..., case_id: _Optional[str] = ..., trial_index: _Optional[int] = ..., status: _Optional[_Union[_common_pb2.TrialStatus, str]] = ..., trace: _Optional[_Union[_trace_pb2.Trace, _Mapping]] = ..., latency_ms: _Optional[float] = ..., created_at: _Optional[str] = ..., passed: _Optional[bool] = ..., score: _Optional[float] = ..., grades: _Optional[_Iterable[_Union[TrialGrade, _Mapping]]] = ...) -> None: ...

class TrialGrade(_message.Message):
    __slots__ = ("name", "params_json", "score", "passed", "explanation", "error", "input_tokens", "output_tokens", "cost_usd")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_JSON_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    name: str
    params_json: str
    score: float
    passed: bool
    explanation: str
    error: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    def __init__(self, name: _Optional[str] = ..., params_json: _Optional[str] = ..., score: _Optional[float] = ..., passed: _Optional[bool] = ..., explanation: _Optional[str] = ..., error: _Optional[str] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ...) -> None: ...

class GetTrialRequest(_message.Message):
    __slots__ = ("trial_id",)
    TRIAL_ID_FIELD_NUMBER: _ClassVar[int]
    trial_id: str
    def __init__(self, trial_id: _Optional[str] = ...) -> None: ...

class GetTrialResponse(_message.Message):
    __slots__ = ("trial",)
    TRIAL_FIELD_NUMBER: _ClassVar[int]
    trial: Trial
    def __init__(self, trial: _Optional[_Union[Trial, _Mapping]] = ...) -> None: ...

class ListTrialsRequest(_message.Message):
    __slots__ = ("run_id", "case_id", "status", "limit", "offset", "summary_only")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ONLY_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    case_id: str
    status: _common_pb2.TrialStatus
    limit: int
    offset: int
    summary_only: bool
    def __init__(self, run_id: _Optional[str] = ..., case_id: _Optional[str] = ..., status: _Optional[_Union[_common_pb2.TrialStatus, str]] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., summary_only: _Optional[bool] = ...) -> None: ...

class ListTrialsResponse(_message.Message):
    __slots__ = ("trials", "total")
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    trials: _containers.RepeatedCompositeFieldContainer[Trial]
    total: int
    def __init__(self, trials: _Optional[_Iterable[_Union[Trial, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class TraceSummary(_message.Message):
    __slots__ = ("trace_id", "dataset", "label", "summary", "step_count", "has_tool_calls", "comment", "trace", "rater", "dataset_version")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    STEP_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAS_TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    RATER_FIELD_NUMBER: _ClassVar[int]
    DATASET_VERSION_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    dataset: str
    label: str
    summary: str
    step_count: int
    has_tool_calls: bool
    comment: str
    trace: _trace_pb2.Trace
    rater: str
    dataset_version: int
    def __init__(self, trace_id: _Optional[str] = ..., dataset: _Optional[str] = ..., label: _Optional[str] = ..., summary: _Optional[str] = ..., step_count: _Optional[int] = ..., has_tool_calls: _Optional[bool] = ..., comment: _Optional[str] = ..., trace: _Optional[_Union[_trace_pb2.Trace, _Mapping]] = ..., rater: _Optional[str] = ..., dataset_version: _Optional[int] = ...) -> None: ...

class ListTracesRequest(_message.Message):
    __slots__ = ("dataset", "label", "limit", "offset", "trace_ids", "with_traces", "labeled_only", "agent")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TRACE_IDS_FIELD_NUMBER: _ClassVar[int]
    WITH_TRACES_FIELD_NUMBER: _ClassVar[int]
    LABELED_ONLY_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    dataset: str
    label: str
    limit: int
    offset: int
    trace_ids: _containers.RepeatedScalarFieldContainer[str]
    with_traces: bool
    labeled_only: bool
    agent: str
    def __init__(self, dataset: _Optional[str] = ..., label: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., trace_ids: _Optional[_Iterable[str]] = ..., with_traces: _Optional[bool] = ..., labeled_only: _Optional[bool] = ..., agent: _Optional[str] = ...) -> None: ...

class ListTracesResponse(_message.Message):
    __slots__ = ("traces", "total")
    TRACES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    traces: _containers.RepeatedCompositeFieldContainer[TraceSummary]
    total: int
    def __init__(self, traces: _Optional[_Iterable[_Union[TraceSummary, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class GetTraceRequest(_message.Message):
    __slots__ = ("trace_id", "dataset")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    dataset: str
    def __init__(self, trace_id: _Optional[str] = ..., dataset: _Optional[str] = ...) -> None: ...

class GetTraceResponse(_message.Message):
    __slots__ = ("summary", "trace")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    summary: TraceSummary
    trace: _trace_pb2.Trace
    def __init__(self, summary: _Optional[_Union[TraceSummary, _Mapping]] = ..., trace: _Optional[_Union[_trace_pb2.Trace, _Mapping]] = ...) -> None: ...

class ImportTracesRequest(_message.Message):
    __slots__ = ("dataset", "format", "chunk")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    dataset: str
    format: str
    chunk: bytes
    def __init__(self, dataset: _Optional[str] = ..., format: _Optional[str] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class ImportProblem(_message.Message):
    __slots__ = ("line", "reason", "unit")
    LINE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    line: int
    reason: str
    unit: str
    def __init__(self, line: _Optional[int] = ..., reason: _Optional[str] = ..., unit: _Optional[str] = ...) -> None: ...

class ImportTracesResponse(_message.Message):
    __slots__ = ("dataset", "dataset_version", "imported", "duplicates", "problems", "format")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    DATASET_VERSION_FIELD_NUMBER: _ClassVar[int]
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    dataset: str
    dataset_version: int
    imported: int
    duplicates: int
    problems: _containers.RepeatedCompositeFieldContainer[ImportProblem]
    format: str
    def __init__(self, dataset: _Optional[str] = ..., dataset_version: _Optional[int] = ..., imported: _Optional[int] = ..., duplicates: _Optional[int] = ..., problems: _Optional[_Iterable[_Union[ImportProblem, _Mapping]]] = ..., format: _Optional[str] = ...) -> None: ...

class LabelTraceRequest(_message.Message):
    __slots__ = ("trace_id", "dataset", "label", "comment", "rater")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    RATER_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    dataset: str
    label: str
    comment: str
    rater: str
    def __init__(self, trace_id: _Optional[str] = ..., dataset: _Optional[str] = ..., label: _Optional[str] = ..., comment: _Optional[str] = ..., rater: _Optional[str] = ...) -> None: ...

class LabelTraceResponse(_message.Message):
    __slots__ = ("trace",)
    TRACE_FIELD_NUMBER: _ClassVar[int]
    trace: TraceSummary
    def __init__(self, trace: _Optional[_Union[TraceSummary, _Mapping]] = ...) -> None: ...
