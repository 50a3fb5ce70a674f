"""Values named in text and tool arguments (typed entities) and numeric facts with the
precision they were written at.

Sandbox-safe on purpose: the emitter copies the functions and constants a rule needs
verbatim into the generated eval code, which may import only json, re, typing, math,
datetime and difflib. So: plain functions over plain dicts and strings, module-level
constants, no dunders, no imports beyond the standard ones and each other (names are
unique across the copied modules).
"""

import re

from agenteval.eval_generator.synthesizer._trace_access import _call_args, _leaf_text, _timeline

# --- entities: the values a user names (numbers, times, days, emails, ids, names) ---

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
}
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TIME12_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?(?![a-z])", re.I)
_TIME24_RE = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_ID_RE = re.compile(r"#?\b(?=[a-z0-9_-]*\d)(?=[a-z0-9_-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)*\b", re.I)
_NUM_RE = re.compile(r"(?<![\w.])[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOP_CAPS = frozenset(
    "i i'm i'd i've i'll a an the this that these those it it's its and but or so also oh hey hi hello "
    "thanks thank please yes no ok okay sure great perfect actually sorry hmm well wait can could would "
    "will should let's make change switch what when where which who how why is are was were do does did "
    "my me we our you your they their there here just instead also rather then now today tomorrow "
    "tonight morning evening afternoon sounds good correct right fine cool awesome nice go book set "
    "update move scratch correction never mind one two three four five six seven eight nine ten on in at for "
    "with to from by of as if since after before maybe perhaps not".split()
)


def _canon_number(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _entities(text: str, with_names: bool = True) -> set:
    """Typed values named in a text, as 'kind:value' strings (num, time, day, month, email, date, id, name)."""
    found = set()
    rest = text
    for m in _EMAIL_RE.finditer(rest):
        found.add("email:" + m.group(0).lower())
    rest = _EMAIL_RE.sub(" ", rest)
    for m in _DATE_RE.finditer(rest):
        found.add("date:" + m.group(0))
    rest = _DATE_RE.sub(" ", rest)
    for m in _TIME12_RE.finditer(rest):
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        found.add(f"time:{hour:02d}:{m.group(2) or '00'}")
    rest = _TIME12_RE.sub(" ", rest)
    for m in _TIME24_RE.finditer(rest):
        found.add(f"time:{int(m.group(1)):02d}:{m.group(2)}")
    rest = _TIME24_RE.sub(" ", rest)
    for m in _ID_RE.finditer(rest):
        token = m.group(0).lstrip("#")
        if re.search(r"[a-z]", token, re.I) and len(token) >= 4:
            found.add("id:" + token.lower())
    rest = _ID_RE.sub(lambda m: " " if len(m.group(0).lstrip("#")) >= 4 else m.group(0), rest)
    for m in _NUM_RE.finditer(rest):
        found.add("num:" + _canon_number(float(m.group(1).replace(",", "") + (m.group(2) or ""))))
    words = _WORD_RE.findall(rest)
    for w in words:
        low = w.lower()
        if low in _NUMBER_WORDS:
            found.add("num:" + str(_NUMBER_WORDS[low]))
        elif low in _DAYS:
            found.add("day:" + low)
        elif low in _MONTHS and w[0].isupper():
            found.add("month:" + low)
        elif with_names and w[0].isupper() and low not in _STOP_CAPS:
            found.add("name:" + low)
    return found


def _value_entities(value: object) -> set:
    """Entities of a tool-argument value; whole string values count as names too."""
    found: set[str] = set()
    if isinstance(value, bool) or value is None:
        return found
    if isinstance(value, int | float):
        found.add("num:" + _canon_number(float(value)))
        return found
    if isinstance(value, dict):
        for v in value.values():
            found |= _value_entities(v)
        return found
    if isinstance(value, list | tuple):
        for v in value:
            found |= _value_entities(v)
        return found
    text = str(value)
    found |= _entities(text, with_names=False)
    for w in _WORD_RE.findall(text):
        low = w.lower()
        if low in _DAYS:
            found.add("day:" + low)
        elif low in _MONTHS:
            found.add("month:" + low)
        else:
            found.add("name:" + low)
    return found


def _entity_kind(entity: str) -> str:
    return entity.partition(":")[0]


# --- numeric facts, with the precision they were written at ---

_FACT_NUM_RE = re.compile(
    r"(?<![\w.])([$€£])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent\b|thousand\b|million\b|billion\b|"
    r"trillion\b|bn\b)?",
    re.I,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}


def _numbers(text: str, skip_small: bool) -> list:
    """Each number as a list of readings (value, tolerance); "12%" reads as 12 and as 0.12.

    The tolerance is half a unit of the last written digit, so "1.2 million" covers
    1,150,000 to 1,250,000. With skip_small, bare integers up to 10 are left out: prose
    uses them ("2 options").
    """
    out = []
    for m in _FACT_NUM_RE.finditer(text):
        whole = m.group(2).replace(",", "")
        decimals = m.group(3) or ""
        suffix = (m.group(4) or "").lower()
        value = float(whole + decimals)
        if skip_small and not decimals and not suffix and not m.group(1) and value <= 10:
            continue
        scale = _SCALES.get(suffix, 1.0)
        tolerance = 0.5 * (10.0 ** -(len(decimals) - 1 if decimals else 0)) * scale
        readings = [(value * scale, tolerance)]
        if suffix in ("%", "percent"):
            readings.append((value / 100.0, tolerance / 100.0))
        out.append(readings)
    return out


def _supported(readings: list, sources: list) -> bool:
    """Whether some reading of a number matches a known value (sign ignored: "down 1.2%")."""
    for value, tolerance in readings:
        for known in sources:
            if abs(abs(value) - abs(known)) <= tolerance + 1e-9 * max(1.0, abs(known)):
                return True
    return False


def _source_text(trace: dict) -> str:
    """Everything the answer may rely on: user and system messages, tool arguments and results."""
    parts = []
    for e in _timeline(trace):
        if e["kind"] == "msg" and e["role"] in ("user", "system", "tool"):
            parts.append(e["text"])
        elif e["kind"] == "call":
            parts.append(_leaf_text(_call_args(e["call"])))
            parts.append(_leaf_text(e["call"].get("result")))
    return "\n".join(parts)
