"""A case's verdict against its thresholds, the failure report with a transcript, the summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agenteval.contracts.suite import Case
from agenteval.pytest_plugin._runs import Runs, RunSettings, SuiteResult, TrialView

_CLIP = 300
_MAX_STEPS = 40


@dataclass
class Verdict:
    """How one case did against its thresholds on pass@k and pass^k (k = its trials)."""

    case_id: str
    trials: int = 0
    passes: int = 0
    pass_at_k: float = 0.0
    pass_pow_k: float = 0.0
    min_pass_at_k: float | None = None
    min_pass_pow_k: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    def properties(self) -> list[tuple[str, object]]:
        """What JUnit XML records for the case (``<property>`` elements)."""
        k = self.trials
        props: list[tuple[str, object]] = [
            ("passes", f"{self.passes}/{self.trials}"),
            (f"pass_at_{k}", round(self.pass_at_k, 4)),
            (f"pass_pow_{k}", round(self.pass_pow_k, 4)),
        ]
        if self.min_pass_at_k is not None:
            props.append(("min_pass_at_k", self.min_pass_at_k))
        if self.min_pass_pow_k is not None:
            props.append(("min_pass_pow_k", self.min_pass_pow_k))
        return props


def _threshold(case: Case, key: str, default: float | None) -> float | None:
    value = case.metadata.get(key)
    return default if value is None else float(value)


def judge(case: Case, result: SuiteResult, settings: RunSettings) -> Verdict:
    """The case's verdict: thresholds from the case's ``metadata`` (``min_pass_at_k``,
    ``min_pass_pow_k``), else the options; with none at all, pass^k must be 1 (every trial passes)."""
    at = _threshold(case, "min_pass_at_k", settings.min_pass_at_k)
    pow_ = _threshold(case, "min_pass_pow_k", settings.min_pass_pow_k)
    if at is None and pow_ is None:
        pow_ = 1.0
    verdict = Verdict(case_id=case.id, min_pass_at_k=at, min_pass_pow_k=pow_)
    figures = result.case(case.id)
    if figures is None or figures.trials == 0:
        verdict.problems.append("no trial of this case was graded")
        return verdict
    k = figures.trials
    verdict.trials, verdict.passes = k, figures.passes
    verdict.pass_at_k = figures.pass_at_k.get(k, 0.0)
    verdict.pass_pow_k = figures.pass_pow_k.get(k, 0.0)
    eps = 1e-9
    if at is not None and verdict.pass_at_k + eps < at:
        verdict.problems.append(f"pass@{k} = {_pct(verdict.pass_at_k)} is below {_pct(at)}")
    if pow_ is not None and verdict.pass_pow_k + eps < pow_:
        verdict.problems.append(f"pass^{k} = {_pct(verdict.pass_pow_k)} is below {_pct(pow_)}")
    return verdict


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def failure_report(verdict: Verdict, result: SuiteResult) -> str:
    """Why the case failed, then the transcript of its first failing trial and each grader's verdict."""
    lines = [
        f"agenteval case {verdict.case_id!r} of suite {result.suite.name!r}: "
        f"{verdict.passes}/{verdict.trials} trials passed (run {result.run_id})",
        *(f"  {p}" for p in verdict.problems),
    ]
    views = result.trials.get(verdict.case_id, [])
    failing = [v for v in views if v.passed is False or v.status != "ok"]
    if failing:
        first = failing[0]
        lines.append("")
        lines.append(f"transcript of trial {first.trial_index} (status {first.status}, failed):")
        lines.extend(f"  {line}" for line in transcript_lines(first))
        others = [str(v.trial_index) for v in failing[1:]]
        if others:
            lines.append(f"other failing trials: {', '.join(others)}")
    lines.append(f"all transcripts: agent-eval trials {result.run_id} --case {verdict.case_id}")
    return "\n".join(lines)


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", "\\n")
    return text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."


def transcript_lines(view: TrialView) -> list[str]:
    trace = view.trace
    out = [f"{m.get('role', 'user')}: {_clip(m.get('content') or '')}" for m in trace.get("input") or []]
    steps = trace.get("steps") or []
    for step in steps[:_MAX_STEPS]:
        kind = step.get("type")
        if kind == "tool_call":
            line = f"-> tool {step.get('name')}({_clip(step.get('arguments') or {})})"
            line += (
                f" ! error: {_clip(step['error'])}"
                if step.get("error")
                else f" = {_clip(step.get('result'))}"
            )
            out.append(line)
        elif kind == "llm_call":
            out.append(
                f"-> llm {step.get('model')} ({step.get('input_tokens', 0)} in, {step.get('output_tokens', 0)} out)"
            )
        else:
            out.append(f"{step.get('role') or 'assistant'}: {_clip(step.get('content') or '')}")
    if len(steps) > _MAX_STEPS:
        out.append(f"... {len(steps) - _MAX_STEPS} more steps")
    error = trace.get("error")
    if isinstance(error, dict):
        out.append(f"error {error.get('code')}: {_clip(error.get('message') or '')}")
    out.append(f"final answer: {_clip(trace.get('output')) if trace.get('output') is not None else '(none)'}")
    if view.grades:
        out.append("graders:")
    for g in view.grades:
        mark = "PASS" if g.get("passed") else "FAIL"
        params = f" {json.dumps(g.get('params'), sort_keys=True)}" if g.get("params") else ""
        line = f"  {mark} {g.get('name')}{params} {float(g.get('score') or 0):.2f}: {g.get('explanation')}"
        if g.get("error"):
            line += f" (error: {g['error']})"
        out.append(line)
    return out


def summary_lines(runs: Runs) -> list[str]:
    """Per suite: the run, each case's passes, pass@k, pass^k and verdict, and the totals."""
    lines: list[str] = []
    for result in runs.results.values():
        s = result.summary
        if s is None:
            lines.append(f"suite {result.suite.name}: not run: {result.error}")
            continue
        lines.append(
            f"suite {s.suite} · agent {s.agent or '?'}"
            f"{f' ({s.agent_version})' if s.agent_version and s.agent_version != s.agent else ''}"
            f" · run {result.run_id}"
        )
        width = max((len(c.id) for c in result.suite.cases), default=4)
        for case in result.suite.cases:
            v = judge(case, result, runs.settings)
            k = v.trials
            lines.append(
                f"  {'PASS' if v.passed else 'FAIL'}  {case.id:<{width}}  {v.passes}/{v.trials}"
                f"  pass@{k} {_pct(v.pass_at_k):>4}  pass^{k} {_pct(v.pass_pow_k):>4}"
            )
        cost = f"${s.cost_usd:.4f}"
        if s.cost_unknown_trials:  # tokens no price could be put on: never shown as free
            unknown = f"unknown for {s.cost_unknown_trials} trial{'s' if s.cost_unknown_trials > 1 else ''}"
            cost = unknown if s.cost_usd == 0 else f"{cost} + {unknown}"
        lines.append(
            f"  pass rate {_pct(s.pass_rate)} ({s.passes}/{s.trials} trials) · p50 {s.latency.p50_ms:.0f} ms"
            f" · tokens {s.input_tokens}+{s.output_tokens} · cost {cost}"
        )
    return lines
