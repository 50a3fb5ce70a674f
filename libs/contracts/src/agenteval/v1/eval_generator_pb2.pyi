from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvalStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVAL_STATUS_UNSPECIFIED: _ClassVar[EvalStatus]
    EVAL_STATUS_CURRENT: _ClassVar[EvalStatus]
    EVAL_STATUS_ACTIVE: _ClassVar[EvalStatus]
    EVAL_STATUS_CANDIDATE: _ClassVar[EvalStatus]

class GenerateEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GENERATE_EVENT_TYPE_UNSPECIFIED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_STARTED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_THINKING: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_TOOL_CALLED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_TOOL_RESULT: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_TEST_RESULT: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_SAVED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_FAILED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_CANDIDATE: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_CANCELLED: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_KEPT: _ClassVar[GenerateEventType]
    GENERATE_EVENT_TYPE_WARNING: _ClassVar[GenerateEventType]

class GenerationJobStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GENERATION_JOB_STATUS_UNSPECIFIED: _ClassVar[GenerationJobStatus]
    GENERATION_JOB_STATUS_QUEUED: _ClassVar[GenerationJobStatus]
    GENERATION_JOB_STATUS_RUNNING: _ClassVar[GenerationJobStatus]
    GENERATION_JOB_STATUS_DONE: _ClassVar[GenerationJobStatus]
    GENERATION_JOB_STATUS_FAILED: _ClassVar[GenerationJobStatus]
    GENERATION_JOB_STATUS_CANCELLED: _ClassVar[GenerationJobStatus]

class GenerationOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GENERATION_OUTCOME_UNSPECIFIED: _ClassVar[GenerationOutcome]
    GENERATION_OUTCOME_PROMOTED: _ClassVar[GenerationOutcome]
    GENERATION_OUTCOME_CANDIDATE: _ClassVar[GenerationOutcome]
    GENERATION_OUTCOME_KEPT: _ClassVar[GenerationOutcome]
EVAL_STATUS_UNSPECIFIED: EvalStatus
EVAL_STATUS_CURRENT: EvalStatus
EVAL_STATUS_ACTIVE: EvalStatus
EVAL_STATUS_CANDIDATE: EvalStatus
GENERATE_EVENT_TYPE_UNSPECIFIED: GenerateEventType
GENERATE_EVENT_TYPE_STARTED: GenerateEventType
GENERATE_EVENT_TYPE_THINKING: GenerateEventType
GENERATE_EVENT_TYPE_TOOL_CALLED: GenerateEventType
GENERATE_EVENT_TYPE_TOOL_RESULT: GenerateEventType
GENERATE_EVENT_TYPE_TEST_RESULT: GenerateEventType
GENERATE_EVENT_TYPE_SAVED: GenerateEventType
GENERATE_EVENT_TYPE_FAILED: GenerateEventType
GENERATE_EVENT_TYPE_CANDIDATE: GenerateEventType
GENERATE_EVENT_TYPE_CANCELLED: GenerateEventType
GENERATE_EVENT_TYPE_KEPT: GenerateEventType
GENERATE_EVENT_TYPE_WARNING: GenerateEventType
GENERATION_JOB_STATUS_UNSPECIFIED: GenerationJobStatus
GENERATION_JOB_STATUS_QUEUED: GenerationJobStatus
GENERATION_JOB_STATUS_RUNNING: GenerationJobStatus
GENERATION_JOB_STATUS_DONE: GenerationJobStatus
GENERATION_JOB_STATUS_FAILED: GenerationJobStatus
GENERATION_JOB_STATUS_CANCELLED: GenerationJobStatus
GENERATION_OUTCOME_UNSPECIFIED: GenerationOutcome
GENERATION_OUTCOME_PROMOTED: GenerationOutcome
GENERATION_OUTCOME_CANDIDATE: GenerationOutcome
GENERATION_OUTCOME_KEPT: GenerationOutcome

