from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Comparison(_message.Message):
    __slots__ = ("cases", "suite", "added", "removed", "regressions", "improvements", "threshold", "alpha", "correction", "split_alpha", "passed", "notes", "case_alpha", "suite_alpha", "new_errors", "fail_on_new_errors", "unflaggable", "min_trials_to_flag", "baseline_suite", "candidate_suite", "suites_differ", "changed_cases", "reasons", "grader_scores", "baseline", "candidate")
    CASES_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    REGRESSIONS_FIELD_NUMBER: _ClassVar[int]
    IMPROVEMENTS_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    CORRECTION_FIELD_NUMBER: _ClassVar[int]
    SPLIT_ALPHA_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    CASE_ALPHA_FIELD_NUMBER: _ClassVar[int]
    SUITE_ALPHA_FIELD_NUMBER: _ClassVar[int]
    NEW_ERRORS_FIELD_NUMBER: _ClassVar[int]
    FAIL_ON_NEW_ERRORS_FIELD_NUMBER: _ClassVar[int]
    UNFLAGGABLE_FIELD_NUMBER: _ClassVar[int]
    MIN_TRIALS_TO_FLAG_FIELD_NUMBER: _ClassVar[int]
    BASELINE_SUITE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_SUITE_FIELD_NUMBER: _ClassVar[int]
    SUITES_DIFFER_FIELD_NUMBER: _ClassVar[int]
    CHANGED_CASES_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    GRADER_SCORES_FIELD_NUMBER: _ClassVar[int]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    cases: _containers.RepeatedCompositeFieldContainer[CaseComparison]
    suite: SuiteComparison
    added: _containers.RepeatedScalarFieldContainer[str]
    removed: _containers.RepeatedScalarFieldContainer[str]
    regressions: _containers.RepeatedScalarFieldContainer[str]
    improvements: _containers.RepeatedScalarFieldContainer[str]
    threshold: float
    alpha: float
    correction: str
    split_alpha: bool
    passed: bool
    notes: _containers.RepeatedScalarFieldContainer[str]
    case_alpha: float
    suite_alpha: float
    new_errors: _containers.RepeatedCompositeFieldContainer[ErrorChange]
    fail_on_new_errors: bool
    unflaggable: _containers.RepeatedScalarFieldContainer[str]
    min_trials_to_flag: int
    baseline_suite: str
    candidate_suite: str
    suites_differ: bool
    changed_cases: _containers.RepeatedScalarFieldContainer[str]
    reasons: _containers.RepeatedCompositeFieldContainer[ComparisonReason]
    grader_scores: _containers.RepeatedCompositeFieldContainer[GraderDelta]
    baseline: ComparedRun
    candidate: ComparedRun
    def __init__(self, cases: _Optional[_Iterable[_Union[CaseComparison, _Mapping]]] = ..., suite: _Optional[_Union[SuiteComparison, _Mapping]] = ..., added: _Optional[_Iterable[str]] = ..., removed: _Optional[_Iterable[str]] = ..., regressions: _Optional[_Iterable[str]] = ..., improvements: _Optional[_Iterable[str]] = ..., threshold: _Optional[float] = ..., alpha: _Optional[float] = ..., correction: _Optional[str] = ..., split_alpha: _Optional[bool] = ..., passed: _Optional[bool] = ..., notes: _Optional[_Iterable[str]] = ..., case_alpha: _Optional[float] = ..., suite_alpha: _Optional[float] = ..., new_errors: _Optional[_Iterable[_Union[ErrorChange, _Mapping]]] = ..., fail_on_new_errors: _Optional[bool] = ..., unflaggable: _Optional[_Iterable[str]] = ..., min_trials_to_flag: _Optional[int] = ..., baseline_suite: _Optional[str] = ..., candidate_suite: _Optional[str] = ..., suites_differ: _Optional[bool] = ..., changed_cases: _Optional[_Iterable[str]] = ..., reasons: _Optional[_Iterable[_Union[ComparisonReason, _Mapping]]] = ..., grader_scores: _Optional[_Iterable[_Union[GraderDelta, _Mapping]]] = ..., baseline: _Optional[_Union[ComparedRun, _Mapping]] = ..., candidate: _Optional[_Union[ComparedRun, _Mapping]] = ...) -> None: ...

