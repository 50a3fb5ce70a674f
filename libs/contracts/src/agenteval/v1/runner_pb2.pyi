from agenteval.v1 import common_pb2 as _common_pb2
from agenteval.v1 import comparison_pb2 as _comparison_pb2
from agenteval.v1 import suite_pb2 as _suite_pb2
from agenteval.v1 import transcripts_pb2 as _transcripts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_EVENT_TYPE_UNSPECIFIED: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_SUBMITTED: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_PROGRESS: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_COMPLETED: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_CANCELLED: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_TRIALS: _ClassVar[RunEventType]
    RUN_EVENT_TYPE_FAILED: _ClassVar[RunEventType]
RUN_EVENT_TYPE_UNSPECIFIED: RunEventType
RUN_EVENT_TYPE_SUBMITTED: RunEventType
RUN_EVENT_TYPE_PROGRESS: RunEventType
RUN_EVENT_TYPE_COMPLETED: RunEventType
RUN_EVENT_TYPE_CANCELLED: RunEventType
RUN_EVENT_TYPE_TRIALS: RunEventType
RUN_EVENT_TYPE_FAILED: RunEventType

class Run(_message.Message):
    __slots__ = ("run_id", "suite", "agent", "agent_version", "k", "status", "trials_total", "trials_graded", "created_at", "completed_at", "summary", "error", "suite_version", "suite_version_number", "tags", "project")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TRIALS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TRIALS_GRADED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SUITE_VERSION_FIELD_NUMBER: _ClassVar[int]
    SUITE_VERSION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    suite: str
    agent: str
    agent_version: str
    k: int
    status: _common_pb2.RunStatus
    trials_total: int
    trials_graded: int
    created_at: str
    completed_at: str
    summary: _common_pb2.RunSummary
    error: str
    suite_version: str
    suite_version_number: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    project: str
    def __init__(self, run_id: _Optional[str] = ..., suite: _Optional[str] = ..., agent: _Optional[str] = ..., agent_version: _Optional[str] = ..., k: _Optional[int] = ..., status: _Optional[_Union[_common_pb2.RunStatus, str]] = ..., trials_total: _Optional[int] = ..., trials_graded: _Optional[int] = ..., created_at: _Optional[str] = ..., completed_at: _Optional[str] = ..., summary: _Optional[_Union[_common_pb2.RunSummary, _Mapping]] = ..., error: _Optional[str] = ..., suite_version: _Optional[str] = ..., suite_version_number: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., project: _Optional[str] = ...) -> None: ...

class SubmitRunRequest(_message.Message):
    __slots__ = ("suite", "agent", "k", "agent_version", "concurrency", "seed", "timeout_s", "tags", "request_id", "suite_ref")
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SUITE_REF_FIELD_NUMBER: _ClassVar[int]
    suite: _suite_pb2.Suite
    agent: str
    k: int
    agent_version: str
    concurrency: int
    seed: int
    timeout_s: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    request_id: str
    suite_ref: str
    def __init__(self, suite: _Optional[_Union[_suite_pb2.Suite, _Mapping]] = ..., agent: _Optional[str] = ..., k: _Optional[int] = ..., agent_version: _Optional[str] = ..., concurrency: _Optional[int] = ..., seed: _Optional[int] = ..., timeout_s: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., request_id: _Optional[str] = ..., suite_ref: _Optional[str] = ...) -> None: ...

class SubmitRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("suite", "agent_version", "limit", "suite_version")
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SUITE_VERSION_FIELD_NUMBER: _ClassVar[int]
    suite: str
    agent_version: str
    limit: int
    suite_version: str
    def __init__(self, suite: _Optional[str] = ..., agent_version: _Optional[str] = ..., limit: _Optional[int] = ..., suite_version: _Optional[str] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs",)
    RUNS_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[Run]
    def __init__(self, runs: _Optional[_Iterable[_Union[Run, _Mapping]]] = ...) -> None: ...

class CancelRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class CancelRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class WatchRunRequest(_message.Message):
    __slots__ = ("run_id", "after")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after: int
    def __init__(self, run_id: _Optional[str] = ..., after: _Optional[int] = ...) -> None: ...

class WatchRunsRequest(_message.Message):
    __slots__ = ("suite", "agent_version", "project", "after")
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    suite: str
    agent_version: str
    project: str
    after: int
    def __init__(self, suite: _Optional[str] = ..., agent_version: _Optional[str] = ..., project: _Optional[str] = ..., after: _Optional[int] = ...) -> None: ...

class TrialResult(_message.Message):
    __slots__ = ("trial_id", "case_id", "trial_index", "status", "passed", "score", "grades", "input_tokens", "output_tokens", "cost_usd", "latency_ms", "tags", "error_code", "error_message", "cost_unknown")
    TRIAL_ID_FIELD_NUMBER: _ClassVar[int]
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    TRIAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GRADES_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    COST_UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    trial_id: str
    case_id: str
    trial_index: int
    status: _common_pb2.TrialStatus
    passed: bool
    score: float
    grades: _containers.RepeatedCompositeFieldContainer[_transcripts_pb2.TrialGrade]
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_ms: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    error_code: str
    error_message: str
    cost_unknown: bool
    def __init__(self, trial_id: _Optional[str] = ..., case_id: _Optional[str] = ..., trial_index: _Optional[int] = ..., status: _Optional[_Union[_common_pb2.TrialStatus, str]] = ..., passed: _Optional[bool] = ..., score: _Optional[float] = ..., grades: _Optional[_Iterable[_Union[_transcripts_pb2.TrialGrade, _Mapping]]] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., latency_ms: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., error_code: _Optional[str] = ..., error_message: _Optional[str] = ..., cost_unknown: _Optional[bool] = ...) -> None: ...

class WatchRunResponse(_message.Message):
    __slots__ = ("type", "run_id", "trials_total", "trials_completed", "trials_graded", "passes", "summary", "seq", "trials", "suite", "agent_version", "project", "reason")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TRIALS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TRIALS_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    TRIALS_GRADED_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    type: RunEventType
    run_id: str
    trials_total: int
    trials_completed: int
    trials_graded: int
    passes: int
    summary: _common_pb2.RunSummary
    seq: int
    trials: _containers.RepeatedCompositeFieldContainer[TrialResult]
    suite: str
    agent_version: str
    project: str
    reason: str
    def __init__(self, type: _Optional[_Union[RunEventType, str]] = ..., run_id: _Optional[str] = ..., trials_total: _Optional[int] = ..., trials_completed: _Optional[int] = ..., trials_graded: _Optional[int] = ..., passes: _Optional[int] = ..., summary: _Optional[_Union[_common_pb2.RunSummary, _Mapping]] = ..., seq: _Optional[int] = ..., trials: _Optional[_Iterable[_Union[TrialResult, _Mapping]]] = ..., suite: _Optional[str] = ..., agent_version: _Optional[str] = ..., project: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CompareRunsRequest(_message.Message):
    __slots__ = ("baseline", "candidate", "threshold", "alpha")
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    candidate: str
    threshold: float
    alpha: float
    def __init__(self, baseline: _Optional[str] = ..., candidate: _Optional[str] = ..., threshold: _Optional[float] = ..., alpha: _Optional[float] = ...) -> None: ...

class CompareRunsResponse(_message.Message):
    __slots__ = ("comparison", "passed", "baseline_run_id", "candidate_run_id")
    COMPARISON_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    BASELINE_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    comparison: _comparison_pb2.Comparison
    passed: bool
    baseline_run_id: str
    candidate_run_id: str
    def __init__(self, comparison: _Optional[_Union[_comparison_pb2.Comparison, _Mapping]] = ..., passed: _Optional[bool] = ..., baseline_run_id: _Optional[str] = ..., candidate_run_id: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesRequest(_message.Message):
    __slots__ = ("run_id", "limit")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    limit: int
    def __init__(self, run_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListWebhookDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries",)
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[WebhookDelivery]
    def __init__(self, deliveries: _Optional[_Iterable[_Union[WebhookDelivery, _Mapping]]] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("delivery_id", "event", "url", "run_id", "attempts", "status", "last_status_code", "last_error", "created_at", "updated_at")
    DELIVERY_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    delivery_id: str
    event: str
    url: str
    run_id: str
    attempts: int
    status: str
    last_status_code: int
    last_error: str
    created_at: str
    updated_at: str
    def __init__(self, delivery_id: _Optional[str] = ..., event: _Optional[str] = ..., url: _Optional[str] = ..., run_id: _Optional[str] = ..., attempts: _Optional[int] = ..., status: _Optional[str] = ..., last_status_code: _Optional[int] = ..., last_error: _Optional[str] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ...) -> None: ...
