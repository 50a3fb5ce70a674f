"""Signals about claims in the answer against what the trace supports: numbers, dates, versions,
ids, quotes and names that no message or tool gave; actions claimed but never taken.

Each signal is ``trace dict -> float`` with a one-line docstring. Sandbox-safe (see
``_trace_access``): the emitter copies the signals a rule uses into the generated code.
"""

import re

from agenteval.eval_generator.synthesizer._phrases import _plain, _says_unknown
from agenteval.eval_generator.synthesizer._trace_access import (
    _answer,
    _call_args,
    _call_failed,
    _is_action,
    _leaf_text,
    _tool_calls,
)
from agenteval.eval_generator.synthesizer._values import (
    _DAYS,
    _ID_RE,
    _MONTHS,
    _NUMBER_WORDS,
    _STOP_CAPS,
    _date_entities,
    _numbers,
    _source_text,
    _supported,
)
from agenteval.eval_generator.synthesizer.sig_actions import (
    _money_leaves,
    acted_after_check_said_no,
    action_breaks_limit,
    action_id_differs_from_request,
    action_id_unsupported,
)

_CONTENT_STOPWORDS = frozenset(
    "this that with from have been were will would could should there their about which your what when "
    "true false none null".split()
)
_VERSION_RE = re.compile(r"\bv?(\d+\.\d+(?:\.\d+)*)\b")


def _is_id(token: str) -> bool:
    if re.fullmatch(r"\d+(st|nd|rd|th|x|k|m|gb|mb|kb|ms|s|h|am|pm)", token, re.I):
        return False  # an ordinal, a multiple or a quantity with its unit
    return len(token) >= 4 and bool(re.search(r"[a-z]", token, re.I)) and bool(re.search(r"\d", token))


def _unsupported_facts(trace: dict) -> list:
    """[facts stated, unsupported numbers over 10, other unsupported facts] of the answer.

    Other facts: small numbers ("7 days"), ids, quotes, dates and versions.
    """
    answer = _answer(trace)
    source = _source_text(trace)
    low_source = source.lower()
    ids = [t for t in (m.group(0).lstrip("#") for m in _ID_RE.finditer(answer)) if _is_id(t)]
    bad = sum(1 for t in ids if t.lower() not in low_source)
    # An id's digits are part of the id, not a number of their own.
    without_ids = _ID_RE.sub(lambda m: " " if _is_id(m.group(0).lstrip("#")) else m.group(0), answer)
    answer_dates, without_dates = _date_entities(without_ids)
    source_dates, _ = _date_entities(source)
    bad += len(answer_dates - source_dates)
    versions = [m.group(1) for m in _VERSION_RE.finditer(without_dates) if m.group(1).count(".") >= 2]
    bad += sum(1 for v in versions if v not in low_source)
    without_versions = _VERSION_RE.sub(
        lambda m: " " if m.group(1).count(".") >= 2 else m.group(0), without_dates
    )
    known = [v for readings in _numbers(source, False) for v, _ in readings] + _list_lengths(trace)
    # "two weeks" in the source supports "2 weeks" in the answer
    known += [float(v) for w, v in _NUMBER_WORDS.items() if re.search(r"\b" + w + r"\b", low_source)]
    # List markers ("1)", "2.") are layout, not claims.
    without_markers = re.sub(r"(^|\n)\s*\(?\d{1,2}[.)]\s", " ", without_versions)
    stated = _numbers(without_markers, False)
    bad_small = sum(1 for readings in stated if readings[0][0] <= 10 and not _supported(readings, known))
    bad_numbers = sum(1 for readings in stated if not _supported(readings, known)) - bad_small
    quotes = re.findall(r"[\"“]([^\"”]{4,80})[\"”]", answer)
    bad += sum(1 for q in quotes if q.lower().strip() not in low_source)
    total = len(stated) + len(ids) + len(quotes) + len(answer_dates) + len(versions)
    return [total, bad_numbers, bad + bad_small]


def _list_lengths(trace: dict) -> list:
    """How many items each list in the tool results holds, and how many calls there were: counts an answer may state."""
    out = [float(len(_tool_calls(trace)))]
    stack = [c.get("result") for c in _tool_calls(trace)]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            out.append(float(len(value)))
            stack += value
        elif isinstance(value, dict):
            stack += list(value.values())
    return out


def unsupported_numbers(trace: dict) -> float:
    """Numbers over 10 (or with decimals) in the answer that no message, tool argument or result supports."""
    return float(_unsupported_facts(trace)[1])


def unsupported_facts(trace: dict) -> float:
    """Numbers (small ones too), ids, dates, versions and quotes in the answer that nothing in the trace supports."""
    counts = _unsupported_facts(trace)
    return float(counts[1] + counts[2])


def unsupported_fact_share(trace: dict) -> float:
    """Share of the answer's numbers, ids, dates, versions and quotes that nothing in the trace supports."""
    counts = _unsupported_facts(trace)
    return (counts[1] + counts[2]) / counts[0] if counts[0] else 0.0


_CALENDAR_WORDS = frozenset(
    [d for name in _DAYS for d in (name, name[:3])]
    + [m for name in _MONTHS for m in (name, name[:3])]
    + ["sept"]
)


