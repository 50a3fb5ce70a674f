"""The eval-generation agent's tools: their schemas for the model and what runs when it calls them.

Traces come from a :class:`TraceSource` (the training split only) and tests run through a
:class:`CodeTester` (the grader's TestEvalCode); notes and todos live in memory for one run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_TRACE_CHARS = 20_000
MAX_MISMATCHES_SHOWN = 25
MAX_FIELD_CHARS = 300


@dataclass
class TraceSummary:
    """One labeled trace as fetch_traces lists it."""

    trace_id: str
    label: str
    summary: str
    """The first 200 characters of the trace's output."""
    step_count: int
    has_tool_calls: bool
    agent: str | None = None
    """The agent (or source) the trace came from, when its import named one."""


class TraceSource(Protocol):
    """Labeled traces of the training split (backed by the transcript-store)."""

    async def list(
        self, label: str | None, limit: int, offset: int, agent: str | None = None
    ) -> tuple[list[TraceSummary], int]:
        """A page of summaries with ``label`` (None: both) from ``agent`` (None: any), and the total."""
        ...

    async def get(self, trace_id: str) -> dict[str, Any] | None:
        """The full trace dict; None when unknown or not in the split."""
        ...


class CodeTester(Protocol):
    """Measures eval code against the labels (backed by the grader's TestEvalCode)."""

    async def test(self, code: str, trace_ids: list[str] | None) -> dict[str, Any]:
        """accuracy, total, correct, incorrect, errors, mismatches, code_error."""
        ...


@dataclass
class Attempt:
    """One test_eval_code call that reached the tester."""

    number: int
    accuracy: float
    full: bool
    """Whether it ran on all training traces (only those count toward the target)."""
    code_error: str | None


@dataclass
class ToolOutcome:
    """What a tool call gives back: the tool_result content, and a line for the event stream."""

    content: str
    summary: str
    is_error: bool = False
    test: Attempt | None = None


# -- inputs, validated so that a malformed call is answered with an error, not a crash


class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _FetchTraces(_Input):
    rating: Literal["positive", "negative", "all"] = "all"
    limit: int = Field(DEFAULT_LIMIT, ge=1)
    offset: int = Field(0, ge=0)
    agent_id: str | None = Field(None, max_length=200)


class _TraceDetails(_Input):
    trace_id: str = Field(min_length=1)


class _TestCode(_Input):
    code: str = Field(min_length=1)
    trace_ids: list[str] | None = None


class _WriteNote(_Input):
    name: str = Field(min_length=1)
    content: str


class _ReadNote(_Input):
    name: str = Field(min_length=1)


class _NoInput(_Input):
    pass


class _Todo(_Input):
    task: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "done"] = "pending"


class _ManageTodos(_Input):
    todos: list[_Todo]


def normalize_code(code: str) -> str:
    """Code compared for identity: trailing whitespace and blank edges do not matter."""
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


def defines_eval(code: str, name: str) -> bool:
    """Whether ``code`` defines ``eval_<name>`` at the top level."""
    return re.search(rf"^def\s+eval_{re.escape(name)}\s*\(", code, re.MULTILINE) is not None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _clip(value: Any, max_chars: int, max_items: int) -> Any:
    """``value`` with long strings cut and long lists thinned in the middle, marked where cut."""
    if isinstance(value, str):
        if len(value) <= max_chars:
            return value
        return f"{value[:max_chars]}...[{len(value) - max_chars} more chars]"
    if isinstance(value, dict):
        return {k: _clip(v, max_chars, max_items) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_clip(v, max_chars, max_items) for v in value]
        if len(items) > max_items:
            head, tail = max_items - max_items // 3, max_items // 3
            items = [*items[:head], f"...[{len(items) - head - tail} items omitted]...", *items[-tail:]]
        return items
    return value


def render_trace(trace: dict[str, Any], max_chars: int = MAX_TRACE_CHARS) -> str:
    """The trace as JSON within ``max_chars``, shortened step by step only as much as needed."""
    text = _dumps(trace)
    if len(text) <= max_chars:
        return text
    # tool_calls repeats the tool_call steps: the cheapest thing to drop.
    view = {k: v for k, v in trace.items() if k != "tool_calls"}
    note = (
        f"shortened from {len(text)} chars: tool_calls omitted (they are the steps of type "
        "tool_call); long strings and lists cut where marked"
    )
    for max_str, max_items in ((2000, 200), (1000, 100), (500, 50), (200, 30), (100, 16), (60, 8)):
        text = _dumps({"_truncated": note, **_clip(view, max_str, max_items)})
        if len(text) <= max_chars:
            return text
    return text[:max_chars] + "...[cut]"


