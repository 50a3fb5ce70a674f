"""Signals about claims in the answer against what the trace supports: numbers, dates, versions,
ids, quotes and names that no message or tool gave; actions claimed but never taken.

Each signal is ``trace dict -> float`` with a one-line docstring. Sandbox-safe (see
``_trace_access``): the emitter copies the signals a rule uses into the generated code.
"""

import re

from agenteval.eval_generator.synthesizer._phrases import (
    _ASKS_CONFIRMATION_RE,
    _UNKNOWN_RE,
    _is_affirmation,
    _plain,
    _says_unknown,
)
from agenteval.eval_generator.synthesizer._trace_access import (
    _answer,
    _call_args,
    _call_failed,
    _call_kind,
    _is_action,
    _keyed_leaves,
    _last_user_text,
    _leaf_text,
    _signal_value,
    _timeline,
    _tool_calls,
)
from agenteval.eval_generator.synthesizer._values import (
    _DAYS,
    _ID_RE,
    _MONTHS,
    _NUMBER_WORDS,
    _SCALES,
    _STOP_CAPS,
    _STOPWORDS,
    _date_entities,
    _entities,
    _numbers,
    _source_text,
    _stem,
    _supported,
)
from agenteval.eval_generator.synthesizer.sig_actions import (
    _BOOKKEEPING_CALL_RE,
    _CODED_AMOUNT_RE,
    _clock_times,
    _money_leaves,
    _result_items,
    acted_after_check_said_no,
    action_breaks_limit,
    action_id_differs_from_request,
    action_id_unsupported,
)
from agenteval.eval_generator.synthesizer.sig_answers import _AMOUNT_RE

_CONTENT_STOPWORDS = frozenset(
    "this that with from have been were will would could should there their about which your what when "
    "true false none null".split()
)
_VERSION_RE = re.compile(r"\bv?(\d+\.\d+(?:\.\d+)*)\b")


def _is_id(token: str) -> bool:
    if re.fullmatch(r"\d+(st|nd|rd|th|x|k|m|gb|mb|kb|ms|s|h|am|pm)", token, re.I):
        return False  # an ordinal, a multiple or a quantity with its unit
    return len(token) >= 4 and bool(re.search(r"[a-z]", token, re.I)) and bool(re.search(r"\d", token))


def _without_versions(text: str) -> str:
    return _VERSION_RE.sub(lambda m: " " if m.group(1).count(".") >= 2 else m.group(0), text)


def _without_ids(text: str) -> str:
    """The text with its ids blanked: an id's digits are part of the id, not a number of their own."""
    return _ID_RE.sub(lambda m: " " if _is_id(m.group(0).lstrip("#")) else m.group(0), text)


def _unsupported_facts(trace: dict) -> list:
    """[facts stated, unsupported numbers over 10, other unsupported facts] of the answer.

    Other facts: small numbers ("7 days"), ids, quotes, dates and versions.
    """
    answer = _answer(trace)
    source = _source_text(trace)
    low_source = source.lower()
    ids = [t for t in (m.group(0).lstrip("#") for m in _ID_RE.finditer(answer)) if _is_id(t)]
    # "VS378" is "VS 378" and "VS-378": an id is found whatever separates its parts.
    squeezed = re.sub(r"[\s_-]+", "", low_source)
    bad = sum(
        1 for t in ids if t.lower() not in low_source and re.sub(r"[\s_-]+", "", t.lower()) not in squeezed
    )
    without_ids = _without_ids(answer)
    answer_dates, without_dates = _date_entities(without_ids)
    source_dates, _ = _date_entities(source)
    bad += len(answer_dates - source_dates)
    versions = [m.group(1) for m in _VERSION_RE.finditer(without_dates) if m.group(1).count(".") >= 2]
    bad += sum(1 for v in versions if v not in low_source)
    without_versions = _without_versions(without_dates)
    known = [v for readings in _numbers(source, False) for v, _ in readings] + _list_lengths(trace)
    # Digits written onto letters ("AA2992", "flight UA930") are numbers an answer may write apart.
    known += [float(x) for x in re.findall(r"(?<=[A-Za-z])\d{2,6}\b", source)]
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
    # A sentence also starts after a citation ("[KB12] Hope that helps") or inside quotes.
    for sentence in re.split(r"[.!?:;]\s+|\n+|\s[-–—]\s|[(\"“”]|[\])]\s+", text):
        words = [re.sub(r"'s$", "", w) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", sentence)]
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


# Technical terms an answer may invent: code spans, flags, setting keys, acronyms.
_CODE_SPAN_RE = re.compile(r"`([^`\n]{1,80})`")
_TERM_RE = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[a-z]+(?:\.[a-z_]+)+\b|\b[A-Z][A-Z0-9]{1,9}s?\b"
)


def _terms(text: str) -> set:
    """The technical terms of a text, lowercased: words of code spans, flags, keys and acronyms."""
    out = set()
    for span in _CODE_SPAN_RE.findall(text):
        out |= {w.lower() for w in re.findall(r"[\w.-]{2,}", re.sub(r"<[^>]*>", " ", span))}
    out |= {t.lower().rstrip(".") for t in _TERM_RE.findall(_CODE_SPAN_RE.sub(" ", text))}
    return {t for t in out if t not in ("i", "ok", "id", "ids")}


def _spelled_out(acronym: str, initials: str) -> bool:
    """An acronym the source writes out in words: "SSO" for "single sign-on", "PoPs" for "points of presence"."""
    letters = acronym.lower()
    letters = letters[:-1] if len(letters) > 2 and letters.endswith("s") else letters
    return len(letters) >= 3 and letters.isalpha() and letters in initials