class Split(_message.Message):
    __slots__ = ("seed", "holdout_fraction", "train_trace_ids", "holdout_trace_ids")
    SEED_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_FRACTION_FIELD_NUMBER: _ClassVar[int]
    TRAIN_TRACE_IDS_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_TRACE_IDS_FIELD_NUMBER: _ClassVar[int]
    seed: int
    holdout_fraction: float
    train_trace_ids: _containers.RepeatedScalarFieldContainer[str]
    holdout_trace_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seed: _Optional[int] = ..., holdout_fraction: _Optional[float] = ..., train_trace_ids: _Optional[_Iterable[str]] = ..., holdout_trace_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Eval(_message.Message):
    __slots__ = ("name", "version", "code", "generator", "train_accuracy", "holdout_accuracy", "dataset", "dataset_version", "split", "created_at", "description", "status", "promoted_at", "target_accuracy", "job_id", "usage", "candidates")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    GENERATOR_FIELD_NUMBER: _ClassVar[int]
    TRAIN_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    DATASET_VERSION_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROMOTED_AT_FIELD_NUMBER: _ClassVar[int]
    TARGET_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    code: str
    generator: str
    train_accuracy: float
    holdout_accuracy: float
    dataset: str
    dataset_version: int
    split: Split
    created_at: str
    description: str
    status: EvalStatus
    promoted_at: str
    target_accuracy: float
    job_id: str
    usage: GenerationUsage
    candidates: _containers.RepeatedCompositeFieldContainer[Candidate]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., code: _Optional[str] = ..., generator: _Optional[str] = ..., train_accuracy: _Optional[float] = ..., holdout_accuracy: _Optional[float] = ..., dataset: _Optional[str] = ..., dataset_version: _Optional[int] = ..., split: _Optional[_Union[Split, _Mapping]] = ..., created_at: _Optional[str] = ..., description: _Optional[str] = ..., status: _Optional[_Union[EvalStatus, str]] = ..., promoted_at: _Optional[str] = ..., target_accuracy: _Optional[float] = ..., job_id: _Optional[str] = ..., usage: _Optional[_Union[GenerationUsage, _Mapping]] = ..., candidates: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ...) -> None: ...

class GenerationUsage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "cost_usd", "price_known", "attempts", "steps", "stop_reason", "model")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    PRICE_KNOWN_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    cost_usd: float
    price_known: bool
    attempts: int
    steps: int
    stop_reason: str
    model: str
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., price_known: _Optional[bool] = ..., attempts: _Optional[int] = ..., steps: _Optional[int] = ..., stop_reason: _Optional[str] = ..., model: _Optional[str] = ...) -> None: ...

