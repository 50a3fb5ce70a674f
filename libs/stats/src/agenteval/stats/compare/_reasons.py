"""The reasons a comparison passed or failed, new errors and timeouts, and the notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agenteval.stats.compare._model import CaseComparison, Comparison, ErrorChange, Reason, SuiteComparison


def error_changes(
    shared: Sequence[str],
    baseline: Mapping[str, tuple[int, int]],
    candidate: Mapping[str, tuple[int, int]],
    baseline_errors: Mapping[str, tuple[int, int]],
    candidate_errors: Mapping[str, tuple[int, int]],
) -> list[ErrorChange]:
    """Shared cases whose trials newly error or time out.

    A kind (errors, timeouts) is new for a case when the candidate has some and the
    baseline had none, or when every candidate trial has it and not every baseline trial did.
    """
    out = []
    for case_id in shared:
        b_n, c_n = baseline[case_id][1], candidate[case_id][1]
        b_err, b_to = baseline_errors.get(case_id, (0, 0))
        c_err, c_to = candidate_errors.get(case_id, (0, 0))
        kinds = [
            kind
            for kind, b, c in (("errors", b_err, c_err), ("timeouts", b_to, c_to))
            if c > 0 and (b == 0 or (c >= c_n and b < b_n))
        ]
        if kinds:
            out.append(ErrorChange(case_id, b_n, b_err, b_to, c_n, c_err, c_to, kinds))
    return out


def _error_text(e: ErrorChange) -> str:
    parts = []
    if "errors" in e.kinds:
        parts.append(
            f"{e.candidate_errors}/{e.candidate_trials} trials error (baseline {e.baseline_errors}/{e.baseline_trials})"
        )
    if "timeouts" in e.kinds:
        parts.append(
            f"{e.candidate_timeouts}/{e.candidate_trials} time out (baseline {e.baseline_timeouts}/{e.baseline_trials})"
        )
    return f"{e.case_id}: " + ", ".join(parts)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def errors_reason(new_errors: Sequence[ErrorChange], fail_on_new_errors: bool) -> Reason:
    """The errors check: which cases newly error or time out, and whether that fails the comparison."""
    if not new_errors:
        return Reason("errors", False, "no case newly errors or times out")
    listed = "; ".join(_error_text(e) for e in new_errors)
    head = f"{_plural(len(new_errors), 'case')} newly {'errors or times out' if len(new_errors) == 1 else 'error or time out'}"
    if not fail_on_new_errors:
        return Reason("errors", False, f"{head} (not gating): {listed}")
    return Reason("errors", True, f"{head}: {listed}")


def gate(comparison: Comparison, fail_on_new_errors: bool) -> tuple[bool, list[Reason]]:
    """The verdict and reasons of a comparison with new errors gating or not."""
    reasons = [
        errors_reason(comparison.new_errors, fail_on_new_errors) if r.check == "errors" else r
        for r in comparison.reasons
    ]
    return not any(r.failed for r in reasons), reasons


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}"


def cases_reason(cases: list[CaseComparison], alpha: float, case_alpha: float, correction: str) -> Reason:
    regressed = [c for c in cases if c.verdict == "regressed"]
    if regressed:
        listed = "; ".join(
            f"{c.case_id} {c.baseline_passes}/{c.baseline_trials} -> {c.candidate_passes}/{c.candidate_trials} "
            f"(adjusted p {c.adjusted_p_value:.2g} < {alpha:g})"
            for c in regressed
        )
        return Reason("cases", True, f"{_plural(len(regressed), 'case')} regressed: {listed}")
    blind = sum(1 for c in cases if not c.flaggable)
    tail = f"; {blind} of {len(cases)} cannot be flagged at these trial counts" if blind else ""
    return Reason(
        "cases",
        False,
        f"no case regressed (one-sided Fisher tests, {correction} at level {case_alpha:.3g}){tail}",
    )


def suite_reason(suite: SuiteComparison, threshold: float, alpha: float, suite_alpha: float) -> Reason:
    if suite.n_cases == 0:
        return Reason("suite", False, "no case is in both runs: nothing was tested")
    change = f"suite pass rate {'+' if suite.mean_delta > 0 else ''}{_pct(suite.mean_delta)} points"
    if suite.verdict == "regressed":
        return Reason("suite", True, f"{change}, adjusted p {suite.adjusted_p_value:.2g} < {alpha:g}")
    if suite.mean_delta < -threshold:
        why = f"not significant (p {suite.p_value:.2g}, level {suite_alpha:.3g})"
    elif suite.mean_delta < 0:
        why = f"within the {_pct(threshold)}-point threshold"
    else:
        why = "no fall"
    return Reason("suite", False, f"{change}: {why}")


def _listed(ids: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def comparison_notes(
    cases: list[CaseComparison],
    unflaggable: list[str],
    min_trials: int | None,
    added: list[str],
    removed: list[str],
    baseline_suite: str,
    candidate_suite: str,
    suites_differ: bool,
) -> list[str]:
    notes = []
    if suites_differ:
        notes.append(
            f"SUITES DIFFER: the baseline ran suite {baseline_suite!r}, the candidate {candidate_suite!r}; "
            "only cases with the same id are compared, and they may not test the same thing"
        )
    changed = [c.case_id for c in cases if c.definition_changed]
    if changed:
        notes.append(
            f"{_plural(len(changed), 'case')} changed definition between the runs "
            f"(their verdicts compare different tests): {_listed(changed)}"
        )
    if removed:
        notes.append(
            f"{_plural(len(removed), 'case')} removed (in the baseline only, not compared): {_listed(removed)}"
        )
    if added:
        notes.append(
            f"{_plural(len(added), 'case')} added (in the candidate only, not compared): {_listed(added)}"
        )
    if unflaggable:
        needs = sorted({c.trials_to_flag for c in cases if not c.flaggable and c.trials_to_flag is not None})
        k = min((c.baseline_trials for c in cases), default=0)
        text = (
            f"{_plural(len(unflaggable), 'case')} of {len(cases)} cannot be flagged by the per-case test "
            f"at these trial counts, even if every candidate trial failed: {_listed(unflaggable)}"
        )
        if needs:
            text += f" (they would need {needs[0]}" + (f" to {needs[-1]}" if len(needs) > 1 else "")
            text += " trials per run)"
        if min_trials is not None and k < min_trials:
            text += (
                f"; with {len(cases)} cases, a case going from all passes to none is certain to be "
                f"flaggable from {min_trials} trials per run"
            )
        notes.append(text + "; new errors and timeouts are checked separately")
    return notes
