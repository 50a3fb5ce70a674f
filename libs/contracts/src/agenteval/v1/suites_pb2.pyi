from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CaseChangeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CASE_CHANGE_KIND_UNSPECIFIED: _ClassVar[CaseChangeKind]
    CASE_CHANGE_KIND_ADDED: _ClassVar[CaseChangeKind]
    CASE_CHANGE_KIND_REMOVED: _ClassVar[CaseChangeKind]
    CASE_CHANGE_KIND_MODIFIED: _ClassVar[CaseChangeKind]
CASE_CHANGE_KIND_UNSPECIFIED: CaseChangeKind
CASE_CHANGE_KIND_ADDED: CaseChangeKind
CASE_CHANGE_KIND_REMOVED: CaseChangeKind
CASE_CHANGE_KIND_MODIFIED: CaseChangeKind

class SuiteVersion(_message.Message):
    __slots__ = ("name", "version", "digest", "created_at", "case_count", "tags", "current", "description", "suite_yaml")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CASE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SUITE_YAML_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    digest: str
    created_at: str
    case_count: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    current: bool
    description: str
    suite_yaml: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., digest: _Optional[str] = ..., created_at: _Optional[str] = ..., case_count: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ..., current: _Optional[bool] = ..., description: _Optional[str] = ..., suite_yaml: _Optional[str] = ...) -> None: ...

class StoredSuite(_message.Message):
    __slots__ = ("name", "current", "version_count", "created_at", "updated_at")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    name: str
    current: SuiteVersion
    version_count: int
    created_at: str
    updated_at: str
    def __init__(self, name: _Optional[str] = ..., current: _Optional[_Union[SuiteVersion, _Mapping]] = ..., version_count: _Optional[int] = ..., created_at: _Optional[str] = ..., updated_at: _Optional[str] = ...) -> None: ...

class SuiteRef(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class CreateSuiteRequest(_message.Message):
    __slots__ = ("suite_yaml",)
    SUITE_YAML_FIELD_NUMBER: _ClassVar[int]
    suite_yaml: str
    def __init__(self, suite_yaml: _Optional[str] = ...) -> None: ...

class CreateSuiteResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: SuiteVersion
    def __init__(self, version: _Optional[_Union[SuiteVersion, _Mapping]] = ...) -> None: ...

class GetSuiteRequest(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class GetSuiteResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: SuiteVersion
    def __init__(self, version: _Optional[_Union[SuiteVersion, _Mapping]] = ...) -> None: ...

class ListSuitesRequest(_message.Message):
    __slots__ = ("tag", "limit")
    TAG_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    tag: str
    limit: int
    def __init__(self, tag: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListSuitesResponse(_message.Message):
    __slots__ = ("suites",)
    SUITES_FIELD_NUMBER: _ClassVar[int]
    suites: _containers.RepeatedCompositeFieldContainer[StoredSuite]
    def __init__(self, suites: _Optional[_Iterable[_Union[StoredSuite, _Mapping]]] = ...) -> None: ...

class UpdateSuiteRequest(_message.Message):
    __slots__ = ("name", "suite_yaml", "expected_version", "allow_missing")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SUITE_YAML_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    ALLOW_MISSING_FIELD_NUMBER: _ClassVar[int]
    name: str
    suite_yaml: str
    expected_version: int
    allow_missing: bool
    def __init__(self, name: _Optional[str] = ..., suite_yaml: _Optional[str] = ..., expected_version: _Optional[int] = ..., allow_missing: _Optional[bool] = ...) -> None: ...

class UpdateSuiteResponse(_message.Message):
    __slots__ = ("version", "new_version", "previous_version")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NEW_VERSION_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_VERSION_FIELD_NUMBER: _ClassVar[int]
    version: SuiteVersion
    new_version: bool
    previous_version: int
    def __init__(self, version: _Optional[_Union[SuiteVersion, _Mapping]] = ..., new_version: _Optional[bool] = ..., previous_version: _Optional[int] = ...) -> None: ...

class DeleteSuiteRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteSuiteResponse(_message.Message):
    __slots__ = ("versions_deleted",)
    VERSIONS_DELETED_FIELD_NUMBER: _ClassVar[int]
    versions_deleted: int
    def __init__(self, versions_deleted: _Optional[int] = ...) -> None: ...

class ListSuiteVersionsRequest(_message.Message):
    __slots__ = ("name", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    limit: int
    def __init__(self, name: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListSuiteVersionsResponse(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[SuiteVersion]
    def __init__(self, versions: _Optional[_Iterable[_Union[SuiteVersion, _Mapping]]] = ...) -> None: ...

class DiffSuitesRequest(_message.Message):
    __slots__ = ("base", "target")
    BASE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    base: SuiteRef
    target: SuiteRef
    def __init__(self, base: _Optional[_Union[SuiteRef, _Mapping]] = ..., target: _Optional[_Union[SuiteRef, _Mapping]] = ...) -> None: ...

class FieldChange(_message.Message):
    __slots__ = ("field", "before_yaml", "after_yaml")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    BEFORE_YAML_FIELD_NUMBER: _ClassVar[int]
    AFTER_YAML_FIELD_NUMBER: _ClassVar[int]
    field: str
    before_yaml: str
    after_yaml: str
    def __init__(self, field: _Optional[str] = ..., before_yaml: _Optional[str] = ..., after_yaml: _Optional[str] = ...) -> None: ...

class CaseChange(_message.Message):
    __slots__ = ("case_id", "kind", "fields", "before_yaml", "after_yaml", "unified_diff")
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    BEFORE_YAML_FIELD_NUMBER: _ClassVar[int]
    AFTER_YAML_FIELD_NUMBER: _ClassVar[int]
    UNIFIED_DIFF_FIELD_NUMBER: _ClassVar[int]
    case_id: str
    kind: CaseChangeKind
    fields: _containers.RepeatedScalarFieldContainer[str]
    before_yaml: str
    after_yaml: str
    unified_diff: str
    def __init__(self, case_id: _Optional[str] = ..., kind: _Optional[_Union[CaseChangeKind, str]] = ..., fields: _Optional[_Iterable[str]] = ..., before_yaml: _Optional[str] = ..., after_yaml: _Optional[str] = ..., unified_diff: _Optional[str] = ...) -> None: ...

class DiffSuitesResponse(_message.Message):
    __slots__ = ("base", "target", "suite_fields", "cases", "unchanged_cases", "order_changed", "identical")
    BASE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    CASES_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_CASES_FIELD_NUMBER: _ClassVar[int]
    ORDER_CHANGED_FIELD_NUMBER: _ClassVar[int]
    IDENTICAL_FIELD_NUMBER: _ClassVar[int]
    base: SuiteVersion
    target: SuiteVersion
    suite_fields: _containers.RepeatedCompositeFieldContainer[FieldChange]
    cases: _containers.RepeatedCompositeFieldContainer[CaseChange]
    unchanged_cases: int
    order_changed: bool
    identical: bool
    def __init__(self, base: _Optional[_Union[SuiteVersion, _Mapping]] = ..., target: _Optional[_Union[SuiteVersion, _Mapping]] = ..., suite_fields: _Optional[_Iterable[_Union[FieldChange, _Mapping]]] = ..., cases: _Optional[_Iterable[_Union[CaseChange, _Mapping]]] = ..., unchanged_cases: _Optional[int] = ..., order_changed: _Optional[bool] = ..., identical: _Optional[bool] = ...) -> None: ...
