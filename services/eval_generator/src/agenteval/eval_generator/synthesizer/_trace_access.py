"""Reading trace dicts robustly: the timeline, tool calls, the answer, failures, what a call does.

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


_PAIR_RE = re.compile(
    r"(?<![\w-])([A-Za-z][\w .#/-]{0,30}?)\s*[:=]\s*([^|;\n]+?)(?=\s*(?:\||;|\n|,\s*[A-Za-z][\w ]{0,30}[:=]|\.\s|\.?$))"
)


def _text_pairs(text: str) -> list:
    """ "key: value" and "key=value" pairs written in a text ("Amount paid: $12.50 | status=failed")."""
    out = []
    for m in _PAIR_RE.finditer(text):
        key = re.sub(r"[^a-z0-9]+", "_", m.group(1).strip().lower()).strip("_")
        raw = m.group(2).strip()
        number = re.fullmatch(r"[$€£]?\s*(-?\d{1,3}(?:,\d{3})+|-?\d+)(\.\d+)?", raw)
        value: object = raw
        if number and number.group(2):
            value = float(number.group(1).replace(",", "") + number.group(2))
        elif number:  # an id or a count stays a whole number: "405163", not "405163.0"
            value = int(number.group(1).replace(",", ""))
        elif raw.lower() in ("true", "yes"):
            value = True
        elif raw.lower() in ("false", "no"):
            value = False
        if key:
            out.append((key, value))
    return out


def _keyed_leaves(value: object, key: str = "") -> list:
    """(key path, leaf) pairs of a JSON value: ``{"a": {"b": 1}}`` gives ``[("a b", 1)]``.

    Records written as text count too: "paid=$12.50" in a string also gives ``("paid", 12.5)``.
    """
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _keyed_leaves(v, (key + " " + str(k)).strip())
    elif isinstance(value, list | tuple):
        for v in value:
            out += _keyed_leaves(v, key)
    elif value is not None:
        out.append((key, value))
        if isinstance(value, str) and " " in value and len(value) < 5000 and (":" in value or "=" in value):
            out += [((key + " " + k).strip(), v) for k, v in _text_pairs(value)]
    return out


# The last trace read and its timeline, as one (trace, events) pair: signals ask for the same
# trace's timeline many times, and one pair is swapped whole, so threads never mix two traces.
_LAST_TIMELINE: dict = {}


_PY_TOKEN = re.compile(
    r"""\s*(?:'((?:[^'\\]|\\.)*)'|("(?:[^"\\]|\\.)*")|(True|False|None)\b"""
    r"""|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|([{}\[\],:()]))"""
)
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}


def _python_literal_as_json(body: str) -> str | None:
    """A dict or list written by Python's repr (single quotes, True/None, tuples) as JSON text,
    or None when it is not one."""
    out: list[str] = []
    pos = 0
    while pos < len(body):
        m = _PY_TOKEN.match(body, pos)
        if m is None or m.end() == pos:
            return None if body[pos:].strip() else "".join(out)
        single, double, word, number, punct = m.groups()
        if single is not None:
            inner = re.sub(r'(?<!\\)"', '\\"', single.replace("\\'", "'"))
            out.append('"' + inner + '"')
        elif double is not None:
            out.append(double)
        elif word is not None:
            out.append(_PY_WORDS[word])
        elif number is not None:
            out.append(number)
        else:
            out.append({"(": "[", ")": "]"}.get(punct, punct))
        pos = m.end()
    return "".join(out)


def _json_text(value: object) -> object:
    """A JSON object or array written as text (a tool result or arguments as a JSON string, or
    a Python dict or list as its repr writes it) parsed; anything else as it is."""
    if isinstance(value, str):
        body = value.strip()
        if len(body) >= 2 and body[0] + body[-1] in ("{}", "[]") and len(body) < 200000:
            try:
                return json.loads(body)
            except ValueError:
                pass
            converted = _python_literal_as_json(body)
            if converted is not None:
                try:
                    return json.loads(converted)
                except ValueError:
                    return value
    return value


