"""Saved evals, generation requests, jobs and their events."""

from __future__ import annotations

from typing import get_args

from agenteval.contracts.errors import InvalidArgument
from agenteval.contracts.evals import (
    EvalCandidate,
    EvalInfo,
    EvalSplit,
    GenerationEvent,
    GenerationJob,
    GenerationMethod,
    GenerationRequest,
    GenerationUsage,
)
from agenteval.contracts.pb._records import _time_from_pb, _time_to_pb
from agenteval.v1 import eval_generator_pb2 as pb

EVAL_STATUS_TO_PB = {
    "current": pb.EVAL_STATUS_CURRENT,
    "active": pb.EVAL_STATUS_ACTIVE,
    "candidate": pb.EVAL_STATUS_CANDIDATE,
}
EVAL_STATUS_FROM_PB = {v: k for k, v in EVAL_STATUS_TO_PB.items()}
JOB_STATUS_TO_PB = {
    "queued": pb.GENERATION_JOB_STATUS_QUEUED,
    "running": pb.GENERATION_JOB_STATUS_RUNNING,
    "done": pb.GENERATION_JOB_STATUS_DONE,
    "failed": pb.GENERATION_JOB_STATUS_FAILED,
    "cancelled": pb.GENERATION_JOB_STATUS_CANCELLED,
}
JOB_STATUS_FROM_PB = {v: k for k, v in JOB_STATUS_TO_PB.items()}
OUTCOME_TO_PB = {
    "promoted": pb.GENERATION_OUTCOME_PROMOTED,
    "candidate": pb.GENERATION_OUTCOME_CANDIDATE,
    "kept": pb.GENERATION_OUTCOME_KEPT,
}
OUTCOME_FROM_PB = {v: k for k, v in OUTCOME_TO_PB.items()}
GENERATE_EVENT_TO_PB = {
    "started": pb.GENERATE_EVENT_TYPE_STARTED,
    "thinking": pb.GENERATE_EVENT_TYPE_THINKING,
    "tool_called": pb.GENERATE_EVENT_TYPE_TOOL_CALLED,
    "tool_result": pb.GENERATE_EVENT_TYPE_TOOL_RESULT,
    "test_result": pb.GENERATE_EVENT_TYPE_TEST_RESULT,
    "saved": pb.GENERATE_EVENT_TYPE_SAVED,
    "failed": pb.GENERATE_EVENT_TYPE_FAILED,
    "candidate": pb.GENERATE_EVENT_TYPE_CANDIDATE,
    "cancelled": pb.GENERATE_EVENT_TYPE_CANCELLED,
    "kept": pb.GENERATE_EVENT_TYPE_KEPT,
    "warning": pb.GENERATE_EVENT_TYPE_WARNING,
}
GENERATE_EVENT_FROM_PB = {v: k for k, v in GENERATE_EVENT_TO_PB.items()}
_METHODS: tuple[str, ...] = get_args(GenerationMethod)


def generation_usage_to_pb(u: GenerationUsage) -> pb.GenerationUsage:
    return pb.GenerationUsage(
        input_tokens=u.input_tokens,
        output_tokens=u.output_tokens,
        cost_usd=u.cost_usd,
        price_known=u.price_known,
        attempts=u.attempts,
        steps=u.steps,
        stop_reason=u.stop_reason,
        model=u.model,
    )


def generation_usage_from_pb(m: pb.GenerationUsage) -> GenerationUsage:
    return GenerationUsage(
        model=m.model,
        input_tokens=m.input_tokens,
        output_tokens=m.output_tokens,
        cost_usd=m.cost_usd,
        price_known=m.price_known,
        attempts=m.attempts,
        steps=m.steps,
        stop_reason=m.stop_reason,
    )


def candidate_to_pb(c: EvalCandidate) -> pb.Candidate:
    return pb.Candidate(
        source=c.source,
        train_accuracy=c.train_accuracy,
        errors=c.errors,
        code_error=c.code_error or "",
        chosen=c.chosen,
        note=c.note,
        version=c.version,
    )


def candidate_from_pb(m: pb.Candidate) -> EvalCandidate:
    return EvalCandidate.model_validate(
        {
            "source": m.source,
            "train_accuracy": m.train_accuracy,
            "errors": m.errors,
            "code_error": m.code_error or None,
            "chosen": m.chosen,
            "note": m.note,
            "version": m.version,
        }
    )


def eval_to_pb(e: EvalInfo) -> pb.Eval:
    msg = pb.Eval(
        name=e.name,
        version=e.version,
        code=e.code,
        generator=e.generator,
        train_accuracy=e.train_accuracy,
        holdout_accuracy=e.holdout_accuracy,
        dataset=e.dataset,
        dataset_version=e.dataset_version,
        created_at=_time_to_pb(e.created_at),
        description=e.description,
        status=EVAL_STATUS_TO_PB[e.status],
        promoted_at=_time_to_pb(e.promoted_at),
        target_accuracy=e.target_accuracy,
        job_id=e.job_id,
        usage=generation_usage_to_pb(e.usage),
        candidates=[candidate_to_pb(c) for c in e.candidates],
    )
    if e.split is not None:
        msg.split.CopyFrom(
            pb.Split(
                seed=e.split.seed,
                holdout_fraction=e.split.holdout_fraction,
                train_trace_ids=e.split.train,
                holdout_trace_ids=e.split.holdout,
            )
        )
    return msg


