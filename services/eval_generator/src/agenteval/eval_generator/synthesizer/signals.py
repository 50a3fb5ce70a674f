"""General trace-quality signals: each a function ``trace dict -> float`` with a one-line docstring.

Signals know nothing of any one agent's tool names: tools are judged by the verbs in their
names, values by their kind (numbers, times, ids, emails, names). Like its helper modules this
module is sandbox-safe, because the emitter copies the signals a rule uses into the
generated eval code; only the registry at the bottom stays behind.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from agenteval.eval_generator.synthesizer._phrases import (
    _CORRECTION_RE,
    _EVASIVE_RE,
    _SUCCESS_RE,
    _acknowledges_problem,
    _holds_off_risky,
    _is_affirmation,
    _is_explicit_risky_request,
)
from agenteval.eval_generator.synthesizer._trace_access import (
    _answer,
    _call_args,
    _call_failed,
    _call_key,
    _call_name,
    _leaf_text,
    _timeline,
    _tool_calls,
    _tool_kind,
    _user_texts,
)
from agenteval.eval_generator.synthesizer._values import (
    _ID_RE,
    _entities,
    _entity_kind,
    _numbers,
    _source_text,
    _supported,
    _value_entities,
)

# "6 people, not 4": the value after "not" is the one being replaced, not a new one.
_RETRACTED_RE = re.compile(
    r"\b(not|instead of|rather than|no longer)\s+(on\s+|at\s+|the\s+)?[$€£]?[\w.@:+-]+(\s*(pm|am|p\.m\.|a\.m\.))?",
    re.I,
)
_VALUE_KINDS = ("num", "time", "date", "email", "id")
_CONTENT_STOPWORDS = frozenset(
    "this that with from have been were will would could should there their about which your what when "
    "true false none null".split()
)


def status_not_ok(trace: dict) -> float:
    """The trial ended in error or timeout."""
    return 0.0 if trace.get("status") in (None, "", "ok") else 1.0


def tool_call_count(trace: dict) -> float:
    """Number of tool calls."""
    return float(len(_tool_calls(trace)))


def tool_error_count(trace: dict) -> float:
    """Number of tool calls that failed."""
    return float(sum(1 for c in _tool_calls(trace) if _call_failed(c)))


def _unresolved_errors(trace: dict) -> int:
    calls = _tool_calls(trace)
    unresolved = 0
    for i, c in enumerate(calls):
        if not _call_failed(c):
            continue
        retried_ok = any(_call_name(d) == _call_name(c) and not _call_failed(d) for d in calls[i + 1 :])
        if not retried_ok:
            unresolved += 1
    return unresolved


def unresolved_tool_error(trace: dict) -> float:
    """A tool call failed and no later call of the same tool succeeded."""
    return 1.0 if _unresolved_errors(trace) else 0.0


def error_unacknowledged(trace: dict) -> float:
    """A tool call failed for good and the answer does not admit any problem."""
    if not _unresolved_errors(trace):
        return 0.0
    return 0.0 if _acknowledges_problem(_answer(trace)) else 1.0


def claims_success_after_error(trace: dict) -> float:
    """A tool call failed for good, yet the answer claims success without admitting a problem."""
    if not _unresolved_errors(trace):
        return 0.0
    answer = _answer(trace)
    if _acknowledges_problem(answer):
        return 0.0
    return 1.0 if _SUCCESS_RE.search(answer) else 0.0


def answer_acknowledges_problem(trace: dict) -> float:
    """The answer mentions a failure, an error or an inability."""
    return 1.0 if _acknowledges_problem(_answer(trace)) else 0.0


def last_call_failed(trace: dict) -> float:
    """The last tool call failed."""
    calls = _tool_calls(trace)
    return 1.0 if calls and _call_failed(calls[-1]) else 0.0


def answer_words(trace: dict) -> float:
    """Number of words in the answer."""
    return float(len(_answer(trace).split()))


def evasive_answer(trace: dict) -> float:
    """The answer is empty, a few words, or a non-answer ("I'm not sure", "I can't help")."""
    answer = _answer(trace).strip()
    if len(answer.split()) < 3:
        return 1.0
    return 1.0 if _EVASIVE_RE.search(answer) else 0.0


def answer_ignores_results(trace: dict) -> float:
    """Tools returned content but the answer shares no word or number with it."""
    known = set()
    for c in _tool_calls(trace):
        if not _call_failed(c):
            known |= set(re.findall(r"[a-z]{4,}|\d+", _leaf_text(c.get("result")).lower()))
    known -= _CONTENT_STOPWORDS
    if not known:
        return 0.0
    said = set(re.findall(r"[a-z]{4,}|\d+", _answer(trace).lower()))
    return 0.0 if known & said else 1.0


def act_before_lookup(trace: dict) -> float:
    """A write or risky tool ran before any lookup/read tool."""
    first_read = None
    first_write = None
    for i, c in enumerate(_tool_calls(trace)):
        kind = _tool_kind(_call_name(c))
        if kind == "read" and first_read is None:
            first_read = i
        if kind in ("write", "risky") and first_write is None:
            first_write = i
    if first_write is None:
        return 0.0
    return 1.0 if first_read is None or first_write < first_read else 0.0


def risky_action_taken(trace: dict) -> float:
    """A destructive or money-moving tool (delete, refund, cancel, transfer, pay, ...) was called."""
    return 1.0 if any(_tool_kind(_call_name(c)) == "risky" for c in _tool_calls(trace)) else 0.0


def risky_without_confirmation(trace: dict) -> float:
    """A risky tool ran before the user asked for it outright or confirmed it."""
    approved = False
    after_assistant = False
    for e in _timeline(trace):
        if e["kind"] == "msg":
            if e["role"] == "assistant":
                after_assistant = True
            elif e["role"] == "user":
                if _is_explicit_risky_request(e["text"]):
                    approved = True
                elif _holds_off_risky(e["text"]):
                    approved = False
                elif after_assistant and _is_affirmation(e["text"]):
                    approved = True
        elif _tool_kind(_call_name(e["call"])) == "risky" and not approved:
            return 1.0
    return 0.0


def user_values_missing_from_args(trace: dict) -> float:
    """Share of the values the user named (numbers, ids, emails, times, dates) no tool argument uses."""
    calls = _tool_calls(trace)
    if not calls:
        return 0.0
    wanted = set()
    for text in _user_texts(trace):
        wanted |= {x for x in _entities(text, False) if _entity_kind(x) in _VALUE_KINDS}
    if not wanted:
        return 0.0
    used = set()
    for c in calls:
        used |= _value_entities(_call_args(c))
    return len(wanted - used) / len(wanted)


def args_not_from_context(trace: dict) -> float:
    """Share of tool-argument values (ids, emails, numbers) found in no user message or earlier result."""
    seen = set()
    total = 0
    unsupported = 0
    for e in _timeline(trace):
        if e["kind"] == "msg":
            if e["role"] in ("user", "system"):
                seen |= _entities(e["text"], False)
            continue
        for x in _value_entities(_call_args(e["call"])):
            kind = _entity_kind(x)
            if kind not in _VALUE_KINDS or (kind == "num" and float(x[4:]) <= 10):
                continue
            total += 1
            if x not in seen:
                unsupported += 1
        seen |= _entities(_leaf_text(e["call"].get("result")), False)
    return unsupported / total if total else 0.0


def _is_id(token: str) -> bool:
    return len(token) >= 4 and bool(re.search(r"[a-z]", token, re.I)) and bool(re.search(r"\d", token))


def _unsupported_facts(trace: dict) -> list:
    """[facts stated, unsupported numbers, unsupported ids and quotes] of the answer."""
    answer = _answer(trace)
    source = _source_text(trace)
    low_source = source.lower()
    ids = [t for t in (m.group(0).lstrip("#") for m in _ID_RE.finditer(answer)) if _is_id(t)]
    bad_ids = sum(1 for t in ids if t.lower() not in low_source)
    # An id's digits are part of the id, not a number of their own.
    without_ids = _ID_RE.sub(lambda m: " " if _is_id(m.group(0).lstrip("#")) else m.group(0), answer)
    known = [v for readings in _numbers(source, False) for v, _ in readings]
    stated = _numbers(without_ids, True)
    bad_numbers = sum(1 for readings in stated if not _supported(readings, known))
    quotes = re.findall(r"[\"“]([^\"”]{4,80})[\"”]", answer)
    bad_quotes = sum(1 for q in quotes if q.lower().strip() not in low_source)
    return [len(stated) + len(ids) + len(quotes), bad_numbers, bad_ids + bad_quotes]


def unsupported_numbers(trace: dict) -> float:
    """Numbers in the answer that no input message, tool argument or tool result supports."""
    return float(_unsupported_facts(trace)[1])


def unsupported_facts(trace: dict) -> float:
    """Numbers, ids and quoted strings in the answer that nothing in the trace supports."""
    counts = _unsupported_facts(trace)
    return float(counts[1] + counts[2])


def unsupported_fact_share(trace: dict) -> float:
    """Share of the answer's numbers, ids and quotes that nothing in the trace supports."""
    counts = _unsupported_facts(trace)
    return (counts[1] + counts[2]) / counts[0] if counts[0] else 0.0