def _content_parts_result(result: object) -> object:
    """An MCP-style result (``{"content": [{"type": "text", "text": ...}], "isError": ...}``) as
    what it carries: its structured content, else its text parts (read as JSON when they are)."""
    if not isinstance(result, dict) or not isinstance(result.get("content"), list):
        return result
    if set(result) - {"content", "isError", "is_error", "structuredContent", "_meta", "meta"}:
        return result
    if isinstance(result.get("structuredContent"), dict):
        return result["structuredContent"]
    parts = result["content"]
    if not parts or not all(isinstance(p, dict) and p.get("type") == "text" for p in parts):
        return result
    return _json_text("\n".join(str(p.get("text") or "") for p in parts))


def _read_call(step: dict) -> dict:
    """A tool call with its arguments and result read as JSON when they were written as JSON text,
    and an MCP-style result read as its content (``isError`` as the call's error)."""
    args, result = step.get("arguments"), step.get("result")
    parsed_args = _json_text(args)
    raw = _json_text(result)
    parsed_result = _content_parts_result(raw)
    error = step.get("error")
    if not error and isinstance(raw, dict) and (raw.get("isError") or raw.get("is_error")):
        error = _text(parsed_result) or "error"
    if parsed_args is args and parsed_result is result and error == step.get("error"):
        return step
    return {**step, "arguments": parsed_args, "result": parsed_result, "error": error}


def _timeline(trace: dict) -> list:
    """Input messages then steps, in order, as {kind: msg|call, role, text, call} events.

    What the model said in an llm step counts as an assistant message; a message step
    repeating the assistant text just before it is read once. Callers only read the list.
    """
    last = _LAST_TIMELINE.get("pair")
    if last is not None and last[0] is trace:
        return last[1]
    events = _read_timeline(trace)
    _LAST_TIMELINE["pair"] = (trace, events)
    return events


def _read_timeline(trace: dict) -> list:
    events: list[dict[str, typing.Any]] = []
    raw_input = trace.get("input")
    if isinstance(raw_input, str):
        raw_input = [{"role": "user", "content": raw_input}]
    if isinstance(raw_input, dict):
        raw_input = raw_input.get("messages")
    for m in _as_list(raw_input):
        if isinstance(m, dict):
            events.append(
                {"kind": "msg", "role": str(m.get("role") or "user"), "text": _text(m.get("content"))}
            )
    has_call = False
    for s in _as_list(trace.get("steps")):
        if not isinstance(s, dict):
            continue
        kind = s.get("type")
        if kind == "tool_call":
            events.append({"kind": "call", "call": _read_call(s)})
            has_call = True
        elif kind in ("message", "llm_call"):
            role = str(s.get("role") or "assistant") if kind == "message" else "assistant"
            text = _text(s.get("content"))
            if not text.strip():
                continue
            last = events[-1] if events else None
            if (
                last
                and last["kind"] == "msg"
                and last["role"] == role == "assistant"
                and last["text"] == text
            ):
                continue
            events.append({"kind": "msg", "role": role, "text": text})
    if not has_call:
        # Imported traces may carry only the derived tool_calls list.
        for c in _as_list(trace.get("tool_calls")):
            if isinstance(c, dict):
                events.append({"kind": "call", "call": _read_call(c)})
    return events


def _tool_calls(trace: dict) -> list:
    return [e["call"] for e in _timeline(trace) if e["kind"] == "call"]


def _user_texts(trace: dict) -> list:
    return [e["text"] for e in _timeline(trace) if e["kind"] == "msg" and e["role"] == "user"]


def _last_user_text(trace: dict) -> str:
    users = _user_texts(trace)
    return users[-1] if users else ""


def _first_user_text(trace: dict) -> str:
    users = _user_texts(trace)
    return users[0] if users else ""


def _system_text(trace: dict) -> str:
    """The system instructions, every system message in order."""
    return "\n".join(e["text"] for e in _timeline(trace) if e["kind"] == "msg" and e["role"] == "system")


def _instructions_text(trace: dict) -> str:
    """What the agent was told: system messages and every user turn."""
    return "\n".join(
        e["text"] for e in _timeline(trace) if e["kind"] == "msg" and e["role"] in ("system", "user")
    )


def _answer(trace: dict) -> str:
    """The final answer: ``output``, else the last assistant message among the steps."""
    output = trace.get("output")
    if isinstance(output, str) and output.strip():
        return output
    for e in reversed(_timeline(trace)):
        if e["kind"] == "msg" and e["role"] == "assistant":
            return e["text"]
    return ""