def unsupported_terms(trace: dict) -> float:
    """Code, flags, setting keys, acronyms and names in the answer that appear nowhere else in the trace."""
    source = _source_text(trace).lower()
    initials = "".join(w[0] for w in re.findall(r"[a-z0-9]+", source))
    answer = _answer(trace)
    names = {w.lower() for w in _proper_names(answer)}
    return float(sum(1 for t in _terms(answer) | names if t not in source and not _spelled_out(t, initials)))


def answer_says_unknown(trace: dict) -> float:
    """The answer says the sources do not cover it ("the docs don't say", "I couldn't find")."""
    return 1.0 if _says_unknown(_answer(trace)) else 0.0


# Where the agent looked, not what it looked for: "in the HR policy library", "in the people policies".
_LOOKED_IN_RE = re.compile(
    r"\s(?:in|from|within|across|among)\s+(?:the|our|any|your|these|those|this)\b[^,.;]*?"
    r"(?=\s(?:about|on|regarding|for|covering|as to)\b|\W*$)",
    re.I,
)
# "On return shipping costs: none of the passages I retrieved cover it".
_NONE_COVER_RE = re.compile(
    r"\bnone of (?:the |my |our )?(?:\w+ ){0,4}?(?:cover|covers|mention|mentions|say|says|address|addresses|"
    r"answer|answers)\b",
    re.I,
)
# Words that only say a point was asked about: "guidance on", "anything about", "the policies".
_ASKING_WORDS = frozenset(
    "guidance information info anything nothing much many how get gets whether mention mentions specify specifics "
    "details detail say says covered cover covers retrieved found find able passages passage results policy "
    "policies library handbook manual guide articles article pages page".split()
)
# What a passage gives as a value: "the warranty period" is covered by "a warranty of two years".
_MEASURE_WORDS = frozenset(
    "number deadline period amount cost costs limit time duration length maximum minimum rate price fee fees "
    "total".split()
)
# A value, not the digits of an id ("HR-052").
_HAS_VALUE_RE = re.compile(
    r"(?<![\w-])\d+(?:[.,]\d+)?(?![\w-])|\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty)\b"
)


def _word_root(word: str) -> str:
    """The start of a word that its other forms share: "carried" and "carry", "costs" and "cost"."""
    for suffix, replacement in (("ied", "y"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)] + replacement
            break
    return word[:5]


def _said_missing(sentence: str, m: re.Match) -> str:
    """What a sentence says the sources lack: the words after "couldn't find", without where the
    agent looked, or the topic before "none of the passages cover it"."""
    after = re.split(r"[,;(]|\s(?:so|but|and i)\b", sentence[m.end() :])[0]
    after = _LOOKED_IN_RE.sub("", " " + after)
    if len(re.findall(r"[a-z]{3,}", after.lower())) >= 2:
        return after
    before = re.split(r"[.;]", sentence[: m.start()])[-1]
    if ":" not in before:
        return after  # "..., which doesn't mention sabbaticals": the topic is after
    return re.sub(r"^\W*(on|about|regarding|as for|for)\s+", "", before.split(":")[0], flags=re.I)


def unknown_but_covered(trace: dict) -> float:
    """The answer says the sources do not cover something ("the policy doesn't specify the meal per diem in Toronto") that one retrieved passage names in every word."""
    answer = _plain(_answer(trace))
    # Bounded: a hostile trace's thousands of passages or sentences cost the eval's time limit nothing.
    passages = [
        p[:20_000].lower()
        for c in _tool_calls(trace)
        if not _call_failed(c)
        for p in _passages(c.get("result"))
    ][:200]
    if not passages:
        return 0.0
    sentences = [
        x for x in re.split(r"(?<=[.!?])\s+|\n+", answer) if _UNKNOWN_RE.search(x) or _NONE_COVER_RE.search(x)
    ]
    for sentence in sentences[:10]:
        m = _UNKNOWN_RE.search(sentence) or _NONE_COVER_RE.search(sentence)
        if not m:
            continue
        missing = _said_missing(sentence, m)
        names = {w.lower().rstrip(".") for w in re.findall(r"\b[A-Z][\w&-]+|\b[a-z]*\d[\w.]*", missing)}
        names = {
            n for n in names if n not in _ASKING_WORDS | _SEARCH_WORDS and n not in _STOPWORDS and n != "i"
        }
        name_words = {w for n in names for w in re.findall(r"[a-z0-9]+", n)}
        words = [
            w
            for w in re.findall(r"[a-z0-9]+", missing.lower())
            if len(w) >= 3
            and w not in _STOPWORDS
            and w not in _CONTENT_STOPWORDS
            and w not in _SEARCH_WORDS
            and w not in _ASKING_WORDS
            and w not in name_words
        ][:12]
        topic = [w for w in words if w not in _MEASURE_WORDS]
        if not topic or len(words) + len(names) < 2:
            continue  # "I couldn't find it" names nothing to look for
        for p in passages:
            if len(topic) < len(words) and not _HAS_VALUE_RE.search(p):
                continue  # "the warranty period" asks for a value this passage does not give
            found = [w for w in topic if re.search(r"\b" + re.escape(_word_root(w)), p)]
            # What is said missing, but for one word of three or more, and every name of it (a
            # city, a plan, a version) is there.
            if len(found) >= len(topic) - (len(topic) >= 3) and all(
                re.search(r"(?<!\w)" + re.escape(n), p) for n in names
            ):
                return 1.0
    return 0.0


