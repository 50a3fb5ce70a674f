"""W3's material: a ~5 KB support-desk transcript and the eval function that scans it.

The eval function runs ten regular expressions over the transcript's text (tool calls,
numbers, e-mails, statuses, latencies, words, turns, key=value pairs, errors, the final
answer) and tallies what they find in plain Python; :func:`plain_eval_ms` measures what
one call costs outside any sandbox, so the sandboxed figures can be read against it.
"""

from __future__ import annotations

import time
from typing import Any

EVAL_FUNCTION = "eval_support_transcript"

EVAL_CODE = r'''
import re

TOOL_CALL = re.compile(r"\btool_call (\w+)\(")
NUMBER = re.compile(r"-?\b\d+(?:\.\d+)?\b")
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
STATUS = re.compile(r"\bstatus\W+(ok|error|pending|shipped|refunded)\b")
LATENCY = re.compile(r"\blatency_ms=(\d+(?:\.\d+)?)")
WORD = re.compile(r"[A-Za-z][a-z']+")
TURN = re.compile(r"^(user|assistant|tool)\b:", re.M)
KEY_VALUE = re.compile(r"\b(\w+)=([^\s,;()]+)")
ERROR = re.compile(r"\b(error|exception|timeout|failed)\b", re.I)
ANSWER = re.compile(r"\b(refund(?:ed)?|replacement|order [A-Z]\d{5})\b", re.I)


def _text(trace):
    lines = []
    for message in trace.get("input") or []:
        lines.append(f"{message.get('role')}: {message.get('content')}")
    for step in trace.get("steps") or []:
        kind = step.get("type")
        if kind == "tool_call":
            args = ", ".join(f"{k}={v}" for k, v in (step.get("arguments") or {}).items())
            lines.append(f"tool: tool_call {step.get('name')}({args}) latency_ms={step.get('latency_ms')}")
            lines.append(f"tool: result {step.get('result')} error={step.get('error')}")
        elif kind == "llm_call":
            lines.append(f"assistant: {step.get('content')} latency_ms={step.get('latency_ms')}")
        else:
            lines.append(f"{step.get('role')}: {step.get('content')}")
    lines.append(f"assistant: {trace.get('output')}")
    return "\n".join(lines)


PATTERNS = (
    ("tool", TOOL_CALL), ("number", NUMBER), ("email", EMAIL), ("status", STATUS),
    ("latency", LATENCY), ("word", WORD), ("turn", TURN), ("pair", KEY_VALUE),
    ("error", ERROR), ("answer", ANSWER),
)


def _findings(text):
    """Every match of every pattern, line by line, as (pattern, line, column, groups)."""
    found = []
    for number, line in enumerate(text.splitlines()):
        for name, pattern in PATTERNS:
            for match in pattern.finditer(line):
                found.append((name, number, match.start(), match.groups() or (match.group(0),)))
    return found


def eval_support_transcript(trace, ctx=None):
    by_kind = {}
    for kind, line, column, groups in _findings(_text(trace)):
        by_kind.setdefault(kind, []).append((line, column, groups))
    tools = [g[0] for _, _, g in by_kind.get("tool", [])]
    numbers = [float(g[0]) for _, _, g in by_kind.get("number", [])]
    emails = {g[0] for _, _, g in by_kind.get("email", [])}
    statuses = {}
    for _, _, g in by_kind.get("status", []):
        statuses[g[0]] = statuses.get(g[0], 0) + 1
    latencies = sorted(float(g[0]) for _, _, g in by_kind.get("latency", []))
    words, bigrams, per_line = {}, {}, {}
    previous = None
    for line, _, g in by_kind.get("word", []):
        word = g[0].lower()
        words[word] = words.get(word, 0) + 1
        if previous is not None:
            bigrams[(previous, word)] = bigrams.get((previous, word), 0) + 1
        per_line[line] = per_line.get(line, 0) + 1
        previous = word
    turns = [g[0] for _, _, g in by_kind.get("turn", [])]
    pairs = {}
    for _, _, (key, value) in by_kind.get("pair", []):
        pairs.setdefault(key, []).append(value)
    errors = [g[0].lower() for _, _, g in by_kind.get("error", [])]
    answer = ANSWER.findall(trace.get("output") or "")
    slow = latencies[int(len(latencies) * 0.9)] if latencies else 0.0
    common = sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    repeated = sum(1 for count in bigrams.values() if count > 3)
    checks = [
        "issue_refund" in tools,
        bool(answer),
        not errors or statuses.get("shipped", 0) + statuses.get("refunded", 0) > len(errors),
        slow < 2000.0,
        turns.count("user") >= 1 and turns.count("assistant") >= 3,
        sum(numbers) > 0,
        bool(emails) or "email" not in pairs,
        max(per_line.values(), default=0) < 200 and repeated < len(bigrams),
    ]
    score = sum(checks) / len(checks)
    top = ", ".join(word for word, _ in common[:3])
    return score, f"{sum(checks)}/{len(checks)} checks; {len(tools)} tool calls; top words {top}"
'''


