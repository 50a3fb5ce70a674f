"""Stored suites (SuiteService): versions, listings and pushes as contract models."""

from __future__ import annotations

from agenteval.contracts.records import StoredSuiteInfo, SuitePush, SuiteVersionInfo
from agenteval.v1 import suites_pb2


def suite_version_from_pb(m: suites_pb2.SuiteVersion) -> SuiteVersionInfo:
    return SuiteVersionInfo(
        name=m.name,
        version=m.version,
        digest=m.digest,
        created_at=m.created_at,
        case_count=m.case_count,
        tags=list(m.tags),
        current=m.current,
        description=m.description,
        suite_yaml=m.suite_yaml,
    )


def stored_suite_from_pb(m: suites_pb2.StoredSuite) -> StoredSuiteInfo:
    return StoredSuiteInfo(
        name=m.name,
        current=suite_version_from_pb(m.current),
        version_count=m.version_count,
        created_at=m.created_at,
        updated_at=m.updated_at,
    )


def suite_push_from_pb(m: suites_pb2.UpdateSuiteResponse) -> SuitePush:
    return SuitePush(
        version=suite_version_from_pb(m.version),
        new_version=m.new_version,
        previous_version=m.previous_version,
    )
