"""The comparison document (agenteval.stats' Comparison as a dict, the shape the reports
read) and its message, ``agenteval.v1.Comparison``: field for field the same names."""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import json_format

from agenteval.v1 import comparison_pb2


def _finite(value: Any) -> Any:
    """NaN/inf have no JSON form the reports expect: None (an unset optional field)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def comparison_to_pb(doc: dict[str, Any]) -> comparison_pb2.Comparison:
    """The comparison document as its message (unknown keys are an error: the message must
    say everything the document says)."""
    return json_format.ParseDict(_drop_none(_finite(doc)), comparison_pb2.Comparison())


def comparison_from_pb(msg: comparison_pb2.Comparison) -> dict[str, Any]:
    """The message as the comparison document: every field present, unset optionals None."""
    doc: dict[str, Any] = json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    if not msg.HasField("min_trials_to_flag"):
        doc["min_trials_to_flag"] = None
    for case, case_msg in zip(doc.get("cases", []), msg.cases, strict=True):
        if not case_msg.HasField("trials_to_flag"):
            case["trials_to_flag"] = None
    for delta, delta_msg in zip(doc.get("grader_scores", []), msg.grader_scores, strict=True):
        for name in ("baseline_score", "candidate_score", "delta"):
            if not delta_msg.HasField(name):
                delta[name] = None
    return doc