class AgentTools:
    """Runs the tools for one loop and keeps what they learn: attempts, the best code, notes, todos."""

    def __init__(
        self,
        name: str,
        source: TraceSource,
        tester: CodeTester,
        *,
        target_accuracy: float = 0.8,
        max_attempts: int = 5,
    ) -> None:
        self.name = name
        self.source = source
        self.tester = tester
        self.target_accuracy = target_accuracy
        self.max_attempts = max_attempts
        self.attempts = 0
        self.best_code: str | None = None
        self.best_accuracy: float | None = None
        self.target_reached = False
        self.notes: dict[str, str] = {}
        self.todos: list[dict[str, str]] = []
        self._tested: dict[str, float] = {}
        self._handlers: dict[str, tuple[type[_Input], Callable[[Any], Awaitable[ToolOutcome]]]] = {
            "fetch_traces": (_FetchTraces, self._fetch_traces),
            "get_trace_details": (_TraceDetails, self._get_trace_details),
            "test_eval_code": (_TestCode, self._test_eval_code),
            "write_note": (_WriteNote, self._write_note),
            "read_note": (_ReadNote, self._read_note),
            "list_notes": (_NoInput, self._list_notes),
            "manage_todos": (_ManageTodos, self._manage_todos),
        }

    @property
    def attempts_left(self) -> int:
        return max(0, self.max_attempts - self.attempts)

    def accuracy_of(self, code: str | None) -> float | None:
        """The full-set accuracy measured for this exact code, None when it was never tested."""
        return None if code is None else self._tested.get(normalize_code(code))

    async def run(self, tool: str, tool_input: Any) -> ToolOutcome:
        """Run one tool call; any failure becomes an error outcome for the model to read."""
        entry = self._handlers.get(tool)
        if entry is None:
            return _error(f"unknown tool {tool!r}; the tools are {', '.join(self._handlers)}")
        model, handler = entry
        if not isinstance(tool_input, dict):
            return _error(f"{tool} takes a JSON object of arguments, got {type(tool_input).__name__}")
        try:
            args = model.model_validate(tool_input)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in exc.errors()
            )
            return _error(f"invalid arguments for {tool}: {problems}")
        try:
            return await handler(args)
        except Exception as exc:  # a backend failure is the model's to read, not the loop's to die of
            return _error(f"{tool} failed: {type(exc).__name__}: {exc}")

    async def _fetch_traces(self, args: _FetchTraces) -> ToolOutcome:
        limit = min(args.limit, MAX_LIMIT)
        label = None if args.rating == "all" else args.rating
        agent = (args.agent_id or "").strip() or None
        if agent is None:
            page, total = await self.source.list(label, limit, args.offset)
        else:
            page, total = await self.source.list(label, limit, args.offset, agent=agent)
        payload: dict[str, Any] = {
            "traces": [
                {
                    "trace_id": s.trace_id,
                    "rating": s.label,
                    "summary": s.summary,
                    "step_count": s.step_count,
                    "has_tool_calls": s.has_tool_calls,
                    **({"agent_id": s.agent} if s.agent else {}),
                }
                for s in page
            ],
            "total": total,
            "offset": args.offset,
        }
        if limit < args.limit:
            payload["note"] = f"limit capped at {MAX_LIMIT}"
        source = f" from {agent}" if agent else ""
        return ToolOutcome(_dumps(payload), f"{len(page)} of {total} {args.rating} traces{source}")

    async def _get_trace_details(self, args: _TraceDetails) -> ToolOutcome:
        trace = await self.source.get(args.trace_id)
        if trace is None:
            return _error(f"no training trace {args.trace_id!r} (use trace_ids from fetch_traces)")
        text = render_trace(trace)
        steps = trace.get("steps") or []
        return ToolOutcome(
            f'{{"trace_id": {_dumps(args.trace_id)}, "trace": {text}}}',
            f"trace {args.trace_id}: {len(steps)} steps, {len(text)} chars",
        )

    async def _test_eval_code(self, args: _TestCode) -> ToolOutcome:
        if self.attempts >= self.max_attempts:
            return _error(
                f"no test attempts left (all {self.max_attempts} used); give your final eval function"
            )
        if not defines_eval(args.code, self.name):
            return _error(
                f"the code must define def eval_{self.name}(trace: dict, ctx=None) at the top level "
                "(this did not use an attempt)"
            )
        report = await self.tester.test(args.code, args.trace_ids or None)
        # Counted only once the tester answered: an unreachable grader is not the model's attempt.
        self.attempts += 1
        full = not args.trace_ids
        accuracy = float(report.get("accuracy") or 0.0)
        code_error = report.get("code_error") or None
        attempt = Attempt(self.attempts, accuracy, full, code_error)
        if full and code_error is None:
            self._tested[normalize_code(args.code)] = accuracy
            if self.best_accuracy is None or accuracy >= self.best_accuracy:  # ties: the later
                self.best_code, self.best_accuracy = args.code, accuracy
            # Code that fails on some traces is not done, however accurate on the others.
            if accuracy >= self.target_accuracy and not report.get("errors"):
                self.target_reached = True
        return ToolOutcome(
            _dumps(self._test_payload(report, attempt)), self._test_line(report, attempt), test=attempt
        )

    def _test_payload(self, report: dict[str, Any], attempt: Attempt) -> dict[str, Any]:
        mismatches = list(report.get("mismatches") or [])
        shown = [
            {k: (v[:MAX_FIELD_CHARS] if isinstance(v, str) else v) for k, v in m.items()}
            for m in mismatches[:MAX_MISMATCHES_SHOWN]
            if isinstance(m, dict)
        ]
        target = f"{self.target_accuracy:.0%}"
        if attempt.code_error:
            verdict = "the code cannot run: fix the error"
        elif not attempt.full:
            verdict = "tested on a subset: only a test on all traces counts toward the target"
        elif report.get("errors"):
            verdict = (
                f"the code failed on {report.get('errors')} traces (see the mismatches' errors): "
                "code that fails on any trace is not accepted, whatever its accuracy"
            )
        elif attempt.accuracy >= self.target_accuracy:
            verdict = f"target of {target} reached"
        else:
            verdict = f"below the target of {target}: study the mismatches and refine"
        if self.attempts_left == 0 and not self.target_reached:
            verdict += "; no test attempts left"
        payload = {
            "attempt": attempt.number,
            "attempts_left": self.attempts_left,
            "accuracy": attempt.accuracy,
            **{k: report.get(k) for k in ("total", "correct", "incorrect", "errors")},
            "code_error": attempt.code_error,
            "mismatches": shown,
            "verdict": verdict,
        }
        if len(mismatches) > len(shown):
            payload["mismatches_omitted"] = len(mismatches) - len(shown)
        return payload

    def _test_line(self, report: dict[str, Any], attempt: Attempt) -> str:
        head = f"attempt {attempt.number}/{self.max_attempts}"
        if attempt.code_error:
            return f"{head}: the code cannot run: {attempt.code_error[:200]}"
        scope = "" if attempt.full else " (subset)"
        return (
            f"{head}: accuracy {attempt.accuracy:.1%}{scope}, {report.get('correct')}/{report.get('total')} "
            f"correct, {report.get('errors') or 0} errors"
        )

    async def _write_note(self, args: _WriteNote) -> ToolOutcome:
        self.notes[args.name] = args.content
        return ToolOutcome(
            _dumps({"saved": args.name, "chars": len(args.content)}), f"note {args.name} saved"
        )

    async def _read_note(self, args: _ReadNote) -> ToolOutcome:
        if args.name not in self.notes:
            return _error(f"no note {args.name!r}; notes: {sorted(self.notes) or 'none'}")
        return ToolOutcome(self.notes[args.name], f"note {args.name} read")

    async def _list_notes(self, _: _NoInput) -> ToolOutcome:
        listing = [{"name": k, "chars": len(v)} for k, v in sorted(self.notes.items())]
        return ToolOutcome(_dumps({"notes": listing}), f"{len(listing)} notes")

    async def _manage_todos(self, args: _ManageTodos) -> ToolOutcome:
        self.todos = [t.model_dump() for t in args.todos]
        done = sum(t["status"] == "done" for t in self.todos)
        return ToolOutcome(_dumps({"todos": self.todos}), f"todos: {done}/{len(self.todos)} done")


def _error(message: str) -> ToolOutcome:
    return ToolOutcome(_dumps({"error": message}), message, is_error=True)


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_TRACE_CHARS",
    "AgentTools",
    "Attempt",
    "CodeTester",
    "ToolOutcome",
    "TraceSource",
    "TraceSummary",
    "defines_eval",
    "normalize_code",
    "render_trace",
]