class Candidate(_message.Message):
    __slots__ = ("source", "train_accuracy", "errors", "code_error", "chosen", "note", "version")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TRAIN_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    CODE_ERROR_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    source: str
    train_accuracy: float
    errors: int
    code_error: str
    chosen: bool
    note: str
    version: int
    def __init__(self, source: _Optional[str] = ..., train_accuracy: _Optional[float] = ..., errors: _Optional[int] = ..., code_error: _Optional[str] = ..., chosen: _Optional[bool] = ..., note: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class GenerateEvalRequest(_message.Message):
    __slots__ = ("name", "dataset", "method", "model", "target_accuracy", "max_attempts", "max_steps", "holdout_fraction", "seed", "allow_fallback")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TARGET_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_FRACTION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FALLBACK_FIELD_NUMBER: _ClassVar[int]
    name: str
    dataset: str
    method: str
    model: str
    target_accuracy: float
    max_attempts: int
    max_steps: int
    holdout_fraction: float
    seed: int
    allow_fallback: bool
    def __init__(self, name: _Optional[str] = ..., dataset: _Optional[str] = ..., method: _Optional[str] = ..., model: _Optional[str] = ..., target_accuracy: _Optional[float] = ..., max_attempts: _Optional[int] = ..., max_steps: _Optional[int] = ..., holdout_fraction: _Optional[float] = ..., seed: _Optional[int] = ..., allow_fallback: _Optional[bool] = ...) -> None: ...

class GenerateEvalResponse(_message.Message):
    __slots__ = ("type", "message", "accuracy", "step", "eval")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    EVAL_FIELD_NUMBER: _ClassVar[int]
    type: GenerateEventType
    message: str
    accuracy: float
    step: int
    eval: Eval
    def __init__(self, type: _Optional[_Union[GenerateEventType, str]] = ..., message: _Optional[str] = ..., accuracy: _Optional[float] = ..., step: _Optional[int] = ..., eval: _Optional[_Union[Eval, _Mapping]] = ...) -> None: ...

class GenerationJob(_message.Message):
    __slots__ = ("job_id", "status", "request", "created_at", "started_at", "finished_at", "outcome", "eval_version", "error", "error_code", "usage", "runs", "last_sequence", "train_accuracy", "holdout_accuracy")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    EVAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TRAIN_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    status: GenerationJobStatus
    request: GenerateEvalRequest
    created_at: str
    started_at: str
    finished_at: str
    outcome: GenerationOutcome
    eval_version: int
    error: str
    error_code: str
    usage: GenerationUsage
    runs: int
    last_sequence: int
    train_accuracy: float
    holdout_accuracy: float
    def __init__(self, job_id: _Optional[str] = ..., status: _Optional[_Union[GenerationJobStatus, str]] = ..., request: _Optional[_Union[GenerateEvalRequest, _Mapping]] = ..., created_at: _Optional[str] = ..., started_at: _Optional[str] = ..., finished_at: _Optional[str] = ..., outcome: _Optional[_Union[GenerationOutcome, str]] = ..., eval_version: _Optional[int] = ..., error: _Optional[str] = ..., error_code: _Optional[str] = ..., usage: _Optional[_Union[GenerationUsage, _Mapping]] = ..., runs: _Optional[int] = ..., last_sequence: _Optional[int] = ..., train_accuracy: _Optional[float] = ..., holdout_accuracy: _Optional[float] = ...) -> None: ...

class GenerationEvent(_message.Message):
    __slots__ = ("sequence", "type", "message", "accuracy", "step", "created_at", "eval")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EVAL_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    type: GenerateEventType
    message: str
    accuracy: float
    step: int
    created_at: str
    eval: Eval
    def __init__(self, sequence: _Optional[int] = ..., type: _Optional[_Union[GenerateEventType, str]] = ..., message: _Optional[str] = ..., accuracy: _Optional[float] = ..., step: _Optional[int] = ..., created_at: _Optional[str] = ..., eval: _Optional[_Union[Eval, _Mapping]] = ...) -> None: ...

class StartGenerationJobRequest(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: GenerateEvalRequest
    def __init__(self, request: _Optional[_Union[GenerateEvalRequest, _Mapping]] = ...) -> None: ...

class StartGenerationJobResponse(_message.Message):
    __slots__ = ("job",)
    JOB_FIELD_NUMBER: _ClassVar[int]
    job: GenerationJob
    def __init__(self, job: _Optional[_Union[GenerationJob, _Mapping]] = ...) -> None: ...

class WatchGenerationJobRequest(_message.Message):
    __slots__ = ("job_id", "after")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    after: int
    def __init__(self, job_id: _Optional[str] = ..., after: _Optional[int] = ...) -> None: ...

class WatchGenerationJobResponse(_message.Message):
    __slots__ = ("event", "job")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    event: GenerationEvent
    job: GenerationJob
    def __init__(self, event: _Optional[_Union[GenerationEvent, _Mapping]] = ..., job: _Optional[_Union[GenerationJob, _Mapping]] = ...) -> None: ...

class ListGenerationJobsRequest(_message.Message):
    __slots__ = ("name", "status", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    status: GenerationJobStatus
    limit: int
    def __init__(self, name: _Optional[str] = ..., status: _Optional[_Union[GenerationJobStatus, str]] = ..., limit: _Optional[int] = ...) -> None: ...

class ListGenerationJobsResponse(_message.Message):
    __slots__ = ("jobs",)
    JOBS_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[GenerationJob]
    def __init__(self, jobs: _Optional[_Iterable[_Union[GenerationJob, _Mapping]]] = ...) -> None: ...

class GetGenerationJobRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class GetGenerationJobResponse(_message.Message):
    __slots__ = ("job",)
    JOB_FIELD_NUMBER: _ClassVar[int]
    job: GenerationJob
    def __init__(self, job: _Optional[_Union[GenerationJob, _Mapping]] = ...) -> None: ...

class CancelGenerationJobRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class CancelGenerationJobResponse(_message.Message):
    __slots__ = ("job",)
    JOB_FIELD_NUMBER: _ClassVar[int]
    job: GenerationJob
    def __init__(self, job: _Optional[_Union[GenerationJob, _Mapping]] = ...) -> None: ...

class PromoteEvalRequest(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class PromoteEvalResponse(_message.Message):
    __slots__ = ("eval",)
    EVAL_FIELD_NUMBER: _ClassVar[int]
    eval: Eval
    def __init__(self, eval: _Optional[_Union[Eval, _Mapping]] = ...) -> None: ...

class ListEvalsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListEvalsResponse(_message.Message):
    __slots__ = ("evals",)
    EVALS_FIELD_NUMBER: _ClassVar[int]
    evals: _containers.RepeatedCompositeFieldContainer[Eval]
    def __init__(self, evals: _Optional[_Iterable[_Union[Eval, _Mapping]]] = ...) -> None: ...

class GetEvalRequest(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class GetEvalResponse(_message.Message):
    __slots__ = ("eval",)
    EVAL_FIELD_NUMBER: _ClassVar[int]
    eval: Eval
    def __init__(self, eval: _Optional[_Union[Eval, _Mapping]] = ...) -> None: ...