def _ended_on_call(trace: dict) -> bool:
    """The agent's last act was a tool call: nothing was said after it (an earlier remark is no answer)."""
    events = _timeline(trace)
    if not events or events[-1]["kind"] != "call":
        return False
    output = trace.get("output")
    if not isinstance(output, str) or not output.strip():
        return True
    said = [e["text"].strip() for e in events if e["kind"] == "msg" and e["role"] == "assistant"]
    return output.strip() in said


def _call_name(call: dict) -> str:
    return str(call.get("name") or "")


def _call_args(call: dict) -> dict:
    args = call.get("arguments")
    return args if isinstance(args, dict) else {}


def _call_key(call: dict) -> str:
    return _call_name(call) + " " + _text(_call_args(call))


_FAILED_STATUSES = (
    "error",
    "failed",
    "failure",
    "denied",
    "rejected",
    "timeout",
    "timed_out",
    "unavailable",
    "fail",
    "exception",
)


def _call_failed(call: dict) -> bool:
    """Whether a tool call failed: an ``error`` field, or a result that says so."""
    if call.get("error"):
        return True
    result = call.get("result")
    if isinstance(result, dict):
        if result.get("error") or result.get("errors") or result.get("exception"):
            return True
        if result.get("ok") is False or result.get("success") is False:
            return True
        status = result.get("status")
        if isinstance(status, str) and status.strip().lower() in _FAILED_STATUSES:
            return True
        code = result.get("status_code", result.get("code"))
        if isinstance(code, int) and not isinstance(code, bool) and code >= 400:
            return True
    if isinstance(result, str) and re.match(
        r"\s*(error|exception|traceback|failed|http [45]\d\d|[45]\d\d [a-z ]+$)\b", result, re.I
    ):
        return True
    return False


# --- what a tool call does, from its name's verbs and from the statement it carries ---

_READ_VERBS = frozenset(
    "get lookup look search find fetch read list check query retrieve verify view show describe "
    "browse inspect load status info details validate calculate compute estimate quote preview count "
    "track tracking availability available".split()
)
_WRITE_VERBS = frozenset(
    "create update set write send delete refund cancel transfer pay book submit post place charge issue "
    "apply modify change add remove reset close reschedule assign approve execute grant revoke withdraw "
    "deposit purchase buy schedule reserve save insert upload publish edit move terminate disable enable "
    "drop destroy purge wipe archive escalate register subscribe unsubscribe upgrade downgrade replace "
    "ship wire void reverse deactivate erase process sell make checkout confirm rm kill deploy release "
    "rollout invite share select new put initiate return credit compensate reimburse payout rotate".split()
)
_RISKY_VERBS = frozenset(
    "delete refund cancel transfer send pay drop remove wire withdraw charge close terminate destroy purge "
    "wipe revoke disable unsubscribe deactivate erase reset void reverse payout sell liquidate rm kill "
    "truncate restart reboot rotate".split()
)
# Statements that destroy or overwrite data for good (SQL, shell, infrastructure tools).
_DESTRUCTIVE_RE = re.compile(
    r"(^|;|\n)\s*(delete\s+from|drop\s+(table|database|schema|index|view|column|user)|truncate\b|"
    r"alter\s+table\s+\S+\s+drop|update\s+\S+\s+set\s+(?![^;]*\bwhere\b)[^;]*)|\brm\s+(-\w+\s+)*[~/.\w]|"
    r"\bgit\s+push\s+(-f|--force)|\bgit\s+reset\s+--hard|\bgit\s+clean\s+-\w*f|\bkubectl\s+delete|\bterraform\s+destroy|"
    r"\bmkfs\b|\bdd\s+if=|\bdropdb\b|\bflushall\b"
    # A command whose verb destroys: "aws rds delete-db-snapshot", "find ... -delete", "FLUSHDB",
    # "aws ec2 terminate-instances", "docker system prune", "aws iam delete-access-key".
    r"|(?:^|\s)-{0,2}(?:delete|destroy|terminate|purge|revoke|deregister|wipe|flushdb|prune|rmdir|rmi)(?:[-_][\w-]+)?(?=\s|$)",
    re.I,
)
_WRITE_STMT_RE = re.compile(
    r"(^|;|\n)\s*(insert\s+into|update\s+\S+\s+set|alter\s+|create\s+|grant\s+|revoke\s+|merge\s+|upsert)",
    re.I,
)
_READ_STMT_RE = re.compile(r"^\s*(select|with|show|explain|describe|desc)\b", re.I)