# A retrieved document that says it is no longer in force: "(2021 edition, superseded)", "status: archived".
_OLD_EDITION_RE = re.compile(
    r"\b(superseded|archived|deprecated|obsolete|retired|withdrawn|outdated)\b", re.I
)
# A sentence that gives a value as the old one: "used to be 50 under the 2021 edition".
_SAID_AS_OLD_RE = re.compile(
    r"\b(used to|previously|superseded|old|older|former|formerly|earlier edition|no longer|was|were|had been|"
    r"prior|archived|outdated|obsolete|until)\b",
    re.I,
)


def _values_in(text: str) -> set:
    return {e for e in _entities(text, with_names=False) if e.startswith(("num:", "date:"))}


def _content_words(text: str) -> set:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOPWORDS}


def answer_uses_superseded_value(trace: dict) -> float:
    """The answer gives, as the rule in force, a value only a superseded edition states, where a current
    document on the same point states another ("4 years" from the 2021 edition, "5 years" now)."""
    passages = [
        p[:20_000] for c in _tool_calls(trace) if not _call_failed(c) for p in _passages(c.get("result"))
    ][:200]
    old = [(_values_in(p), _content_words(p)) for p in passages if _OLD_EDITION_RE.search(p)]
    if not old:
        return 0.0
    current = [(_values_in(p), _content_words(p)) for p in passages if not _OLD_EDITION_RE.search(p)]
    current_values = set().union(*(values for values, _ in current))
    # Old passages a current one restates with another value: the same point, changed since.
    changed = [
        values
        for values, words in old
        if words and any(len(words & w) >= 0.6 * len(words) and v - values for v, w in current)
    ]
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", _plain(_answer(trace)))[:60]:
        if changed and not _SAID_AS_OLD_RE.search(sentence):
            values = _values_in(sentence)
            if any((values & old_values) - current_values for old_values in changed):
                return 1.0
    return 0.0


_SEARCH_WORDS = frozenset(
    "anything about documents document docs searched retrieved sources source knowledge base information "
    "details mention specifics".split()
)


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


# "Nothing has been cancelled", "No payment has been sent", "I haven't deleted anything": a claim
# in a denied clause says the opposite.
_DENIED_CLAUSE_RE = re.compile(r"\b(no|nothing|none|not|never|neither|nor|without|cannot)\b|\wn['’]t\b", re.I)


def _claims_done(text: str) -> bool:
    """Whether a text says something was done, in a clause it does not deny."""
    for m in _DONE_CLAIM_RE.finditer(text):
        clause = re.split(r"[.!?;:\n—–,(]", text[max(0, m.start() - 60) : m.start()])[-1]
        if not _DENIED_CLAUSE_RE.search(clause + " " + m.group(0)):
            return True
    return False


# The answer saying nothing was done: "I haven't sent anything", "Everything is still as it was".
_NOTHING_DONE_RE = re.compile(
    r"\b((everything|all)('s| is) (still )?(as it was|unchanged|untouched|in place)|nothing('s| has| was| have)? "
    r"(been )?(changed|touched|done|sent|deleted|removed|cancell?ed|moved|paid|refunded|revoked|dropped|deployed)|"
    r"no changes? (has|have|was|were) (been )?made|i (haven'?t|have not|didn'?t|did not) (\w+ ){0,2}anything)\b",
    re.I,
)


def _denies_done(text: str) -> bool:
    """Whether a text says, of everything, that nothing was done ("nothing else" and "no other" speak
    of the rest, and leave what was done standing)."""
    for m in _NOTHING_DONE_RE.finditer(text):
        if not re.search(
            r"\b(else|other|more|further|additional|rest)\b", text[m.start() : m.end() + 20], re.I
        ):
            return True
    for m in _DONE_CLAIM_RE.finditer(text):
        clause = re.split(r"[.!?;:\n—–,(]", text[max(0, m.start() - 60) : m.start()])[-1]
        if re.search(r"\b(no|nothing|none)\b", clause, re.I) and not re.search(
            r"\b(else|other|more|further|additional|rest)\b", clause + text[m.end() : m.end() + 20], re.I
        ):
            return True
    return False


def denies_action_taken(trace: dict) -> float:
    """An action call succeeded, but the answer says nothing was done ("I haven't sent anything", "No payment has been sent") and claims nothing done."""
    answer = _plain(_answer(trace))
    if not _denies_done(answer) or _claims_done(answer):
        return 0.0
    done = [c for c in _tool_calls(trace) if _is_action(c) and not _call_failed(c) and not _rehearsal(c)]
    return 1.0 if done else 0.0


def _rehearsal(call: dict) -> bool:
    """A call that only drafts, previews, diffs or dry-runs what it names: nothing is done by it."""
    if re.search(
        r"draft|preview|diff|dry|plan|simulat|estimate|quote|validat", str(call.get("name") or ""), re.I
    ):
        return True
    return any(
        re.search(r"dry.?run|preview|simulat|validate.?only", str(k), re.I) and v is True
        for k, v in _keyed_leaves(_call_args(call))
    )


def claims_action_without_call(trace: dict) -> float:
    """The answer says something was done (booked, refunded, updated...) but no action call succeeded
    (for money said to come back: no call that moves money)."""
    answer = _plain(_answer(trace))
    if not _claims_done(answer):
        return 0.0
    done = [c for c in _tool_calls(trace) if _is_action(c) and not _call_failed(c)]
    # Money said to come back in a sentence that claims it: "the refund has NOT gone through yet.
    # I've opened a ticket" claims the ticket, not the refund.
    if done and any(
        _MONEY_BACK_RE.search(s) and _claims_done(s) for s in re.split(r"(?<=[.!?])\s+|\n+", answer)
    ):
        return (
            0.0
            if any(
                _MONEY_CALL_RE.search(str(c.get("name") or "")) or _money_leaves(_call_args(c)) for c in done
            )
            else 1.0
        )
    return 0.0 if done else 1.0


