"""Reading trace dicts robustly: the timeline, tool calls, the answer, failures, tool kinds.

Sandbox-safe on purpose: the emitter copies the functions and constants a rule needs
verbatim into the generated eval code, which may import only json, re, typing, math,
datetime and difflib. So: plain functions over plain dicts and strings, module-level
constants, no dunders, no imports beyond the standard ones and each other (names are
unique across the copied modules).
"""

import json
import re
import typing

# --- reading the trace dict (robust to missing or oddly typed fields) ---


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def _text(value: object) -> str:
    """A value as text: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _leaf_text(value: object) -> str:
    """The string and number leaves of a JSON value joined by spaces (keys left out)."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict):
        return " ".join(_leaf_text(v) for v in value.values())
    if isinstance(value, list | tuple):
        return " ".join(_leaf_text(v) for v in value)
    return str(value)


def _timeline(trace: dict) -> list:
    """Input messages then steps, in order, as {kind: msg|call, role, text, call} events."""
    events: list[dict[str, typing.Any]] = []
    raw_input = trace.get("input")
    if isinstance(raw_input, str):
        raw_input = [{"role": "user", "content": raw_input}]
    for m in _as_list(raw_input):
        if isinstance(m, dict):
            events.append(
                {"kind": "msg", "role": str(m.get("role") or "user"), "text": _text(m.get("content"))}
            )
    has_call = False
    for s in _as_list(trace.get("steps")):
        if not isinstance(s, dict):
            continue
        if s.get("type") == "tool_call":
            events.append({"kind": "call", "call": s})
            has_call = True
        elif s.get("type") == "message":
            role = str(s.get("role") or "assistant")
            events.append({"kind": "msg", "role": role, "text": _text(s.get("content"))})
    if not has_call:
        # Imported traces may carry only the derived tool_calls list.
        for c in _as_list(trace.get("tool_calls")):
            if isinstance(c, dict):
                events.append({"kind": "call", "call": c})
    return events


def _tool_calls(trace: dict) -> list:
    return [e["call"] for e in _timeline(trace) if e["kind"] == "call"]


def _user_texts(trace: dict) -> list:
    return [e["text"] for e in _timeline(trace) if e["kind"] == "msg" and e["role"] == "user"]


def _answer(trace: dict) -> str:
    """The final answer: ``output``, else the last assistant message among the steps."""
    output = trace.get("output")
    if isinstance(output, str) and output.strip():
        return output
    for s in reversed(_as_list(trace.get("steps"))):
        if isinstance(s, dict) and s.get("type") == "message" and s.get("role") in ("assistant", None):
            return _text(s.get("content"))
    return ""


def _call_name(call: dict) -> str:
    return str(call.get("name") or "")


def _call_args(call: dict) -> dict:
    args = call.get("arguments")
    return args if isinstance(args, dict) else {}


def _call_key(call: dict) -> str:
    return _call_name(call) + " " + _text(_call_args(call))


_FAILED_STATUSES = ("error", "failed", "failure", "denied", "rejected", "timeout", "timed_out", "unavailable")


def _call_failed(call: dict) -> bool:
    """Whether a tool call failed: an ``error`` field, or a result that says so."""
    if call.get("error"):
        return True
    result = call.get("result")
    if isinstance(result, dict):
        if result.get("error") or result.get("errors"):
            return True
        if result.get("ok") is False or result.get("success") is False:
            return True
        status = result.get("status")
        if isinstance(status, str) and status.strip().lower() in _FAILED_STATUSES:
            return True
        code = result.get("status_code")
        if isinstance(code, int) and code >= 400:
            return True
    if isinstance(result, str) and re.match(r"\s*(error|exception|traceback|failed)\b", result, re.I):
        return True
    return False


# --- what a tool does, judged from its name (general verbs, no dataset's tool names) ---

_READ_VERBS = frozenset(
    "get lookup look search find fetch read list check query retrieve verify view show describe "
    "browse inspect load status info details validate calculate compute estimate quote preview".split()
)
_WRITE_VERBS = frozenset(
    "create update set write send delete refund cancel transfer pay book submit post place charge issue "
    "apply modify change add remove reset close reschedule assign approve execute grant revoke withdraw "
    "deposit purchase buy schedule reserve save insert upload publish edit move terminate disable enable "
    "drop destroy purge wipe archive escalate register subscribe unsubscribe upgrade downgrade replace "
    "ship wire void reverse deactivate erase process sell".split()
)
_RISKY_VERBS = frozenset(
    "delete refund cancel transfer send pay drop remove wire withdraw charge close terminate destroy purge "
    "wipe revoke disable unsubscribe deactivate erase reset void reverse payout sell liquidate".split()
)


def _name_words(name: str) -> list:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def _tool_kind(name: str) -> str:
    """read, write, risky (a destructive or money-moving write) or other."""
    words = _name_words(name)
    if not words:
        return "other"
    if words[0] in _READ_VERBS:
        return "read"
    if any(w in _RISKY_VERBS for w in words):
        return "risky"
    if any(w in _WRITE_VERBS for w in words):
        return "write"
    if any(w in _READ_VERBS for w in words):
        return "read"
    return "other"


def _fmt(value: float) -> str:
    """A number for an explanation: integers without a decimal point, others to 3 digits."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


def _signal_value(fn: typing.Callable[[dict], float], trace: dict) -> float:
    """A signal's value, with a failure or a non-finite number read as 0."""
    try:
        value = float(fn(trace))
    except Exception:
        return 0.0
    if value != value or value in (float("inf"), float("-inf")):
        return 0.0
    return value