def _name_words(name: str) -> list:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def _tool_kind(name: str) -> str:
    """read, write, risky (a destructive or money-moving write) or other, from the tool's name."""
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


def _statement_kind(call: dict) -> str:
    """risky, write or read when an argument is a statement (SQL, shell); "" when none is."""
    texts = [v for v in _call_args(call).values() if isinstance(v, str) and len(v) > 3]
    kind = ""
    for text in texts:
        if _DESTRUCTIVE_RE.search(text):
            return "risky"
        if _WRITE_STMT_RE.search(text):
            kind = "write"
        elif _READ_STMT_RE.match(text) and not kind:
            kind = "read"
    return kind


def _call_kind(call: dict) -> str:
    """read, write, risky or other: a statement argument decides, else the tool's name."""
    return _statement_kind(call) or _tool_kind(_call_name(call))


def _is_action(call: dict) -> bool:
    """The call changes something (a write or a risky call)."""
    return _call_kind(call) in ("write", "risky")


def _actions(trace: dict) -> list:
    return [c for c in _tool_calls(trace) if _is_action(c)]


def _fmt(value: float) -> str:
    """A number for an explanation: integers without a decimal point, others to 3 digits."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


# A trace is read within a budget of text: past it, long strings keep their head and tail and
# long lists their first and last items, cut just as far as needed (the same in synthesis and in
# the emitted eval, so a rule's verdict does not depend on where it runs). Readings compare
# passages with answers and calls with turns, so an unbounded 20 MB trace would cost minutes.
_MAX_TRACE_TEXT = 200_000
_CLIP_LEVELS = ((20_000, 400), (8000, 200), (4000, 100), (2000, 50), (1000, 30), (500, 20), (200, 10))


def _text_size(value: object, budget: int) -> int:
    """Characters of the strings in a JSON value, counted until past ``budget``."""
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += sum(len(k) for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return total


def _clipped(value: object, max_str: int, max_items: int) -> object:
    """A copy of a JSON value with strings and lists cut to their head and tail."""
    if isinstance(value, str):
        if len(value) <= max_str:
            return value
        tail = max_str // 3
        return value[: max_str - tail] + " ... " + value[-tail:]
    if isinstance(value, dict):
        return {k: _clipped(v, max_str, max_items) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = list(value)
        if len(items) > max_items:
            tail = max_items // 3
            items = items[: max_items - tail] + items[-tail:]
        return [_clipped(v, max_str, max_items) for v in items]
    return value


def _bounded_trace(trace: dict) -> dict:
    """The trace itself when its text is within _MAX_TRACE_TEXT, else a copy cut to fit."""
    if _text_size(trace, _MAX_TRACE_TEXT) <= _MAX_TRACE_TEXT:
        return trace
    view: dict = trace
    for max_str, max_items in _CLIP_LEVELS:
        cut = _clipped(trace, max_str, max_items)
        view = cut if isinstance(cut, dict) else {}
        if _text_size(view, _MAX_TRACE_TEXT) <= _MAX_TRACE_TEXT:
            break
    return view


# The last trace's signal values, as one (trace, its bounded view, {signal: value}) triple swapped
# whole like the timeline's: readings made of others ("any of these", a count of patterns) ask for
# values the learner also reads on their own, and each is computed once per trace.
_LAST_VALUES: dict = {}


def _signal_value(fn: typing.Callable[[dict], float], trace: dict) -> float:
    """A signal's value on the trace (read within its text budget), a failure or a non-finite number read as 0."""
    entry = _LAST_VALUES.get("entry")
    if entry is None or (entry[0] is not trace and entry[1] is not trace):
        values: dict[typing.Callable[[dict], float], float] = {}
        entry = (trace, _bounded_trace(trace), values)
        _LAST_VALUES["entry"] = entry
    known = entry[2].get(fn)
    if known is not None:
        return known
    try:
        value = float(fn(entry[1]))
    except Exception:
        value = 0.0
    if value != value or value in (float("inf"), float("-inf")):
        value = 0.0
    entry[2][fn] = value
    return value