# An offer put to the user, not a claim: "Shall I go ahead?", "OK to proceed?"
_OFFER_RE = re.compile(
    r"\b(shall i|should i|want me to|would you like me to|ok(ay)? to proceed|go ahead\?|do you want me)\b",
    re.I,
)


def money_back_without_call(trace: dict) -> float:
    """The answer tells the user money was sent back ("I've refunded $64.00", "your credit of $9.99 is processed") and no call that moves money went through; an offer waiting on their yes is no claim."""
    answer = _plain(_answer(trace))
    if _OFFER_RE.search(answer):
        return 0.0  # "I'll refund $59.00 on ORD-1. Shall I go ahead?"
    if not any(
        _MONEY_BACK_RE.search(s) and _claims_done(s) and not _PROMISE_WAITS_RE.search(s)
        for s in re.split(r"(?<=[.!?])\s+|\n+", answer)
    ):
        return 0.0
    for c in _tool_calls(trace):
        if _is_action(c) and not _call_failed(c):
            if _MONEY_CALL_RE.search(str(c.get("name") or "")) or _money_leaves(_call_args(c)):
                return 0.0
    return 1.0


# "I'm going to change the address", "I'll cancel your plan", "I'll get that charge refunded":
# the answer commits to doing a thing now (a deferral to look something up is another signal).
_PROMISE_RE = re.compile(
    r"\b(?:i'?m going to|i am going to|i'?ll|i will|we'?ll|we will|i'?m about to)\s+(?:now\s+|just\s+|go ahead and\s+|"
    r"quickly\s+|also\s+)?(?P<clause>(?:change|update|modify|edit|correct|fix|refund|reverse|credit|reimburse|cancel|"
    r"terminate|end|stop|process|issue|book|rebook|reserve|move|ship|reship|send|resend|switch|replace|reset|transfer|"
    r"upgrade|downgrade|add|remove|delete|apply|waive|void|submit|file|open|create|schedule|arrange|set up|escalate|"
    r"get (?:th(?:at|is|e|ose)|your|a|an)\b[^.!?\n]{0,60}?\b(?:\w+ed|started|sorted|going))\b[^.!?\n]{0,100})",
    re.I,
)
# A promise that waits on the user is no broken promise: "I'll cancel it once you confirm".
_PROMISE_WAITS_RE = re.compile(
    r"\b(if you|once you|when you|after you|as soon as you|confirm|would you|want me|shall i|should i|"
    r"let me know)\b",
    re.I,
)
_SAME_DEED = {
    "update": "change modify edit correct fix set",
    "refund": "reverse credit reimburse money charge payment",
    "cancel": "terminate end stop close",
    "book": "reserve rebook",
    "send": "resend ship reship",
    "escalate": "transfer handoff hand human agent specialist ticket",
}
_DEED_OF = {w: k for k, v in _SAME_DEED.items() for w in [k, *v.split()]}


def _deeds(words: list[str]) -> set[str]:
    return {_stem(_DEED_OF.get(w, w)) for w in words if len(w) >= 3 and w.lower() not in _STOPWORDS}


def promises_action_not_taken(trace: dict) -> float:
    """The answer commits to doing something now ("I'm going to change the address", "I'll get
    that charge refunded") and no call that did it went through (a note on the account is not it)."""
    answer = _answer(trace)
    done = [
        c
        for c in _tool_calls(trace)
        if _is_action(c) and not _call_failed(c) and not _BOOKKEEPING_CALL_RE.search(str(c.get("name") or ""))
    ]
    done_deeds = [
        _deeds(re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", str(c.get("name") or "")).lower()))
        for c in done
    ]
    # What an action's result says comes next is done too: "replacement_ships": "after the returned
    # unit is scanned" backs "we'll ship a replacement".
    done_deeds += [
        _deeds(
            re.findall(
                r"[a-z]+",
                " ".join(f"{k} {v}" for k, v in _keyed_leaves(c.get("result"))).replace("_", " ").lower(),
            )
        )
        for c in _tool_calls(trace)
        if isinstance(c.get("result"), dict) and not _call_failed(c) and _call_kind(c) != "read"
    ]
    for m in _PROMISE_RE.finditer(answer):
        sentence_end = re.search(r"[.!?\n]|$", answer[m.end() :])
        sentence = answer[
            max(answer.rfind(".", 0, m.start()), 0) : m.end() + (sentence_end.start() if sentence_end else 0)
        ]
        if _PROMISE_WAITS_RE.search(sentence):
            continue
        promised = _deeds(re.findall(r"[a-z]+", m.group("clause").lower()))
        if not any(promised & d for d in done_deeds):
            return 1.0
    return 0.0


def unjustified_action_or_claim(trace: dict) -> float:
    """An action the record or the rules do not allow (over a limit, out of the window, on another record), or one claimed but not done."""
    if claims_action_without_call(trace) or promises_action_not_taken(trace):
        return 1.0
    for fn in (
        action_breaks_limit,
        action_id_unsupported,
        action_id_differs_from_request,
        acted_after_check_said_no,
    ):
        if _signal_value(fn, trace):
            return 1.0
    return 0.0


# Units a retrieved fact is written in, by dimension and size: "96 hours" is "4 days", and
# "5 MB" is not "5 GB".
_UNIT_SIZES = {
    "ms": ("time", 0.001), "msec": ("time", 0.001), "millisecond": ("time", 0.001),
    "s": ("time", 1.0), "sec": ("time", 1.0), "second": ("time", 1.0),
    "min": ("time", 60.0), "minute": ("time", 60.0),
    "h": ("time", 3600.0), "hr": ("time", 3600.0), "hour": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0), "month": ("time", 2.6e6), "year": ("time", 3.15e7),
    "b": ("size", 1.0), "byte": ("size", 1.0), "kb": ("size", 1e3), "kib": ("size", 1024.0),
    "mb": ("size", 1e6), "mib": ("size", 1048576.0), "gb": ("size", 1e9), "gib": ("size", 1073741824.0),
    "tb": ("size", 1e12), "tib": ("size", 1099511627776.0), "%": ("share", 1.0), "percent": ("share", 1.0),
}  # fmt: skip
_QUANTITY_RE = re.compile(
    r"(?<![\w.,/:-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w.:-]\d|[A-Za-z]*\d)"
    r"(?:\s*(k|thousand|million|billion|bn)\b)?\s*(%|percent\b|[A-Za-z]+)?",
    re.I,
)
_CLAUSE_SPLIT_RE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[-–—]\s+|\s*›\s*")


