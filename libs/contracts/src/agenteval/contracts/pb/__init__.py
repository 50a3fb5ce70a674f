"""The one place where the pydantic contracts become protobuf messages and back.

Every servicer and client converts here, so each concept has one Python model (the pydantic
ones in ``agenteval.contracts``) and one message (``proto/agenteval/v1``). Free-form user data
(state, tool arguments and results, grader parameters, metadata, extra fields) travels as
JSON text in ``*_json`` fields: JSON keeps integers integers, which ``google.protobuf.Struct``
does not. An empty ``*_json`` field means an empty object (or, for a tool result, none).

Decoding what a client or an agent sent raises :class:`InvalidArgument` naming the field.
"""

from agenteval.contracts.pb._json import json_object_from_pb, json_object_to_pb
from agenteval.contracts.pb._records import (
    LABEL_FROM_PB,
    LABEL_TO_PB,
    RUN_STATUS_FROM_PB,
    RUN_STATUS_TO_PB,
    eval_from_pb,
    eval_report_from_pb,
    eval_report_to_pb,
    eval_to_pb,
    grade_from_pb,
    grade_to_pb,
    grades_from_pb,
    import_report_from_pb,
    import_report_to_pb,
    labeled_trace_to_pb,
    labeled_traces_from_pb,
    run_from_pb,
    run_to_pb,
    trace_info_from_pb,
    trace_info_to_pb,
    trial_from_pb,
    trial_to_pb,
)
from agenteval.contracts.pb._results import REPORT_KIND_TO_PB, reported_to_pb, trial_result_to_pb
from agenteval.contracts.pb._suite import (
    case_from_pb,
    case_to_pb,
    grader_spec_to_pb,
    suite_from_pb,
    suite_to_pb,
)
from agenteval.contracts.pb._summary import (
    case_summary_from_pb,
    case_summary_to_pb,
    latency_from_pb,
    latency_to_pb,
    summary_from_pb,
    summary_to_pb,
)
from agenteval.contracts.pb._trace import (
    ROLE_FROM_PB,
    ROLE_TO_PB,
    TRIAL_STATUS_FROM_PB,
    TRIAL_STATUS_TO_PB,
    message_to_pb,
    step_dict_from_pb,
    step_from_pb,
    step_to_pb,
    trace_from_pb,
    trace_to_pb,
    usage_to_pb,
)

__all__ = [
    "LABEL_FROM_PB",
    "LABEL_TO_PB",
    "REPORT_KIND_TO_PB",
    "ROLE_FROM_PB",
    "ROLE_TO_PB",
    "RUN_STATUS_FROM_PB",
    "RUN_STATUS_TO_PB",
    "TRIAL_STATUS_FROM_PB",
    "TRIAL_STATUS_TO_PB",
    "case_from_pb",
    "case_summary_from_pb",
    "case_summary_to_pb",
    "case_to_pb",
    "eval_from_pb",
    "eval_report_from_pb",
    "eval_report_to_pb",
    "eval_to_pb",
    "grade_from_pb",
    "grade_to_pb",
    "grader_spec_to_pb",
    "grades_from_pb",
    "import_report_from_pb",
    "import_report_to_pb",
    "json_object_from_pb",
    "json_object_to_pb",
    "labeled_trace_to_pb",
    "labeled_traces_from_pb",
    "latency_from_pb",
    "latency_to_pb",
    "message_to_pb",
    "reported_to_pb",
    "run_from_pb",
    "run_to_pb",
    "step_dict_from_pb",
    "step_from_pb",
    "step_to_pb",
    "suite_from_pb",
    "suite_to_pb",
    "summary_from_pb",
    "summary_to_pb",
    "trace_from_pb",
    "trace_info_from_pb",
    "trace_info_to_pb",
    "trace_to_pb",
    "trial_from_pb",
    "trial_result_to_pb",
    "trial_to_pb",
    "usage_to_pb",
]
