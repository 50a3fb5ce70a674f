"""Run and case statistics from graded trial rows (plain functions over scores)."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from agenteval.contracts.summary import CaseSummary, LatencySummary, RunSummary, TagSummary
from agenteval.stats import latency_summary, pass_at_k_table, pass_pow_k_table, wilson_interval


def _latency(values: list[float]) -> LatencySummary:
    s = latency_summary(values)
    return LatencySummary(
        p50_ms=s["p50"] or 0.0,
        p95_ms=s["p95"] or 0.0,
        p99_ms=s["p99"] or 0.0,
        mean_ms=s["mean"] or 0.0,
        max_ms=s["max"] or 0.0,
    )


def summarize(run_id: str, rows: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> RunSummary:
    """The run's summary from one row per graded trial (duplicates already removed)."""
    meta = meta or {}
    by_case: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_case[r["case_id"]].append(r)
    cases: list[CaseSummary] = []
    for case_id, trials in sorted(by_case.items()):
        n = len(trials)
        c = sum(1 for t in trials if t["passed"])
        low, high = wilson_interval(c, n)
        scores: dict[str, list[float]] = defaultdict(list)
        for t in trials:
            for name, score in json.loads(t["grader_scores_json"]).items():
                scores[name].append(float(score))
        tags = json.loads(trials[0]["tags_json"]) if trials else []
        cases.append(
            CaseSummary(
                case_id=case_id,
                trials=n,
                passes=c,
                pass_rate=c / n,
                pass_rate_low=low,
                pass_rate_high=high,
                pass_at_k=pass_at_k_table(n, c),
                pass_pow_k=pass_pow_k_table(n, c),
                latency=_latency([t["latency_ms"] for t in trials]),
                errors=sum(1 for t in trials if t["status"] == "error"),
                timeouts=sum(1 for t in trials if t["status"] == "timeout"),
                input_tokens=sum(t["input_tokens"] for t in trials),
                output_tokens=sum(t["output_tokens"] for t in trials),
                cost_usd=sum(t["cost_usd"] for t in trials),
                cost_unknown_trials=sum(1 for t in trials if not t.get("cost_known", True)),
                tags=tags,
                grader_scores={k: sum(v) / len(v) for k, v in sorted(scores.items())},
                flaky=0 < c < n,
            )
        )
    tags = _by_tag(cases, by_case)
    ungraded: dict[str, int] = defaultdict(int)
    why: dict[str, str] = {}
    for r in rows:
        for name, error in json.loads(r.get("grade_errors_json") or "{}").items():
            ungraded[name] += 1
            why.setdefault(name, str(error)[:300])
    total = sum(cs.trials for cs in cases)
    passes = sum(cs.passes for cs in cases)
    k = min((cs.trials for cs in cases), default=0)
    low, high = wilson_interval(passes, total)
    return RunSummary(
        run_id=run_id,
        suite=meta.get("suite", ""),
        agent_version=meta.get("agent_version", ""),
        agent=meta.get("agent", ""),
        k=k,
        trials=total,
        passes=passes,
        pass_rate=passes / total if total else 0.0,
        pass_rate_low=low,
        pass_rate_high=high,
        pass_at_k={j: sum(cs.pass_at_k[j] for cs in cases) / len(cases) for j in range(1, k + 1)},
        pass_pow_k={j: sum(cs.pass_pow_k[j] for cs in cases) / len(cases) for j in range(1, k + 1)},
        latency=_latency([r["latency_ms"] for r in rows]),
        errors=sum(cs.errors for cs in cases),
        timeouts=sum(cs.timeouts for cs in cases),
        input_tokens=sum(cs.input_tokens for cs in cases),
        output_tokens=sum(cs.output_tokens for cs in cases),
        cost_usd=sum(cs.cost_usd for cs in cases),
        cost_unknown_trials=sum(cs.cost_unknown_trials for cs in cases),
        cases=cases,
        tags=tags,
        grader_failures={name: ungraded[name] for name in sorted(ungraded)},
        grader_failure_reasons={name: why[name] for name in sorted(why)},
    )


def _by_tag(cases: list[CaseSummary], rows_by_case: dict[str, list[dict[str, Any]]]) -> list[TagSummary]:
    """The run's figures per case tag (a case with several tags counts in each)."""
    groups: dict[str, list[CaseSummary]] = defaultdict(list)
    for cs in cases:
        for tag in cs.tags:
            groups[tag].append(cs)
    out = []
    for tag, group in sorted(groups.items()):
        trials = sum(c.trials for c in group)
        passes = sum(c.passes for c in group)
        low, high = wilson_interval(passes, trials)
        k = min(c.trials for c in group)
        rows = [r for c in group for r in rows_by_case[c.case_id]]
        scores: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            for name, score in json.loads(r["grader_scores_json"]).items():
                scores[name].append(float(score))
        out.append(
            TagSummary(
                tag=tag,
                cases=len(group),
                trials=trials,
                passes=passes,
                pass_rate=passes / trials if trials else 0.0,
                pass_rate_low=low,
                pass_rate_high=high,
                pass_at_k={j: sum(c.pass_at_k[j] for c in group) / len(group) for j in range(1, k + 1)},
                pass_pow_k={j: sum(c.pass_pow_k[j] for c in group) / len(group) for j in range(1, k + 1)},
                latency=_latency([r["latency_ms"] for r in rows]),
                input_tokens=sum(c.input_tokens for c in group),
                output_tokens=sum(c.output_tokens for c in group),
                cost_usd=sum(c.cost_usd for c in group),
                cost_unknown_trials=sum(c.cost_unknown_trials for c in group),
                grader_scores={name: sum(v) / len(v) for name, v in sorted(scores.items())},
            )
        )
    return out
