from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
GENERATE_EVENT_TYPE_UNSPECIFIED: GenerateEventType
GENERATE_EVENT_TYPE_STARTED: GenerateEventType
GENERATE_EVENT_TYPE_THINKING: GenerateEventType
GENERATE_EVENT_TYPE_TOOL_CALLED: GenerateEventType
GENERATE_EVENT_TYPE_TOOL_RESULT: GenerateEventType
GENERATE_EVENT_TYPE_TEST_RESULT: GenerateEventType
GENERATE_EVENT_TYPE_SAVED: GenerateEventType
GENERATE_EVENT_TYPE_FAILED: GenerateEventType

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
    __slots__ = ("name", "version", "code", "generator", "train_accuracy", "holdout_accuracy", "dataset", "dataset_version", "split", "created_at", "description")
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
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., code: _Optional[str] = ..., generator: _Optional[str] = ..., train_accuracy: _Optional[float] = ..., holdout_accuracy: _Optional[float] = ..., dataset: _Optional[str] = ..., dataset_version: _Optional[int] = ..., split: _Optional[_Union[Split, _Mapping]] = ..., created_at: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class GenerateEvalRequest(_message.Message):
    __slots__ = ("name", "dataset", "method", "model", "target_accuracy", "max_attempts", "max_steps", "holdout_fraction", "seed")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TARGET_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    HOLDOUT_FRACTION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    name: str
    dataset: str
    method: str
    model: str
    target_accuracy: float
    max_attempts: int
    max_steps: int
    holdout_fraction: float
    seed: int
    def __init__(self, name: _Optional[str] = ..., dataset: _Optional[str] = ..., method: _Optional[str] = ..., model: _Optional[str] = ..., target_accuracy: _Optional[float] = ..., max_attempts: _Optional[int] = ..., max_steps: _Optional[int] = ..., holdout_fraction: _Optional[float] = ..., seed: _Optional[int] = ...) -> None: ...

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
