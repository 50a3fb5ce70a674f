"""Suites: cases, their inputs and graders."""

from __future__ import annotations

from typing import Any

from agenteval.contracts.pb._json import json_object_from_pb, json_object_to_pb, validate_as
from agenteval.contracts.pb._trace import message_dict, message_to_pb
from agenteval.contracts.suite import Case, GraderSpec, Suite
from agenteval.v1 import suite_pb2


def grader_spec_to_pb(g: GraderSpec) -> suite_pb2.GraderSpec:
    return suite_pb2.GraderSpec(name=g.name, params_json=json_object_to_pb(g.params))


def _grader_dict(m: suite_pb2.GraderSpec, where: str) -> dict[str, Any]:
    return {"name": m.name, "params": json_object_from_pb(m.params_json, f"{where}.params_json")}


def case_to_pb(c: Case) -> suite_pb2.Case:
    msg = suite_pb2.Case(
        id=c.id,
        description=c.description,
        input=[message_to_pb(m) for m in c.input],
        initial_state_json=json_object_to_pb(c.initial_state),
        tool_mocks_json=json_object_to_pb(c.tool_mocks),
        graders=[grader_spec_to_pb(g) for g in c.graders],
        tags=c.tags,
        metadata_json=json_object_to_pb(c.metadata),
    )
    if c.expected_tools is not None:
        msg.expected_tools.names.extend(c.expected_tools)
    if c.expected_output is not None:
        msg.expected_output = c.expected_output
    if c.trials is not None:
        msg.trials = c.trials
    if c.timeout_s is not None:
        msg.timeout_s = c.timeout_s
    return msg


def _case_dict(m: suite_pb2.Case, where: str) -> dict[str, Any]:
    return {
        "id": m.id,
        "description": m.description,
        "input": [message_dict(x, f"{where}.input[{i}]") for i, x in enumerate(m.input)],
        "initial_state": json_object_from_pb(m.initial_state_json, f"{where}.initial_state_json"),
        "tool_mocks": json_object_from_pb(m.tool_mocks_json, f"{where}.tool_mocks_json"),
        "expected_tools": list(m.expected_tools.names) if m.HasField("expected_tools") else None,
        "expected_output": m.expected_output if m.HasField("expected_output") else None,
        "graders": [_grader_dict(g, f"{where}.graders[{i}]") for i, g in enumerate(m.graders)],
        "trials": m.trials if m.HasField("trials") else None,
        "tags": list(m.tags),
        "timeout_s": m.timeout_s if m.HasField("timeout_s") else None,
        "metadata": json_object_from_pb(m.metadata_json, f"{where}.metadata_json"),
    }


def case_from_pb(m: suite_pb2.Case, where: str = "case") -> Case:
    result: Case = validate_as(Case, _case_dict(m, where), where)
    return result


def suite_to_pb(s: Suite) -> suite_pb2.Suite:
    msg = suite_pb2.Suite(
        name=s.name,
        description=s.description,
        trials=s.trials,
        timeout_s=s.timeout_s,
        graders=[grader_spec_to_pb(g) for g in s.graders],
        allowed_imports=s.allowed_imports,
        cases=[case_to_pb(c) for c in s.cases],
    )
    if s.agent is not None:
        msg.agent = s.agent
    return msg


def suite_from_pb(m: suite_pb2.Suite, where: str = "suite") -> Suite:
    """A suite a client sent; raises InvalidArgument saying which field is wrong."""
    d: dict[str, Any] = {
        "name": m.name,
        "description": m.description,
        "agent": m.agent if m.HasField("agent") else None,
        "graders": [_grader_dict(g, f"{where}.graders[{i}]") for i, g in enumerate(m.graders)],
        "allowed_imports": list(m.allowed_imports),
        "cases": [_case_dict(c, f"{where}.cases[{i}]") for i, c in enumerate(m.cases)],
    }
    # 0 is proto3's "not set": the model's defaults apply (valid suites never have 0).
    if m.trials:
        d["trials"] = m.trials
    if m.timeout_s:
        d["timeout_s"] = m.timeout_s
    result: Suite = validate_as(Suite, d, where)
    return result
