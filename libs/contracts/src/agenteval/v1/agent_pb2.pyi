from agenteval.v1 import trace_pb2 as _trace_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunAgentRequest(_message.Message):
    __slots__ = ("run_id", "case_id", "trial_index", "seed", "messages", "initial_state_json", "tool_mocks_json")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    TRIAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TOOL_MOCKS_JSON_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    case_id: str
    trial_index: int
    seed: int
    messages: _containers.RepeatedCompositeFieldContainer[_trace_pb2.Message]
    initial_state_json: str
    tool_mocks_json: str
    def __init__(self, run_id: _Optional[str] = ..., case_id: _Optional[str] = ..., trial_index: _Optional[int] = ..., seed: _Optional[int] = ..., messages: _Optional[_Iterable[_Union[_trace_pb2.Message, _Mapping]]] = ..., initial_state_json: _Optional[str] = ..., tool_mocks_json: _Optional[str] = ...) -> None: ...

class RunAgentResponse(_message.Message):
    __slots__ = ("output", "steps", "state_json", "input_tokens", "output_tokens")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    output: str
    steps: _containers.RepeatedCompositeFieldContainer[_trace_pb2.Step]
    state_json: str
    input_tokens: int
    output_tokens: int
    def __init__(self, output: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[_trace_pb2.Step, _Mapping]]] = ..., state_json: _Optional[str] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ...) -> None: ...