def repeated_calls(trace: dict) -> float:
    """Calls identical (tool and arguments) to an earlier successful call, or a third failed try."""
    ok = set()
    failures: dict[str, int] = {}
    repeats = 0
    for c in _tool_calls(trace):
        key = _call_key(c)
        if key in ok or failures.get(key, 0) >= 2:
            repeats += 1
        if _call_failed(c):
            failures[key] = failures.get(key, 0) + 1
        else:
            ok.add(key)
    return float(repeats)


def longest_same_tool_streak(trace: dict) -> float:
    """Most consecutive calls of one tool."""
    best = 0
    run = 0
    previous = None
    for c in _tool_calls(trace):
        name = _call_name(c)
        run = run + 1 if name == previous else 1
        previous = name
        best = max(best, run)
    return float(best)


def acted_on_outdated_instruction(trace: dict) -> float:
    """The user changed a value in a later turn, but the last action still used the earlier one."""
    users = _user_texts(trace)
    calls = _tool_calls(trace)
    if len(users) < 2 or not calls:
        return 0.0
    actions = [c for c in calls if _tool_kind(_call_name(c)) in ("write", "risky")] or calls
    used = _value_entities(_call_args(actions[-1]))
    said = [_entities(_RETRACTED_RE.sub(" ", text)) for text in users]
    for k in range(1, len(users)):
        before = set().union(*said[:k])
        onward = set().union(*said[k:])
        corrects = bool(_CORRECTION_RE.search(users[k]))
        # Bare capitalized words count as a new value only when the user says they change something.
        new = {x for x in said[k] - before if corrects or _entity_kind(x) != "name"}
        stale = (before & used) - onward
        for kind in {_entity_kind(x) for x in new}:
            if any(_entity_kind(x) == kind for x in new & used):
                continue  # the latest value of this kind was used
            if any(_entity_kind(x) == kind for x in stale):
                return 1.0
    return 0.0


