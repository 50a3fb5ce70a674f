from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_PENDING: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_COMPLETED: _ClassVar[RunStatus]
    RUN_STATUS_CANCELLED: _ClassVar[RunStatus]
    RUN_STATUS_FAILED: _ClassVar[RunStatus]

class TrialStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRIAL_STATUS_UNSPECIFIED: _ClassVar[TrialStatus]
    TRIAL_STATUS_OK: _ClassVar[TrialStatus]
    TRIAL_STATUS_ERROR: _ClassVar[TrialStatus]
    TRIAL_STATUS_TIMEOUT: _ClassVar[TrialStatus]
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_PENDING: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_COMPLETED: RunStatus
RUN_STATUS_CANCELLED: RunStatus
RUN_STATUS_FAILED: RunStatus
TRIAL_STATUS_UNSPECIFIED: TrialStatus
TRIAL_STATUS_OK: TrialStatus
TRIAL_STATUS_ERROR: TrialStatus
TRIAL_STATUS_TIMEOUT: TrialStatus

class LatencySummary(_message.Message):
    __slots__ = ("p50_ms", "p95_ms", "p99_ms", "mean_ms", "max_ms")
    P50_MS_FIELD_NUMBER: _ClassVar[int]
    P95_MS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    MEAN_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_MS_FIELD_NUMBER: _ClassVar[int]
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    def __init__(self, p50_ms: _Optional[float] = ..., p95_ms: _Optional[float] = ..., p99_ms: _Optional[float] = ..., mean_ms: _Optional[float] = ..., max_ms: _Optional[float] = ...) -> None: ...

class CaseSummary(_message.Message):
    __slots__ = ("case_id", "trials", "passes", "pass_rate", "pass_at_k", "pass_pow_k", "latency", "errors", "timeouts", "input_tokens", "output_tokens", "cost_usd", "tags", "grader_scores", "pass_rate_low", "pass_rate_high", "flaky", "cost_unknown_trials")
    class PassAtKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class PassPowKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class GraderScoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_FIELD_NUMBER: _ClassVar[int]
    PASS_AT_K_FIELD_NUMBER: _ClassVar[int]
    PASS_POW_K_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    GRADER_SCORES_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_LOW_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_HIGH_FIELD_NUMBER: _ClassVar[int]
    FLAKY_FIELD_NUMBER: _ClassVar[int]
    COST_UNKNOWN_TRIALS_FIELD_NUMBER: _ClassVar[int]
    case_id: str
    trials: int
    passes: int
    pass_rate: float
    pass_at_k: _containers.ScalarMap[int, float]
    pass_pow_k: _containers.ScalarMap[int, float]
    latency: LatencySummary
    errors: int
    timeouts: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    grader_scores: _containers.ScalarMap[str, float]
    pass_rate_low: float
    pass_rate_high: float
    flaky: bool
    cost_unknown_trials: int
    def __init__(self, case_id: _Optional[str] = ..., trials: _Optional[int] = ..., passes: _Optional[int] = ..., pass_rate: _Optional[float] = ..., pass_at_k: _Optional[_Mapping[int, float]] = ..., pass_pow_k: _Optional[_Mapping[int, float]] = ..., latency: _Optional[_Union[LatencySummary, _Mapping]] = ..., errors: _Optional[int] = ..., timeouts: _Optional[int] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., grader_scores: _Optional[_Mapping[str, float]] = ..., pass_rate_low: _Optional[float] = ..., pass_rate_high: _Optional[float] = ..., flaky: _Optional[bool] = ..., cost_unknown_trials: _Optional[int] = ...) -> None: ...

