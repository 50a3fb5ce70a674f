from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeadLetter(_message.Message):
    __slots__ = ("seq", "handler", "subject", "original_seq", "deliveries", "error", "error_id", "recorded", "occurred_at", "data_preview")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HANDLER_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_SEQ_FIELD_NUMBER: _ClassVar[int]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ERROR_ID_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    DATA_PREVIEW_FIELD_NUMBER: _ClassVar[int]
    seq: int
    handler: str
    subject: str
    original_seq: int
    deliveries: int
    error: str
    error_id: str
    recorded: bool
    occurred_at: str
    data_preview: str
    def __init__(self, seq: _Optional[int] = ..., handler: _Optional[str] = ..., subject: _Optional[str] = ..., original_seq: _Optional[int] = ..., deliveries: _Optional[int] = ..., error: _Optional[str] = ..., error_id: _Optional[str] = ..., recorded: _Optional[bool] = ..., occurred_at: _Optional[str] = ..., data_preview: _Optional[str] = ...) -> None: ...

class ListDeadLettersRequest(_message.Message):
    __slots__ = ("handler", "limit")
    HANDLER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    handler: str
    limit: int
    def __init__(self, handler: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListDeadLettersResponse(_message.Message):
    __slots__ = ("dead_letters",)
    DEAD_LETTERS_FIELD_NUMBER: _ClassVar[int]
    dead_letters: _containers.RepeatedCompositeFieldContainer[DeadLetter]
    def __init__(self, dead_letters: _Optional[_Iterable[_Union[DeadLetter, _Mapping]]] = ...) -> None: ...

class ReplayDeadLetterRequest(_message.Message):
    __slots__ = ("seq",)
    SEQ_FIELD_NUMBER: _ClassVar[int]
    seq: int
    def __init__(self, seq: _Optional[int] = ...) -> None: ...

class ReplayDeadLetterResponse(_message.Message):
    __slots__ = ("dead_letter",)
    DEAD_LETTER_FIELD_NUMBER: _ClassVar[int]
    dead_letter: DeadLetter
    def __init__(self, dead_letter: _Optional[_Union[DeadLetter, _Mapping]] = ...) -> None: ...