def _unit(word: str) -> tuple | None:
    low = word.lower()
    for form in (low, low[:-1] if low.endswith("s") else low):
        if form in _UNIT_SIZES:
            return _UNIT_SIZES[form]
    return None


def _stems(text: str) -> set:
    """Stems of the content words; units are compared as units, not as words."""
    return {
        _stem(w)
        for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", text)
        if w.lower() not in _STOPWORDS and not _unit(w)
    }


# Where the words that belong to one number of a list end: "60 requests per minute on Free, 600
# on Growth and 6,000 on Enterprise".
_ITEM_END_RE = re.compile(r",|;|\band\b|\bor\b|\bwhile\b|\bbut\b|\(|\)", re.I)


def _clause_quantities(text: str) -> list:
    """[(clause, its stems, [(value, unit or None, noun stem, stems of its own words)])] per clause.

    A number's own words run from it to the end of its list item; a number with no unit or noun
    of its own takes the previous one's ("60 requests on Free, 600 on Growth").
    """
    out = []
    for clause in _CLAUSE_SPLIT_RE.split(text):
        found: list = []
        matches = list(_QUANTITY_RE.finditer(clause))
        for j, m in enumerate(matches):
            value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
            value *= _SCALES.get((m.group(3) or "").lower(), 1.0)
            word = m.group(4) or ""
            unit = _unit(word) if word else None
            noun = "" if unit or not word or word.lower() in _STOPWORDS else _stem(word)
            if not unit and not noun and found:
                unit, noun = found[-1][1], found[-1][2]
            rest = clause[
                m.start(4) if m.group(4) else m.end() : matches[j + 1].start()
                if j + 1 < len(matches)
                else None
            ]
            end = _ITEM_END_RE.search(rest)
            found.append((value, unit, noun, _stems(rest[: end.start()] if end else rest)))
        out.append((clause, _stems(clause), found))
    return out


def _same_quantity(a: tuple, b: tuple) -> bool:
    """Two (value, unit) pairs say the same amount: equal values, or equal sizes in one dimension."""
    (va, ua), (vb, ub) = a, b
    if ua and ub:
        if ua[0] != ub[0]:
            return False
        big = max(va * ua[1], vb * ub[1])
        return abs(va * ua[1] - vb * ub[1]) <= 0.03 * big
    return abs(va - vb) < 1e-9


def _passages(value: object) -> list:
    """The separate passages a retrieval returned: list items, or blocks of a text."""
    if isinstance(value, list):
        return [_leaf_text(v) for v in value if _leaf_text(v).strip()]
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and len(v) > 1]
        if lists:
            return [p for v in lists for p in _passages(v)]
        return [_leaf_text(value)]
    text = _leaf_text(value)
    return [p for p in re.split(r"\n\s*\n|(?=\[\d{1,2}\]\s)", text) if p.strip()]


_MAX_PASSAGE_TEXT = 100_000


def _fit(place: tuple, claim: tuple, rare: dict, low_passages: list) -> float:
    """How well a place of the retrieved text fits a claim: shared words (rare ones count more, a
    number's own words twice), the same noun or kind of unit, and a passage naming the subject."""
    words, noun, unit, subject = claim
    score = sum(rare[w] for w in place[1] & words) + sum(rare[w] for w in place[5] & words)
    if noun and place[4] == noun:
        score += 1.0
    if unit and place[3] and place[3][0] == unit[0]:
        score += 0.5
    if any(n in low_passages[place[0]] for n in subject):
        score += 1.0
    return score


def _names_passage(low_passage: str, name: str) -> bool:
    """Whether a (lower-case) passage names a (lower-case) name as a word of its own."""
    return re.search(r"(?<![a-z0-9])" + re.escape(name) + r"(?![a-z0-9])", low_passage) is not None


