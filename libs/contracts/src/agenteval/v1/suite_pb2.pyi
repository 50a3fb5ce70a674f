from agenteval.v1 import trace_pb2 as _trace_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GraderSpec(_message.Message):
    __slots__ = ("name", "params_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    params_json: str
    def __init__(self, name: _Optional[str] = ..., params_json: _Optional[str] = ...) -> None: ...

class ExpectedTools(_message.Message):
    __slots__ = ("names",)
    NAMES_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, names: _Optional[_Iterable[str]] = ...) -> None: ...

class Case(_message.Message):
    __slots__ = ("id", "description", "input", "initial_state_json", "tool_mocks_json", "expected_tools", "expected_output", "graders", "trials", "tags", "timeout_s", "metadata_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TOOL_MOCKS_JSON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    GRADERS_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    id: str
    description: str
    input: _containers.RepeatedCompositeFieldContainer[_trace_pb2.Message]
    initial_state_json: str
    tool_mocks_json: str
    expected_tools: ExpectedTools
    expected_output: str
    graders: _containers.RepeatedCompositeFieldContainer[GraderSpec]
    trials: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    timeout_s: float
    metadata_json: str
    def __init__(self, id: _Optional[str] = ..., description: _Optional[str] = ..., input: _Optional[_Iterable[_Union[_trace_pb2.Message, _Mapping]]] = ..., initial_state_json: _Optional[str] = ..., tool_mocks_json: _Optional[str] = ..., expected_tools: _Optional[_Union[ExpectedTools, _Mapping]] = ..., expected_output: _Optional[str] = ..., graders: _Optional[_Iterable[_Union[GraderSpec, _Mapping]]] = ..., trials: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., timeout_s: _Optional[float] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class Suite(_message.Message):
    __slots__ = ("name", "description", "agent", "trials", "timeout_s", "graders", "allowed_imports", "cases")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    TRIALS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    GRADERS_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_IMPORTS_FIELD_NUMBER: _ClassVar[int]
    CASES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    agent: str
    trials: int
    timeout_s: float
    graders: _containers.RepeatedCompositeFieldContainer[GraderSpec]
    allowed_imports: _containers.RepeatedScalarFieldContainer[str]
    cases: _containers.RepeatedCompositeFieldContainer[Case]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., agent: _Optional[str] = ..., trials: _Optional[int] = ..., timeout_s: _Optional[float] = ..., graders: _Optional[_Iterable[_Union[GraderSpec, _Mapping]]] = ..., allowed_imports: _Optional[_Iterable[str]] = ..., cases: _Optional[_Iterable[_Union[Case, _Mapping]]] = ...) -> None: ...
