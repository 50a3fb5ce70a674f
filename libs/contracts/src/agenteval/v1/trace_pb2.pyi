from agenteval.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_SYSTEM: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]
    ROLE_TOOL: _ClassVar[Role]
ROLE_UNSPECIFIED: Role
ROLE_SYSTEM: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
ROLE_TOOL: Role

class Message(_message.Message):
    __slots__ = ("role", "content", "extra_json")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    EXTRA_JSON_FIELD_NUMBER: _ClassVar[int]
    role: Role
    content: str
    extra_json: str
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., content: _Optional[str] = ..., extra_json: _Optional[str] = ...) -> None: ...

class MessageStep(_message.Message):
    __slots__ = ("role", "content", "name")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    role: str
    content: str
    name: str
    def __init__(self, role: _Optional[str] = ..., content: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ("name", "arguments_json", "result_json", "error")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    name: str
    arguments_json: str
    result_json: str
    error: str
    def __init__(self, name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., result_json: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class LlmCall(_message.Message):
    __slots__ = ("model", "input_tokens", "output_tokens", "output", "error")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    model: str
    input_tokens: int
    output_tokens: int
    output: str
    error: str
    def __init__(self, model: _Optional[str] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., output: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("message", "tool_call", "llm_call", "latency_ms", "extra_json")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    LLM_CALL_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    EXTRA_JSON_FIELD_NUMBER: _ClassVar[int]
    message: MessageStep
    tool_call: ToolCall
    llm_call: LlmCall
    latency_ms: float
    extra_json: str
    def __init__(self, message: _Optional[_Union[MessageStep, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., llm_call: _Optional[_Union[LlmCall, _Mapping]] = ..., latency_ms: _Optional[float] = ..., extra_json: _Optional[str] = ...) -> None: ...

class ModelUsage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "other_tokens")
    class OtherTokensEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OTHER_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    other_tokens: _containers.ScalarMap[str, int]
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., other_tokens: _Optional[_Mapping[str, int]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "models")
    class ModelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ModelUsage
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ModelUsage, _Mapping]] = ...) -> None: ...
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    models: _containers.MessageMap[str, ModelUsage]
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., models: _Optional[_Mapping[str, ModelUsage]] = ...) -> None: ...

class TrialError(_message.Message):
    __slots__ = ("code", "message", "retryable")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    retryable: bool
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., retryable: _Optional[bool] = ...) -> None: ...

class Trace(_message.Message):
    __slots__ = ("input", "steps", "output", "state_json", "usage", "latency_ms", "status", "error", "metadata_json", "extra_json")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    EXTRA_JSON_FIELD_NUMBER: _ClassVar[int]
    input: _containers.RepeatedCompositeFieldContainer[Message]
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    output: str
    state_json: str
    usage: Usage
    latency_ms: float
    status: _common_pb2.TrialStatus
    error: TrialError
    metadata_json: str
    extra_json: str
    def __init__(self, input: _Optional[_Iterable[_Union[Message, _Mapping]]] = ..., steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ..., output: _Optional[str] = ..., state_json: _Optional[str] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., latency_ms: _Optional[float] = ..., status: _Optional[_Union[_common_pb2.TrialStatus, str]] = ..., error: _Optional[_Union[TrialError, _Mapping]] = ..., metadata_json: _Optional[str] = ..., extra_json: _Optional[str] = ...) -> None: ...