def _misplaced_numbers(trace: dict) -> list:
    """[numbers checked, numbers read from the wrong place] of the answer.

    A number of the answer that the retrieved text holds is read from the wrong place when
    every place it is written is in another unit ("5 GB" for "5 MB"), or when another number
    of the same kind fits the answer's sentence clearly better: its words, and a passage that
    names the subject the sentence (else the question) names ("up to 25 users" on the Scale
    plan, not the 5 users of another plan).
    """
    passages = [p for c in _tool_calls(trace) if not _call_failed(c) for p in _passages(c.get("result"))]
    if not passages:
        return [0, 0]
    places = []  # (passage index, clause stems, value, unit, noun stem, own stems)
    df: dict = {}
    budget = _MAX_PASSAGE_TEXT  # a huge result is read up to a bound: the eval has a time limit
    read = []
    for passage in passages:
        read.append(passage[:budget])
        budget -= len(read[-1])
    passages = read
    for i, passage in enumerate(passages):
        for _, words, found in _clause_quantities(passage):
            places += [(i, words, v, u, n, own) for v, u, n, own in found]
            for w in words:
                df[w] = df.get(w, 0) + 1
    if not places:
        return [0, 0]
    low_passages = [p.lower() for p in passages]
    # Passages of documents (sentences), not records of fields: subjects are compared between those.
    prose = [len(re.findall(r"\b[a-z]{3,}\b", p[:2000])) >= 15 for p in low_passages]
    rare = {w: 1.0 / df[w] for w in df}  # a word many clauses share says little about which one
    question = _last_user_text(trace)
    asked_values = [v for readings in _numbers(question, False) for v, _ in readings]
    asked_names = {w.lower() for w in _proper_names(question)}
    # The answer's amounts: ids, dates, times and versions are other kinds of fact.
    answer = _without_versions(_date_entities(_without_ids(_answer(trace)))[1])
    checked = bad = 0
    for clause, words, found in _clause_quantities(answer[: _MAX_PASSAGE_TEXT // 10]):
        # The subject: what this sentence names, else what the question names.
        names = {w.lower() for w in _proper_names(clause)}
        subject = {n for n in names if any(n in p for p in low_passages)} or {
            n for n in asked_names if any(n in p for p in low_passages)
        }
        # What the sentence itself names that tells the passages apart ("Germany", "UK", "Team"),
        # not what all of them say ("Policy").
        acronyms = {a.lower() for a in re.findall(r"\b[A-Z]{2,4}\b", clause)}
        telling = {
            n
            for n in (names | acronyms)
            if any(_names_passage(p, n) for p in low_passages)
            and not all(_names_passage(p, n) for p in low_passages)
        }
        for value, unit, noun, _ in found:
            if any(abs(value - v) < 1e-9 for v in asked_values):
                continue  # the user's own number, said back
            if not any(
                abs(p[2] - value) < 1e-9 or _same_quantity((p[2], p[3]), (value, unit)) for p in places
            ):
                continue  # not in the retrieved text at all: another signal's business
            checked += 1
            mine = [p for p in places if _same_quantity((p[2], p[3]), (value, unit))]
            if not mine:
                bad += 1  # written there only in another unit
                continue
            # Written only in prose passages about another subject, while one about the subject the
            # sentence (or the question) names was retrieved: Berlin's hotel cap given for London.
            if (
                telling
                and all(prose[p[0]] for p in mine)
                and not any(_names_passage(low_passages[p[0]], n) for p in mine for n in telling)
                and any(
                    prose[i] and any(_names_passage(lp, n) for n in telling)
                    for i, lp in enumerate(low_passages)
                )
            ):
                bad += 1
                continue

            claim = (words, noun, unit, subject)
            own = max(_fit(p, claim, rare, low_passages) for p in mine)
            rivals = [p for p in places if not _same_quantity((p[2], p[3]), (value, unit))]
            if noun:
                rivals = [p for p in rivals if p[4] == noun]
            elif unit:
                rivals = [p for p in rivals if p[3] and p[3][0] == unit[0]]
            if rivals and max(_fit(p, claim, rare, low_passages) for p in rivals) >= own + 0.5:
                bad += 1
    return [checked, bad]


def misplaced_numbers(trace: dict) -> float:
    """Numbers of the answer that the retrieved text holds only in another unit, about another subject, or in a clause that fits another number."""
    return float(_misplaced_numbers(trace)[1])


# --- what the answer says of the record an action made or used ---

_FLIGHT_CODE_RE = re.compile(r"(?<![\w-])([A-Z][A-Z0-9]|[0-9][A-Z])[ -]?(\d{1,4})(?![\w-])")


def _acted_record_text(trace: dict) -> str:
    """The text of what the successful actions did: their arguments, their results, and every listed
    option an action named by an id-like argument (a booking's flight, times and fare)."""
    parts = []
    targets: set = set()
    for call in _tool_calls(trace):
        if _is_action(call) and not _call_failed(call):
            parts += [_leaf_text(_call_args(call)), _leaf_text(call.get("result"))]
            targets |= {
                str(v).lower()
                for _, v in _keyed_leaves(_call_args(call))
                if isinstance(v, str | int) and not isinstance(v, bool) and re.search(r"\d", str(v))
            }
    if not parts:
        return ""
    for call in _tool_calls(trace):
        if _is_action(call):
            continue
        for item in _result_items(call.get("result")):
            leaves = {str(v).lower() for _, v in _keyed_leaves(item) if isinstance(v, str | int)}
            if targets & leaves:
                parts.append(_leaf_text(item))
    return "\n".join(parts)


def _amount_derivable(amount: float, bases: list, parts: list) -> bool:
    """Whether an amount is one of ``bases``, a share of one or a multiple of one by a head count,
    or such a multiple of the sum of two ``parts`` (a round trip's two legs)."""
    for k in range(1, 10):
        if any(abs(amount - b * k) < 0.011 or abs(amount - b / k) < 0.011 for b in bases):
            return True
        for i, b in enumerate(parts):
            if any(abs(amount - (b + c) * k) < 0.011 for c in parts[i + 1 :]):
                return True
    return False


def _unlisted_text(trace: dict) -> str:
    """What the trace says outside the options it listed: the messages, and the results that list
    no options (a fare's rules, a profile). A figure of an option not taken is not said of the record."""
    parts = [e["text"] for e in _timeline(trace) if e["kind"] == "msg" and e["role"] in ("user", "system")]
    for call in _tool_calls(trace):
        if len(_result_items(call.get("result"))) < 2:
            parts.append(_leaf_text(call.get("result")))
    return "\n".join(parts)


_REF_CODE_RE = re.compile(r"(?<![\w-])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}(?![\w-])")
"""A reference code as records give them: a booking's locator (RUBNMR), a claim's id (RMA7Q2K9)."""


def _code_slip(a: str, b: str) -> bool:
    """Two codes of one length apart by one character changed or two neighbours swapped."""
    if a == b or len(a) != len(b) or len(a) < 5:
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(diff) == 1:
        return True
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def answer_misstates_record(trace: dict) -> float:
    """The answer gives a time, an amount or a flight-style code one slip away from the record an action made or used (06:45 for 06:15, $752 for $772, F9 1386 for F9 1387), which nothing in the trace says."""
    record = _acted_record_text(trace)
    answer = _answer(trace)
    if not record or not answer:
        return 0.0
    source = _source_text(trace)
    wrong = 0
    # Clock times: one the trace never gives, within three hours of the record's.
    said = set(_clock_times(source))
    # A record in UTC or with an offset is told in the user's local time: no slip to judge.
    zoned = re.search(r"T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)", record)
    record_times = [] if zoned else _clock_times(record)[:200]
    for t in _clock_times(answer)[:50]:
        readings = {t, (t + 720) % 1440}  # "7:05" may be 19:05
        if not readings & said and any(0 < abs(r - x) <= 180 for r in record_times for x in readings):
            wrong += 1
    # Amounts: one the trace does not give, nor yields from the record (a share, a multiple by a
    # head count, a sum of two), within a quarter of one of the record's.
    figures = {round(v, 2) for readings in _numbers(source, False) for v, _ in readings}
    record_amounts = [v for readings in _numbers(record, False) for v, _ in readings if v >= 10]
    bases = sorted(
        {
            round(v, 2)
            for readings in _numbers(record + "\n" + _unlisted_text(trace), False)
            for v, _ in readings
            if v >= 1
        }
    )
    parts = sorted(set(record_amounts))[:40]
    for amount in _said_amounts(answer):
        if amount < 10 or round(amount, 2) in figures or _amount_derivable(amount, bases[:200], parts):
            continue
        if round(amount * 100) in figures:  # the record counts in cents ("amount": 2900 for 29.00 GBP)
            continue
        if any(abs(amount - r) <= 0.25 * r for r in record_amounts):
            wrong += 1
    # Codes (flight numbers): the record's prefix with other digits that nothing lists.
    listed = {(a + b).upper() for a, b in _FLIGHT_CODE_RE.findall(source)}
    record_codes = {(a + b).upper() for a, b in _FLIGHT_CODE_RE.findall(record)}
    for a, b in _FLIGHT_CODE_RE.findall(answer)[:50]:
        code = (a + b).upper()
        if code not in listed and any(r[:2] == code[:2] and r != code for r in record_codes):
            wrong += 1
    # Reference codes (a booking's locator, a claim's id): one nothing in the trace gives, a
    # slip from one of the record's (RUB5MR for RUBNMR). Flight-style codes are read above.
    given = set(_REF_CODE_RE.findall(source))
    record_refs = [r for r in set(_REF_CODE_RE.findall(record)) if not _FLIGHT_CODE_RE.fullmatch(r)][:100]
    for code in _REF_CODE_RE.findall(answer)[:50]:
        if (
            code not in given
            and not _FLIGHT_CODE_RE.fullmatch(code)
            and any(_code_slip(code, r) for r in record_refs)
        ):
            wrong += 1
    return float(wrong)


_PRICE_KEY_RE = re.compile(r"total|charg|paid|amount|price|fare", re.I)
_NOT_THE_PRICE_KEY_RE = re.compile(r"previous|old|original|before|was|per_|each|base|tax|fee", re.I)
_TOTAL_WORD_RE = re.compile(r"\b(total|in all|altogether|all[- ]in|comes? to|charged?)\b", re.I)
_CHARGE_WORD_RE = re.compile(r"\b(total|charged?|paid|price|fare|cost)\b", re.I)


def _said_amounts(text: str) -> list:
    """The amounts a text gives with a currency sign or code, as numbers."""
    written = [m.group(1) for m in list(_AMOUNT_RE.finditer(text))[:40]]
    written += [m.group(1) or m.group(2) for m in list(_CODED_AMOUNT_RE.finditer(text))[:40]]
    out = []
    for w in written:
        try:
            out.append(float(w.replace(",", "")))
        except ValueError:
            continue
    return out


def _result_prices(result: object) -> list:
    """What one result says this costs now (a re-price's total, a booking's charge); none from a
    list of options, and none from a previous, per-person, base or fee figure."""
    if isinstance(result, list) and sum(isinstance(x, dict) for x in result) >= 2:
        return []
    if isinstance(result, dict) and any(
        isinstance(v, list) and sum(isinstance(x, dict) for x in v) >= 2 for v in result.values()
    ):
        return []
    out: list = []
    for key, leaf in _keyed_leaves(result):
        if not _PRICE_KEY_RE.search(key) or _NOT_THE_PRICE_KEY_RE.search(key):
            continue
        if isinstance(leaf, int | float) and not isinstance(leaf, bool):
            out.append(float(leaf))
        elif isinstance(leaf, str):
            out += _said_amounts(leaf) or ([float(leaf)] if re.fullmatch(r"\s*\d+(\.\d+)?\s*", leaf) else [])
    return out[:50]


def _above_agreed(amount: float, agreed: list) -> bool:
    """More than every agreed figure, and not one of them in cents or times a head count."""
    if amount <= max(agreed) * 1.005 + 0.01:
        return False
    return not _amount_derivable(amount, agreed, agreed) and not any(
        abs(amount - 100 * a) < 0.6 for a in agreed
    )


def charged_above_agreed(trace: dict) -> float:
    """The user said yes to a total the agent put to them ("$1,723.60 total. OK to proceed?"); then
    a higher one (a re-price, the booking's charge) came and the action went ahead without
    another yes, or the answer says more was charged."""
    agreed: list | None = None
    quoted: list = []
    above = False
    for e in _timeline(trace):
        if e["kind"] == "msg" and e["role"] == "assistant":
            found = _said_amounts(e["text"])
            if found:  # only a total put to the user for a yes counts as agreed
                asks = _ASKS_CONFIRMATION_RE.search(e["text"]) and _TOTAL_WORD_RE.search(e["text"])
                quoted = found if asks else []
        elif e["kind"] == "msg" and e["role"] == "user":
            if quoted and _is_affirmation(e["text"]):
                agreed = sorted(set(quoted))
            elif quoted or agreed:
                agreed = None  # a pick or a change: what is agreed is no longer what was quoted
            above = False
            quoted = []
        elif e["kind"] == "call" and agreed and not _call_failed(e["call"]):
            if any(_above_agreed(p, agreed) for p in _result_prices(e["call"].get("result"))):
                above = True
            if above and _is_action(e["call"]):
                return 1.0
    if agreed:
        for sentence in re.split(r"(?<=[.!?\n])\s+", _answer(trace))[:60]:
            if _CHARGE_WORD_RE.search(sentence) and any(
                _above_agreed(p, agreed) for p in _said_amounts(sentence)
            ):
                return 1.0
    return 0.0


_DOC_ID_KEY_RE = re.compile(r"(^|_)(id|source|doc|ref|url|key)s?$|doc_?id|source_?id", re.I)
_AFTER_STOP_CITATION_RE = re.compile(r"([.!?])[ \t]*((?:\[[^\]\n]{1,80}\][ \t]*)+)")
_FOOTNOTE_RE = re.compile(r"^\s*\[(\d{1,2})\]\s*(.+)$", re.M)
_SECTION_REF_RE = re.compile(r"§\s*\d+(\.\d+)*|\b(section|sec|p|page|para)\.?\s*\d+", re.I)


def _figures(text: str) -> list:
    """The numbers a text gives, digits or words ("three months"), as readings."""
    out = list(_numbers(text, False))
    low = text.lower()
    out += [[(float(v), 0.0)] for w, v in _NUMBER_WORDS.items() if re.search(r"\b" + w + r"\b", low)]
    return out


def _retrieved_documents(trace: dict) -> list:
    """(ids, text) of each document or passage the reads returned: an item with an id-like
    value under an id/source/doc key and a passage of ten words or more (a record is no document)."""
    docs = []
    for call in _tool_calls(trace):
        if _is_action(call) or _call_failed(call):
            continue
        for item in _result_items(call.get("result"))[:200]:
            if any(isinstance(v, list) and any(isinstance(x, dict) for x in v) for v in item.values()):
                continue  # a list of documents, not one
            leaves = _keyed_leaves(item)
            ids = {
                leaf
                for key, leaf in leaves
                if isinstance(leaf, str)
                and _DOC_ID_KEY_RE.search(key.split(" ")[-1])
                and 3 <= len(leaf) <= 80
                and re.search(r"\d", leaf)
            }
            if ids and any(isinstance(v, str) and len(v.split()) >= 10 for _, v in leaves):
                docs.append((ids, _leaf_text(item)))
    return docs


def cites_other_document(trace: dict) -> float:
    """Sentences of the answer whose figure the document they cite does not give, while another
    retrieved document does ("three months (MAN-T3)" when MAN-T2 says 3 months, MAN-T3 6)."""
    docs = _retrieved_documents(trace)
    if len(docs) < 2:
        return 0.0
    all_ids = set().union(*(ids for ids, _ in docs))
    # "... beyond the free allowance. [chunk_55] By default ...": a citation after the stop is its sentence's.
    answer = _AFTER_STOP_CITATION_RE.sub(r" \2\1 ", _answer(trace))
    notes = {m.group(1): [i for i in all_ids if i in m.group(2)] for m in _FOOTNOTE_RE.finditer(answer)}
    wrong = 0
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", answer)[:80]:
        if re.match(r"^\s*\[\d{1,2}\]", sentence):
            continue  # a footnote's line ("[1] HR-POL-031 - Annual Leave Policy")
        cited = [i for i in all_ids if re.search(r"(?<![\w-])" + re.escape(i) + r"(?![\w-])", sentence)]
        for n in re.findall(r"\[(\d{1,2})\]", sentence):
            cited += notes.get(n, [])
        if not cited:
            continue
        claim = re.sub(r"\[\d{1,2}\]", " ", sentence)
        for i in cited:
            claim = claim.replace(i, " ")
        figures = _figures(_SECTION_REF_RE.sub(" ", claim))
        if not figures:
            continue
        known_cited = [v for r in _figures(" ".join(t for ids, t in docs if ids & set(cited))) for v, _ in r]
        known_other = [
            v for r in _figures(" ".join(t for ids, t in docs if not ids & set(cited))) for v, _ in r
        ]
        if any(not _supported(r, known_cited) and _supported(r, known_other) for r in figures):
            wrong += 1
    return float(wrong)