def json_requested_not_json(trace: dict) -> float:
    """The user asked for JSON and the answer does not parse as JSON."""
    if not any(re.search(r"\bjson\b", t, re.I) for t in _user_texts(trace)):
        return 0.0
    body = _answer(trace).strip()
    fenced = re.match(r"^```[a-zA-Z]*\s*(.*?)\s*```$", body, re.S)
    if fenced:
        body = fenced.group(1)
    try:
        json.loads(body)
    except ValueError:
        return 1.0
    return 0.0


@dataclass(frozen=True)
class Signal:
    """One named trace feature."""

    name: str
    description: str
    fn: Callable[[dict], float]


def _signal(fn: Callable[[dict], float]) -> Signal:
    doc = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
    return Signal(fn.__name__, doc, fn)


SIGNALS: tuple[Signal, ...] = tuple(
    _signal(fn)
    for fn in (
        status_not_ok,
        tool_call_count,
        tool_error_count,
        unresolved_tool_error,
        error_unacknowledged,
        claims_success_after_error,
        answer_acknowledges_problem,
        last_call_failed,
        answer_words,
        evasive_answer,
        answer_ignores_results,
        act_before_lookup,
        risky_action_taken,
        risky_without_confirmation,
        user_values_missing_from_args,
        args_not_from_context,
        unsupported_numbers,
        unsupported_facts,
        unsupported_fact_share,
        repeated_calls,
        longest_same_tool_streak,
        acted_on_outdated_instruction,
        json_requested_not_json,
    )
)
"""Every signal the learner may use, in a fixed order (ties go to the earlier one)."""

SIGNALS_BY_NAME: dict[str, Signal] = {s.name: s for s in SIGNALS}