def _proper_names(text: str) -> list:
    """Capitalized words that do not start a sentence (names of people, places, products); days and
    months ("Sun 2 Feb") are dates, not names."""
    out = []
    for sentence in re.split(r"[.!?:;]\s+|\n+|\s[-–—]\s|[(\"]", text):
        words = re.findall(r"[A-Za-z][A-Za-z'-]*", sentence)
        for word in words[1:]:
            low = word.lower()
            if (
                word[0].isupper()
                and not word.isupper()
                and low not in _STOP_CAPS
                and low not in _CALENDAR_WORDS
            ):
                out.append(word)
    return out


def unsupported_names(trace: dict) -> float:
    """Names (capitalized words inside a sentence) in the answer that appear nowhere else in the trace."""
    source = _source_text(trace).lower()
    return float(sum(1 for w in set(_proper_names(_answer(trace))) if w.lower() not in source))


def answer_says_unknown(trace: dict) -> float:
    """The answer says the sources do not cover it ("the docs don't say", "I couldn't find")."""
    return 1.0 if _says_unknown(_answer(trace)) else 0.0


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


# Telling the user something was done: "I've refunded", "your booking is confirmed", "Done!".
_DONE_CLAIM_RE = re.compile(
    r"(\b(i'?ve|i have|we'?ve|we have|i just|i)\s+(\w+ly\s+)?((?:gone|went) ahead and\s+)?(booked|reserved|refunded|issued|processed|"
    r"cancell?ed|deleted|removed|sent|scheduled|updated|changed|transferred|paid|created|submitted|placed|"
    r"ordered|applied|reset|closed|added|assigned|moved|renewed|upgraded|confirmed|completed|arranged|"
    r"initiated|started|filed|opened|credited|returned|rebooked|switched|set up|made|put)\b|"
    r"\b(is|has been|have been|was|were|are)\s+(now\s+|successfully\s+|(?:approved|accepted) and\s+)?(booked|reserved|refunded|issued|approved|granted|authori[sz]ed|"
    r"processed|cancell?ed|deleted|removed|sent|scheduled|updated|changed|transferred|paid|created|"
    r"submitted|placed|applied|reset|closed|credited|rebooked|switched|initiated|confirmed)\b|"
    r"\b(will now|will be (sent|refunded|credited)|(is|are) now)\b|"
    r"^\s*(done|all set|all done|finished|updated|booked|confirmed|refund processed)\b|"
    # Promising money back is telling the user it is on its way.
    r"\b(you('ll| will)|you should) (receive|get|see) (a |your |the |an? )?(full )?(refund|money back|credit|"
    r"reimbursement)|\b(refund|reimbursement|credit|money)\b(?:[^.]|\.\d){0,40}\b(will|should) (be (issued|processed|"
    r"credited|sent|returned|back)|arrive|appear|reach|post|show up)|\b(refund|reimbursement|credit|money)\b"
    r"(?:[^.]|\.\d){0,30}\bon (its|the) way\b|\b(i|we)('ll| will)( \w+ly)? (refund|reimburse|credit|issue)\b|"
    r"\b(is|are) being (processed|issued|refunded|credited|sent)\b|"
    # Work in progress or just done, said in other ways: "I'm processing your refund now",
    # "Refund initiated", "you'll be refunded", "it's been refunded", "I've approved a refund".
    r"\b(i'?m|i am|we'?re|we are) (now |currently )?(processing|issuing|initiating|submitting|refunding|crediting|"
    r"sending|reimbursing)\b|\b(refund|reimbursement|credit)\s+(of\s+[$€£]?[\d.,]+\s+)?(initiated|issued|approved|"
    r"processed|submitted|completed|granted|authori[sz]ed)\b|\b(you('ll| will)|you should) be (fully )?(refunded|"
    r"reimbursed|credited)\b|\b(it|that|this)'?s been (refunded|processed|issued|credited|cancell?ed|booked)\b|"
    r"\b(i'?ve|i have|we'?ve|we have) (approved|authori[sz]ed|granted)\b)",
    re.I,
)


# Money said to be on its way back: only a call that moves money (by its name, or an amount it
# carries) does that; a return label or a ticket does not.
_MONEY_BACK_RE = re.compile(r"\b(refund\w*|reimburs\w*|money back|credited|chargeback)\b", re.I)
_MONEY_CALL_RE = re.compile(r"refund|reimburs|credit|payout|compensat|chargeback|reversal|repay", re.I)


def claims_action_without_call(trace: dict) -> float:
    """The answer says something was done (booked, refunded, updated...) but no action call succeeded
    (for money said to come back: no call that moves money)."""
    answer = _plain(_answer(trace))
    if not _DONE_CLAIM_RE.search(answer):
        return 0.0
    done = [c for c in _tool_calls(trace) if _is_action(c) and not _call_failed(c)]
    if done and _MONEY_BACK_RE.search(answer):
        return (
            0.0
            if any(
                _MONEY_CALL_RE.search(str(c.get("name") or "")) or _money_leaves(_call_args(c)) for c in done
            )
            else 1.0
        )
    return 0.0 if done else 1.0


def unjustified_action_or_claim(trace: dict) -> float:
    """An action the record or the rules do not allow (over a limit, out of the window, on another record), or one claimed but not done."""
    if claims_action_without_call(trace):
        return 1.0
    for fn in (
        action_breaks_limit,
        action_id_unsupported,
        action_id_differs_from_request,
        acted_after_check_said_no,
    ):
        if fn(trace):
            return 1.0
    return 0.0
