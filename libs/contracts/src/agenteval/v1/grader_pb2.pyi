from agenteval.v1 import trace_pb2 as _trace_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Label(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LABEL_UNSPECIFIED: _ClassVar[Label]
    LABEL_POSITIVE: _ClassVar[Label]
    LABEL_NEGATIVE: _ClassVar[Label]
LABEL_UNSPECIFIED: Label
LABEL_POSITIVE: Label
LABEL_NEGATIVE: Label

class LabeledTrace(_message.Message):
    __slots__ = ("trace_id", "trace", "label")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    trace: _trace_pb2.Trace
    label: Label
    def __init__(self, trace_id: _Optional[str] = ..., trace: _Optional[_Union[_trace_pb2.Trace, _Mapping]] = ..., label: _Optional[_Union[Label, str]] = ...) -> None: ...

class TestEvalCodeRequest(_message.Message):
    __slots__ = ("code", "traces", "allowed_imports", "timeout_s")
    CODE_FIELD_NUMBER: _ClassVar[int]
    TRACES_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_IMPORTS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    code: str
    traces: _containers.RepeatedCompositeFieldContainer[LabeledTrace]
    allowed_imports: _containers.RepeatedScalarFieldContainer[str]
    timeout_s: float
    def __init__(self, code: _Optional[str] = ..., traces: _Optional[_Iterable[_Union[LabeledTrace, _Mapping]]] = ..., allowed_imports: _Optional[_Iterable[str]] = ..., timeout_s: _Optional[float] = ...) -> None: ...

class Mismatch(_message.Message):
    __slots__ = ("trace_id", "expected", "predicted", "score", "explanation", "error")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    PREDICTED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    expected: Label
    predicted: Label
    score: float
    explanation: str
    error: str
    def __init__(self, trace_id: _Optional[str] = ..., expected: _Optional[_Union[Label, str]] = ..., predicted: _Optional[_Union[Label, str]] = ..., score: _Optional[float] = ..., explanation: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class TestEvalCodeResponse(_message.Message):
    __slots__ = ("accuracy", "total", "correct", "incorrect", "errors", "mismatches", "code_error")
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    INCORRECT_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    MISMATCHES_FIELD_NUMBER: _ClassVar[int]
    CODE_ERROR_FIELD_NUMBER: _ClassVar[int]
    accuracy: float
    total: int
    correct: int
    incorrect: int
    errors: int
    mismatches: _containers.RepeatedCompositeFieldContainer[Mismatch]
    code_error: str
    def __init__(self, accuracy: _Optional[float] = ..., total: _Optional[int] = ..., correct: _Optional[int] = ..., incorrect: _Optional[int] = ..., errors: _Optional[int] = ..., mismatches: _Optional[_Iterable[_Union[Mismatch, _Mapping]]] = ..., code_error: _Optional[str] = ...) -> None: ...