class CaseComparison(_message.Message):
    __slots__ = ("case_id", "baseline_passes", "baseline_trials", "candidate_passes", "candidate_trials", "baseline_rate", "candidate_rate", "delta", "p_value", "adjusted_p_value", "verdict", "baseline_errors", "baseline_timeouts", "candidate_errors", "candidate_timeouts", "min_p_value", "flaggable", "trials_to_flag", "definition_changed")
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    BASELINE_PASSES_FIELD_NUMBER: _ClassVar[int]
    BASELINE_TRIALS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_PASSES_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_TRIALS_FIELD_NUMBER: _ClassVar[int]
    BASELINE_RATE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_RATE_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    ADJUSTED_P_VALUE_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    BASELINE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    BASELINE_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    MIN_P_VALUE_FIELD_NUMBER: _ClassVar[int]
    FLAGGABLE_FIELD_NUMBER: _ClassVar[int]
    TRIALS_TO_FLAG_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_CHANGED_FIELD_NUMBER: _ClassVar[int]
    case_id: str
    baseline_passes: int
    baseline_trials: int
    candidate_passes: int
    candidate_trials: int
    baseline_rate: float
    candidate_rate: float
    delta: float
    p_value: float
    adjusted_p_value: float
    verdict: str
    baseline_errors: int
    baseline_timeouts: int
    candidate_errors: int
    candidate_timeouts: int
    min_p_value: float
    flaggable: bool
    trials_to_flag: int
    definition_changed: bool
    def __init__(self, case_id: _Optional[str] = ..., baseline_passes: _Optional[int] = ..., baseline_trials: _Optional[int] = ..., candidate_passes: _Optional[int] = ..., candidate_trials: _Optional[int] = ..., baseline_rate: _Optional[float] = ..., candidate_rate: _Optional[float] = ..., delta: _Optional[float] = ..., p_value: _Optional[float] = ..., adjusted_p_value: _Optional[float] = ..., verdict: _Optional[str] = ..., baseline_errors: _Optional[int] = ..., baseline_timeouts: _Optional[int] = ..., candidate_errors: _Optional[int] = ..., candidate_timeouts: _Optional[int] = ..., min_p_value: _Optional[float] = ..., flaggable: _Optional[bool] = ..., trials_to_flag: _Optional[int] = ..., definition_changed: _Optional[bool] = ...) -> None: ...

class SuiteComparison(_message.Message):
    __slots__ = ("n_cases", "mean_delta", "ci_low", "ci_high", "confidence", "p_value", "adjusted_p_value", "verdict", "test")
    N_CASES_FIELD_NUMBER: _ClassVar[int]
    MEAN_DELTA_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    ADJUSTED_P_VALUE_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    TEST_FIELD_NUMBER: _ClassVar[int]
    n_cases: int
    mean_delta: float
    ci_low: float
    ci_high: float
    confidence: float
    p_value: float
    adjusted_p_value: float
    verdict: str
    test: str
    def __init__(self, n_cases: _Optional[int] = ..., mean_delta: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ..., confidence: _Optional[float] = ..., p_value: _Optional[float] = ..., adjusted_p_value: _Optional[float] = ..., verdict: _Optional[str] = ..., test: _Optional[str] = ...) -> None: ...

class ErrorChange(_message.Message):
    __slots__ = ("case_id", "baseline_trials", "baseline_errors", "baseline_timeouts", "candidate_trials", "candidate_errors", "candidate_timeouts", "kinds")
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    BASELINE_TRIALS_FIELD_NUMBER: _ClassVar[int]
    BASELINE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    BASELINE_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_TRIALS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    case_id: str
    baseline_trials: int
    baseline_errors: int
    baseline_timeouts: int
    candidate_trials: int
    candidate_errors: int
    candidate_timeouts: int
    kinds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, case_id: _Optional[str] = ..., baseline_trials: _Optional[int] = ..., baseline_errors: _Optional[int] = ..., baseline_timeouts: _Optional[int] = ..., candidate_trials: _Optional[int] = ..., candidate_errors: _Optional[int] = ..., candidate_timeouts: _Optional[int] = ..., kinds: _Optional[_Iterable[str]] = ...) -> None: ...

class ComparisonReason(_message.Message):
    __slots__ = ("check", "failed", "message")
    CHECK_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    check: str
    failed: bool
    message: str
    def __init__(self, check: _Optional[str] = ..., failed: _Optional[bool] = ..., message: _Optional[str] = ...) -> None: ...

class GraderDelta(_message.Message):
    __slots__ = ("case_id", "grader", "baseline_score", "candidate_score", "delta")
    CASE_ID_FIELD_NUMBER: _ClassVar[int]
    GRADER_FIELD_NUMBER: _ClassVar[int]
    BASELINE_SCORE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_SCORE_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    case_id: str
    grader: str
    baseline_score: float
    candidate_score: float
    delta: float
    def __init__(self, case_id: _Optional[str] = ..., grader: _Optional[str] = ..., baseline_score: _Optional[float] = ..., candidate_score: _Optional[float] = ..., delta: _Optional[float] = ...) -> None: ...

class ComparedRun(_message.Message):
    __slots__ = ("run_id", "agent_version", "suite")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    SUITE_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    agent_version: str
    suite: str
    def __init__(self, run_id: _Optional[str] = ..., agent_version: _Optional[str] = ..., suite: _Optional[str] = ...) -> None: ...
