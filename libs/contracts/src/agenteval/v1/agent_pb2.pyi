from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class RunAgentRequest(_message.Message):
    __slots__ = ("run_id", "case_id", "trial_index", "seed", "messages_json", "initial_state_json", "tool_mocks_json")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    TRIAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_JSON_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    TOOL_MOCKS_JSON_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    case_id: str
    trial_index: int
    seed: int
    messages_json: str
    initial_state_json: str
    tool_mocks_json: str
    def __init__(self, run_id: _Optional[str] = ..., case_id: _Optional[str] = ..., trial_index: _Optional[int] = ..., seed: _Optional[int] = ..., messages_json: _Optional[str] = ..., initial_state_json: _Optional[str] = ..., tool_mocks_json: _Optional[str] = ...) -> None: ...

class RunAgentResponse(_message.Message):
    __slots__ = ("output", "steps_json", "state_json", "input_tokens", "output_tokens")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    STEPS_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    output: str
    steps_json: str
    state_json: str
    input_tokens: int
    output_tokens: int
    def __init__(self, output: _Optional[str] = ..., steps_json: _Optional[str] = ..., state_json: _Optional[str] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ...) -> None: ...