def make_transcript(i: int) -> dict[str, Any]:
    """The trace an agent reports for case ``i``: about 5 KB once rendered as eval text."""
    order = f"A{i % 100000:05d}"
    refunds = i % 2 == 0
    steps: list[dict[str, Any]] = []
    for j in range(6):
        steps.append(
            {
                "type": "llm_call",
                "model": "claude-sonnet-4-5",
                "input_tokens": 900 + 40 * j,
                "output_tokens": 120 + j,
                "latency_ms": 640.0 + 37.5 * j,
                "content": (
                    f"Step {j}: the customer with order {order} reports a broken item and wants "
                    f"their money back; status=pending, amount=19.99, contact jane.doe{i}@example.com. "
                    "I should look the order up, check the return window and then decide; "
                    "the item was shipped on day 3 and the policy allows 30 days. " * 2
                ),
            }
        )
        name = "issue_refund" if j == 5 and refunds else ("lookup_order" if j % 2 == 0 else "check_policy")
        steps.append(
            {
                "type": "tool_call",
                "name": name,
                "arguments": {"order_id": order, "reason": "damaged item", "attempt": j},
                "result": {
                    "status": "refunded" if name == "issue_refund" else "shipped",
                    "items": [{"sku": f"X-{j}", "qty": 1, "price": 19.99}],
                    "eta_days": j + 2,
                },
                "error": "upstream timeout, retried" if j == 3 else None,
                "latency_ms": 42.0 + j,
            }
        )
        steps.append(
            {"type": "message", "role": "assistant", "content": f"Working on order {order} (step {j})."}
        )
    output = (
        f"I have refunded order {order}; you will see 19.99 back within 5 days."
        if refunds
        else f"For order {order}, please send a photo of the damage to support@example.com."
    )
    return {
        "output": output,
        "steps": steps,
        "state": {"refunded": refunds, "order_id": order},
        "usage": {"input_tokens": 6000, "output_tokens": 735},
    }


def eval_dict(i: int) -> dict[str, Any]:
    """The dict an eval function receives for case ``i`` (the shape of ``Trace.to_eval_dict()``)."""
    from agenteval.contracts.trace import Message, Step, Trace, Usage

    raw = make_transcript(i)
    trace = Trace(
        input=[Message(role="user", content=f"My order A{i % 100000:05d} arrived broken. Refund please.")],
        steps=[Step.model_validate(s) for s in raw["steps"]],
        output=raw["output"],
        state=raw["state"],
        usage=Usage.model_validate(raw["usage"]),
        latency_ms=3.0,
    )
    return trace.to_eval_dict()


def plain_eval_ms(calls: int = 200) -> dict[str, float]:
    """CPU ms per call of the eval function run directly (no sandbox), and the text's size."""
    namespace: dict[str, Any] = {}
    exec(compile(EVAL_CODE, "<w3-eval>", "exec"), namespace)  # our own constant code
    fn = namespace[EVAL_FUNCTION]
    traces = [eval_dict(i) for i in range(calls)]
    fn(traces[0])
    started = time.process_time()
    for trace in traces:
        fn(trace)
    cpu_ms = (time.process_time() - started) * 1000.0 / calls
    return {"cpu_ms_per_call": cpu_ms, "text_bytes": float(len(namespace["_text"](traces[0])))}
