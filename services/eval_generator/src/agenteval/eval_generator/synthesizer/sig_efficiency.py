"""Signals about wasted effort: the same call again (or trivially reworded), results that brought
nothing new, and more calls than the request has parts.

Each signal is ``trace dict -> float`` with a one-line docstring. Sandbox-safe (see
``_trace_access``): the emitter copies the signals a rule uses into the generated code.
"""

import re

from agenteval.eval_generator.synthesizer._trace_access import (
    _answer,
    _call_args,
    _call_failed,
    _call_key,
    _call_kind,
    _call_name,
    _first_user_text,
    _leaf_text,
    _text,
    _timeline,
    _tool_calls,
    _user_texts,
)
from agenteval.eval_generator.synthesizer._values import _STOPWORDS, _leaf_tokens, _value_tokens
from agenteval.eval_generator.synthesizer.sig_answers import no_final_answer
from agenteval.eval_generator.synthesizer.sig_outcomes import _PASSING_ERROR_RE


def tool_call_count(trace: dict) -> float:
    """Number of tool calls."""
    return float(len(_tool_calls(trace)))


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


def _arg_words(call: dict) -> set:
    """The argument values as a set of words, case, punctuation and filler words left out."""
    words = re.findall(r"[a-z0-9]+", _leaf_text(_call_args(call)).lower())
    kept = {w for w in words if w not in _STOPWORDS}
    return kept or set(words)


def _similar_calls(a: dict, b: dict) -> bool:
    """Same tool and arguments equal up to case, word order, filler words and one added or dropped word."""
    if _call_name(a) != _call_name(b):
        return False
    wa, wb = _arg_words(a), _arg_words(b)
    if wa == wb:
        return True
    union = wa | wb
    return bool(union) and len(wa & wb) / len(union) >= 0.6 and len(union - (wa & wb)) <= 2


def near_duplicate_calls(trace: dict) -> float:
    """Calls that repeat an earlier call up to trivial rewording (one retry after a failure not counted)."""
    calls = _tool_calls(trace)
    count = 0
    for i, c in enumerate(calls):
        earlier = [d for d in calls[:i] if _similar_calls(c, d)]
        if not earlier:
            continue
        if len(earlier) == 1 and _call_failed(earlier[0]):
            continue  # a single retry of a failed call is legitimate
        count += 1
    return float(count)


def most_similar_calls(trace: dict) -> float:
    """The largest number of calls that are all trivial rewordings of one call."""
    calls = _tool_calls(trace)
    best = 0
    for c in calls:
        best = max(best, sum(1 for d in calls if _similar_calls(c, d)))
    return float(best)


def repeated_results(trace: dict) -> float:
    """Calls whose result is the same as an earlier result of the same tool (nothing new learned)."""
    seen = set()
    count = 0
    for c in _tool_calls(trace):
        if _call_failed(c):
            continue
        key = _call_name(c) + " " + _text(c.get("result"))
        if key in seen:
            count += 1
        seen.add(key)
    return float(count)


def repeated_failures(trace: dict) -> float:
    """Calls retried unchanged that fail again the same way (same tool, arguments and error)."""
    seen = set()
    count = 0
    for c in _tool_calls(trace):
        if not _call_failed(c):
            continue
        key = _call_key(c) + " " + _text(c.get("error")) + " " + _text(c.get("result"))
        if key in seen:
            count += 1
        seen.add(key)
    return float(count)


def calls_unrelated_to_request(trace: dict) -> float:
    """Successful calls whose arguments name nothing the user or an earlier result gave, and whose
    result the answer does not use."""
    known: set[str] = set()
    for text in _user_texts(trace):
        known |= _value_tokens(text)
    said = _value_tokens(_answer(trace))
    count = 0
    for c in _tool_calls(trace):
        args = _leaf_tokens(_call_args(c))
        result = _leaf_tokens(c.get("result")) if not _call_failed(c) else set()
        if not _call_failed(c) and args and not args & known and not result & said:
            count += 1
        known |= result
    return float(count)


def _request_parts(text: str) -> int:
    """How many things a request asks for: questions, listed items, clauses joined by ';' or 'and also'."""
    questions = text.count("?")
    items = len(re.findall(r"(^|\s)(\(?\d{1,2}[.)]|[-*•])\s", text))
    joints = len(re.findall(r";|\band also\b|\bas well as\b|\bplus\b", text, re.I))
    commas = text.count(",") if questions <= 1 and items == 0 and joints == 0 and len(text) > 60 else 0
    return max(1, questions, items, joints + 1, min(commas, 3))


def calls_per_request_part(trace: dict) -> float:
    """Tool calls per part of the user's request (a question, a listed item)."""
    calls = len(_tool_calls(trace))
    return calls / _request_parts(_first_user_text(trace))


def distinct_call_share(trace: dict) -> float:
    """Share of calls that are not a trivial rewording of an earlier call (1 when there are none)."""
    calls = _tool_calls(trace)
    if not calls:
        return 1.0
    distinct = sum(1 for i, c in enumerate(calls) if not any(_similar_calls(c, d) for d in calls[:i]))
    return distinct / len(calls)


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


def act_before_lookup(trace: dict) -> float:
    """A write or risky tool ran before any lookup/read tool."""
    first_read = None
    first_write = None
    for i, c in enumerate(_tool_calls(trace)):
        kind = _call_kind(c)
        if kind == "read" and first_read is None:
            first_read = i
        if kind in ("write", "risky") and first_write is None:
            first_write = i
    if first_write is None:
        return 0.0
    return 1.0 if first_read is None or first_write < first_read else 0.0


def _repeats_without_reason(trace: dict) -> int:
    """Results the same as an earlier one of the same tool with nothing between to make asking again
    worth it (no user turn, no write), and lasting failures retried unchanged."""
    seen: set = set()
    failed: set = set()
    count = 0
    for e in _timeline(trace):
        if e["kind"] == "msg" and e["role"] == "user":
            seen, failed = set(), set()  # the user asked again: asking the tools again is fair
            continue
        if e["kind"] != "call":
            continue
        c = e["call"]
        if _call_kind(c) in ("write", "risky") and not _call_failed(c):
            seen = set()  # after a write, reading again is checking it
        if _call_failed(c):
            error = _text(c.get("error")) + " " + _text(c.get("result"))
            key = _call_key(c) + " " + error
            if key in failed and not _PASSING_ERROR_RE.search(error):
                count += 1
            failed.add(key)
            continue
        key = _call_name(c) + " " + _text(c.get("result"))
        if key in seen and not _IN_PROGRESS_RE.search(_leaf_text(c.get("result"))):
            count += 1  # the same "still running" is what polling a job looks like
        seen.add(key)
    return count


_IN_PROGRESS_RE = re.compile(
    r"\b(running|pending|queued|in[_ -]progress|processing|started|waiting|provisioning|building|"
    r"not (yet )?(ready|done|finished|complete))\b",
    re.I,
)


def effort_wasted(trace: dict) -> float:
    """Wasted or unfinished work: a call repeated with nothing new to learn, a lasting failure retried unchanged, three or more unrelated calls, or no answer."""
    if _repeats_without_reason(trace) or calls_unrelated_to_request(trace) >= 3:
        return 1.0
    return no_final_answer(trace)