class TagSummary(_message.Message):
    __slots__ = ("tag", "cases", "trials", "passes", "pass_rate", "pass_rate_low", "pass_rate_high", "pass_at_k", "pass_pow_k", "latency", "input_tokens", "output_tokens", "cost_usd", "grader_scores", "cost_unknown_trials")
    class PassAtKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class PassPowKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class GraderScoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    TAG_FIELD_NUMBER: _ClassVar[int]
    CASES_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_LOW_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_HIGH_FIELD_NUMBER: _ClassVar[int]
    PASS_AT_K_FIELD_NUMBER: _ClassVar[int]
    PASS_POW_K_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    GRADER_SCORES_FIELD_NUMBER: _ClassVar[int]
    COST_UNKNOWN_TRIALS_FIELD_NUMBER: _ClassVar[int]
    tag: str
    cases: int
    trials: int
    passes: int
    pass_rate: float
    pass_rate_low: float
    pass_rate_high: float
    pass_at_k: _containers.ScalarMap[int, float]
    pass_pow_k: _containers.ScalarMap[int, float]
    latency: LatencySummary
    input_tokens: int
    output_tokens: int
    cost_usd: float
    grader_scores: _containers.ScalarMap[str, float]
    cost_unknown_trials: int
    def __init__(self, tag: _Optional[str] = ..., cases: _Optional[int] = ..., trials: _Optional[int] = ..., passes: _Optional[int] = ..., pass_rate: _Optional[float] = ..., pass_rate_low: _Optional[float] = ..., pass_rate_high: _Optional[float] = ..., pass_at_k: _Optional[_Mapping[int, float]] = ..., pass_pow_k: _Optional[_Mapping[int, float]] = ..., latency: _Optional[_Union[LatencySummary, _Mapping]] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., grader_scores: _Optional[_Mapping[str, float]] = ..., cost_unknown_trials: _Optional[int] = ...) -> None: ...

class RunSummary(_message.Message):
    __slots__ = ("run_id", "suite", "agent", "agent_version", "k", "trials", "passes", "pass_rate", "pass_at_k", "pass_pow_k", "latency", "errors", "timeouts", "input_tokens", "output_tokens", "cost_usd", "cases", "pass_rate_low", "pass_rate_high", "tags", "cost_unknown_trials", "grader_failures", "grader_failure_reasons")
    class PassAtKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class PassPowKEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: float
        def __init__(self, key: _Optional[int] = ..., value: _Optional[float] = ...) -> None: ...
    class GraderFailuresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class GraderFailureReasonsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_FIELD_NUMBER: _ClassVar[int]
    PASS_AT_K_FIELD_NUMBER: _ClassVar[int]
    PASS_POW_K_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    CASES_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_LOW_FIELD_NUMBER: _ClassVar[int]
    PASS_RATE_HIGH_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    COST_UNKNOWN_TRIALS_FIELD_NUMBER: _ClassVar[int]
    GRADER_FAILURES_FIELD_NUMBER: _ClassVar[int]
    GRADER_FAILURE_REASONS_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    suite: str
    agent: str
    agent_version: str
    k: int
    trials: int
    passes: int
    pass_rate: float
    pass_at_k: _containers.ScalarMap[int, float]
    pass_pow_k: _containers.ScalarMap[int, float]
    latency: LatencySummary
    errors: int
    timeouts: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    cases: _containers.RepeatedCompositeFieldContainer[CaseSummary]
    pass_rate_low: float
    pass_rate_high: float
    tags: _containers.RepeatedCompositeFieldContainer[TagSummary]
    cost_unknown_trials: int
    grader_failures: _containers.ScalarMap[str, int]
    grader_failure_reasons: _containers.ScalarMap[str, str]
    def __init__(self, run_id: _Optional[str] = ..., suite: _Optional[str] = ..., agent: _Optional[str] = ..., agent_version: _Optional[str] = ..., k: _Optional[int] = ..., trials: _Optional[int] = ..., passes: _Optional[int] = ..., pass_rate: _Optional[float] = ..., pass_at_k: _Optional[_Mapping[int, float]] = ..., pass_pow_k: _Optional[_Mapping[int, float]] = ..., latency: _Optional[_Union[LatencySummary, _Mapping]] = ..., errors: _Optional[int] = ..., timeouts: _Optional[int] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., cases: _Optional[_Iterable[_Union[CaseSummary, _Mapping]]] = ..., pass_rate_low: _Optional[float] = ..., pass_rate_high: _Optional[float] = ..., tags: _Optional[_Iterable[_Union[TagSummary, _Mapping]]] = ..., cost_unknown_trials: _Optional[int] = ..., grader_failures: _Optional[_Mapping[str, int]] = ..., grader_failure_reasons: _Optional[_Mapping[str, str]] = ...) -> None: ...