def eval_from_pb(m: pb.Eval) -> EvalInfo:
    split = None
    if m.HasField("split"):
        split = EvalSplit(
            seed=m.split.seed,
            holdout_fraction=m.split.holdout_fraction,
            train=list(m.split.train_trace_ids),
            holdout=list(m.split.holdout_trace_ids),
        )
    return EvalInfo(
        name=m.name,
        version=m.version,
        code=m.code,
        generator=m.generator,
        train_accuracy=m.train_accuracy,
        holdout_accuracy=m.holdout_accuracy,
        dataset=m.dataset,
        dataset_version=m.dataset_version,
        split=split,
        created_at=_time_from_pb(m.created_at),
        description=m.description,
        # Saved before statuses existed: promoted, as every version was then.
        status=EVAL_STATUS_FROM_PB.get(m.status, "active"),
        promoted_at=_time_from_pb(m.promoted_at),
        target_accuracy=m.target_accuracy,
        job_id=m.job_id,
        usage=generation_usage_from_pb(m.usage),
        candidates=[candidate_from_pb(c) for c in m.candidates],
    )


def generation_request_to_pb(r: GenerationRequest) -> pb.GenerateEvalRequest:
    return pb.GenerateEvalRequest(
        name=r.name,
        dataset=r.dataset,
        method=r.method,
        model=r.model,
        target_accuracy=r.target_accuracy,
        max_attempts=r.max_attempts,
        max_steps=r.max_steps,
        holdout_fraction=r.holdout_fraction,
        seed=r.seed,
        allow_fallback=r.allow_fallback,
    )


def generation_request_from_pb(m: pb.GenerateEvalRequest) -> GenerationRequest:
    """What a client asked, proto3's zeros read as "the default"; raises InvalidArgument for a
    method that is none of the known ones (the eval generator checks the ranges)."""
    method = m.method or "auto"
    if method not in _METHODS:
        raise InvalidArgument(f"method must be {', '.join(_METHODS[:-1])} or {_METHODS[-1]}, got {method!r}")
    return GenerationRequest.model_validate(
        {
            "name": m.name,
            "dataset": m.dataset,
            "method": method,
            "model": m.model or GenerationRequest.model_fields["model"].default,
            "target_accuracy": m.target_accuracy or GenerationRequest.model_fields["target_accuracy"].default,
            "max_attempts": m.max_attempts or GenerationRequest.model_fields["max_attempts"].default,
            "max_steps": m.max_steps or GenerationRequest.model_fields["max_steps"].default,
            "holdout_fraction": m.holdout_fraction
            or GenerationRequest.model_fields["holdout_fraction"].default,
            "seed": m.seed,
            "allow_fallback": m.allow_fallback,
        }
    )


def generation_job_to_pb(j: GenerationJob) -> pb.GenerationJob:
    return pb.GenerationJob(
        job_id=j.job_id,
        status=JOB_STATUS_TO_PB[j.status],
        request=generation_request_to_pb(j.request),
        created_at=_time_to_pb(j.created_at),
        started_at=_time_to_pb(j.started_at),
        finished_at=_time_to_pb(j.finished_at),
        outcome=OUTCOME_TO_PB[j.outcome] if j.outcome else pb.GENERATION_OUTCOME_UNSPECIFIED,
        eval_version=j.eval_version,
        error=j.error or "",
        error_code=j.error_code or "",
        usage=generation_usage_to_pb(j.usage),
        runs=j.runs,
        last_sequence=j.last_sequence,
        train_accuracy=j.train_accuracy,
        holdout_accuracy=j.holdout_accuracy,
    )


def generation_job_from_pb(m: pb.GenerationJob) -> GenerationJob:
    return GenerationJob(
        job_id=m.job_id,
        status=JOB_STATUS_FROM_PB.get(m.status, "queued"),
        request=generation_request_from_pb(m.request),
        created_at=_time_from_pb(m.created_at),
        started_at=_time_from_pb(m.started_at),
        finished_at=_time_from_pb(m.finished_at),
        outcome=OUTCOME_FROM_PB.get(m.outcome),
        eval_version=m.eval_version,
        error=m.error or None,
        error_code=m.error_code or None,
        usage=generation_usage_from_pb(m.usage),
        runs=m.runs,
        last_sequence=m.last_sequence,
        train_accuracy=m.train_accuracy,
        holdout_accuracy=m.holdout_accuracy,
    )


def generation_event_to_pb(e: GenerationEvent) -> pb.GenerationEvent:
    msg = pb.GenerationEvent(
        sequence=e.sequence,
        type=GENERATE_EVENT_TO_PB[e.type],
        message=e.message,
        accuracy=e.accuracy,
        step=e.step,
        created_at=_time_to_pb(e.created_at),
    )
    if e.eval is not None:
        msg.eval.CopyFrom(eval_to_pb(e.eval))
    return msg


def generation_event_from_pb(m: pb.GenerationEvent) -> GenerationEvent:
    return GenerationEvent(
        sequence=m.sequence,
        type=GENERATE_EVENT_FROM_PB.get(m.type, "thinking"),
        message=m.message,
        accuracy=m.accuracy,
        step=m.step,
        created_at=_time_from_pb(m.created_at),
        eval=eval_from_pb(m.eval) if m.HasField("eval") else None,
    )


def generate_eval_response_to_pb(e: GenerationEvent) -> pb.GenerateEvalResponse:
    """An event of the one-call GenerateEval stream (no sequence numbers there)."""
    msg = pb.GenerateEvalResponse(
        type=GENERATE_EVENT_TO_PB[e.type], message=e.message, accuracy=e.accuracy, step=e.step
    )
    if e.eval is not None:
        msg.eval.CopyFrom(eval_to_pb(e.eval))
    return msg


def generate_eval_response_from_pb(m: pb.GenerateEvalResponse) -> GenerationEvent:
    return GenerationEvent(
        type=GENERATE_EVENT_FROM_PB.get(m.type, "thinking"),
        message=m.message,
        accuracy=m.accuracy,
        step=m.step,
        eval=eval_from_pb(m.eval) if m.HasField("eval") else None,
    )
