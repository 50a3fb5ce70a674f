from agenteval.v1 import common_pb2 as _common_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetRunSummaryRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetRunSummaryResponse(_message.Message):
    __slots__ = ("summary", "complete", "trials_graded", "trials_total")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    TRIALS_GRADED_FIELD_NUMBER: _ClassVar[int]
    TRIALS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    summary: _common_pb2.RunSummary
    complete: bool
    trials_graded: int
    trials_total: int
    def __init__(self, summary: _Optional[_Union[_common_pb2.RunSummary, _Mapping]] = ..., complete: _Optional[bool] = ..., trials_graded: _Optional[int] = ..., trials_total: _Optional[int] = ...) -> None: ...
