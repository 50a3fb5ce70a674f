"""Values named in text and tool arguments (typed entities in one canonical form), and numeric
facts with the precision they were written at.

Sandbox-safe on purpose: the emitter copies the functions and constants a rule needs
verbatim into the generated eval code, which may import only json, re, typing, math,
datetime and difflib. So: plain functions over plain dicts and strings, module-level
constants, no dunders, no imports beyond the standard ones and each other (names are
unique across the copied modules).
"""

import re
import typing

from agenteval.eval_generator.synthesizer._trace_access import _call_args, _leaf_text, _timeline

# --- entities: the values a user names (numbers, dates, times, days, emails, ids, words) ---

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
_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
_ISO_DATETIME_RE = re.compile(
    r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
_DAY_MONTH_RE = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r"(?:,?\s+(\d{4}))?\b", re.I
)
_MONTH_DAY_RE = re.compile(r"\b" + _MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?", re.I)
_SLASH_DATE_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
_TIME12_RE = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\.?(?![a-z])", re.I)
_TIME24_RE = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?::\d{2})?\b")
_NOON_RE = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_HOUR_WORDS = "one two three four five six seven eight nine ten eleven twelve".split()
_CLOCK_WORDS_RE = re.compile(
    r"\b(?:(half|quarter)\s+(past|to|after)\s+)?(\d{1,2}|" + "|".join(_HOUR_WORDS) + r")"
    r"(\s*o'?\s?clock)?(?:\s+(in the (?:morning|afternoon|evening)|at night|tonight))?(?![\w:])",
    re.I,
)
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
    "with to from by of as if since after before maybe perhaps not done all here's i've".split()
)
# Words that carry no value of their own: function words, fillers, and the verbs of asking and changing.
_STOPWORDS = frozenset(
    "a an the and or but if then else of to in on at for from by with about as into onto over under "
    "is are was were be been being am do does did done have has had having will would can could shall "
    "should may might must i me my mine we us our ours you your yours he him his she her it its they them "
    "their this that these those there here what which who whom whose when where why how all any both "
    "each few more most other some such no nor not only own same so than too very just also please "
    "thanks thank hi hey hello ok okay yes yeah sure actually instead rather change changed switch make "
    "let's lets let want wanted need needed like would prefer go going get got one ones thing things "
    "really now then still again wait sorry hmm well oh mind second thought plan plans after all "
    "something somewhere someone able know think see look looking find help can't don't i'm i'd i'll "
    "it's that's what's there's you're we're they're i've option options maybe perhaps new old "
    "update updated use using set per max maximum min minimum least most under below above over less "
    "budget limit cap around about near spend afford mean meant decided decide realized realize forgot "
    "remember choose pick try keep book order buy reserve hold works better fine though anyway guess "
    "feel".split()
)


def _canon_number(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _month_number(word: str) -> int:
    low = word.lower().rstrip(".")[:3]
    for i, name in enumerate(_MONTHS):
        if name[:3] == low:
            return i + 1
    return 0


def _day_number(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a calendar date (the civil-from-days inverse)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil(n: int) -> tuple:
    """(year, month, day) of a day number (days since 1970-01-01): the inverse of _day_number."""
    n += 719468
    era = n // 146097
    doe = n - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


_REL_NUM = (
    r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|twenty|thirty)"
)
_RELATIVE_RE = re.compile(
    r"\b(?:(the day after tomorrow)|(tomorrow)|(today|tonight)|(?:in|within)\s+"
    + _REL_NUM
    + r"\s+(days?|weeks?)"
    r"|" + _REL_NUM + r"\s+(days?|weeks?)\s+from\s+(?:now|today)"
    r"|(this|next|coming)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.I,
)
_STAY_RE = re.compile(
    r"\b(?:for|make it|make that|change it to|extend it to|to)\s+"
    + _REL_NUM
    + r"\s+(nights?|days?|weeks?)\b",
    re.I,
)


def _count_word(word: str) -> int:
    low = word.lower()
    if low.isdigit():
        return int(low)
    return 1 if low in ("a", "an") else _NUMBER_WORDS.get(low, 0)


def _resolved_dates(text: str, today: int | None, earlier: str = "") -> str:
    """The calendar dates a text names relative to today ("tomorrow", "in 11 days", "a week from
    today", "this Friday") and the ends of the stays it gives a length ("for 3 nights" after a
    start date in it, or in ``earlier`` turns: "make it 5 nights instead"), as ISO dates joined by
    spaces; "" when there are none or today is unknown."""
    if today is None:
        return ""
    days: list[int] = []
    for m in _RELATIVE_RE.finditer(text):
        after2, after1, now, n1, unit1, n2, unit2, which, weekday = m.groups()
        if after2:
            days.append(today + 2)
        elif after1:
            days.append(today + 1)
        elif now:
            days.append(today)
        elif n1 or n2:
            count = _count_word(n1 or n2)
            unit = (unit1 or unit2).lower()
            days.append(today + count * (7 if unit.startswith("week") else 1))
        elif weekday:
            ahead = (_DAYS.index(weekday.lower()) - (today + 3) % 7) % 7
            days.append(today + ahead + (7 if which.lower() == "next" and ahead == 0 else 0))
    stay = _STAY_RE.search(text)
    if stay:
        length = _count_word(stay.group(1)) * (7 if stay.group(2).lower().startswith("week") else 1)
        year = _civil(today)[0]
        starts = list(days)
        for key in _date_entities(text + "\n" + earlier)[0]:
            if key.startswith("date:"):
                month, day = int(key[5:7]), int(key[8:10])
                start = _day_number(year, month, day)
                starts.append(start if start >= today - 60 else _day_number(year + 1, month, day))
        days += [start + length for start in starts if length]
    return " ".join("{:04d}-{:02d}-{:02d}".format(*_civil(d)) for d in sorted(set(days)))


# "May 2-5", "March 19 to 22", "2-5 May": a span of days in one month.
_SPAN_RE = re.compile(
    r"\b" + _MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\s*(?:-|–|—|to|through|thru|until|till)\s*"
    r"(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:[:.]\d|am\b|pm\b|h\b))"
    r"|\b(\d{1,2})(?:st|nd|rd|th)?\s*(?:-|–|—|to|through|thru|until|till)\s*(\d{1,2})(?:st|nd|rd|th)?\s+"
    r"(?:of\s+)?" + _MONTH_RE,
    re.I,
)


def _span_dates(text: str) -> set:
    """Every day of the spans a text gives within one month, as 'date:MM-DD'."""
    out: set[str] = set()
    for m in _SPAN_RE.finditer(text):
        month_word, first, last = (m.group(1), m.group(2), m.group(3)) if m.group(1) else m.group(6, 4, 5)
        month, a, b = _month_number(month_word), int(first), int(last)
        if month and a < b <= 31:
            out.update(f"date:{month:02d}-{d:02d}" for d in range(a, b + 1))
    return out


# Departure windows: "nothing before 5 pm", "I can't leave before 3pm", "5pm or later", "after
# 15:00" (a lower bound); "before 10am", "no later than 9", "nothing starting after 4pm" (an
# upper bound); "leaving 12-5pm" (both). A bare number is no time.
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?"
_NOT_BEFORE = r"(?:nothing|not|no|never|can'?t|cannot|won'?t|don'?t want to)\s+(?:\w+\s+){0,2}?(?:before|earlier than)\s+"
_NOT_AFTER = r"(?:nothing|not|no|never|can'?t|cannot|won'?t)\s+(?:\w+\s+){0,2}?(?:after|later than)\s+"
_WINDOW_SPAN_RE = re.compile(
    r"(?:leaving|departing|between)\s+" + _CLOCK + r"\s*(?:-|–|to|and)\s*" + _CLOCK, re.I
)
_WINDOW_HIGH_NEG_RE = re.compile(_NOT_AFTER + _CLOCK, re.I)
_WINDOW_LOW_RE = re.compile(
    _NOT_BEFORE
    + _CLOCK
    + r"|\bno earlier than\s+"
    + _CLOCK
    + r"|(?<!no )(?<!not )\b(?:after|later than)\s+"
    + _CLOCK
    + r"|\b"
    + _CLOCK
    + r"\s+or\s+later",
    re.I,
)
_WINDOW_HIGH_RE = re.compile(r"\b(?:no later than|by|before)\s+" + _CLOCK, re.I)
_ANY_CLOCK_RE = re.compile(
    r"\b(\d{1,2}):(\d{2})\s*(a\.?m\.?|p\.?m\.?)?|\b(\d{1,2})\s*(a\.?m\.?|p\.?m\.?)", re.I
)


def _clock_minutes(hour: str, minute: str | None, period: str | None, bare: bool = False) -> int | None:
    """Minutes after midnight of "5pm", "10:30 am", "15:00"; None for a bare number (unless ``bare``)."""
    if not bare and not minute and not period:
        return None
    h, m = int(hour), int(minute or 0)
    if m > 59 or h > 24 or (period and not 1 <= h <= 12):
        return None
    if period:
        h = h % 12 + (12 if period[0].lower() == "p" else 0)
    return h * 60 + m


def _groups_clock(groups: tuple) -> int | None:
    """The first clock time among a match's (hour, minute, period) triples."""
    for i in range(0, len(groups) - 2, 3):
        if groups[i]:
            return _clock_minutes(groups[i], groups[i + 1], groups[i + 2])
    return None


def _time_window(text: str) -> tuple:
    """(earliest, latest) departure in minutes after midnight the text allows; None where it sets none."""
    low = high = None
    for m in _WINDOW_SPAN_RE.finditer(text):
        first, last = m.group(1, 2, 3), m.group(4, 5, 6)
        end = _clock_minutes(last[0], last[1], last[2])
        period = first[2] or last[2]  # "12-5pm": the end's period, unless that puts it after the end
        start = _clock_minutes(first[0], first[1], period, bare=True)
        if start is not None and end is not None and start >= end and period:
            start = _clock_minutes(first[0], first[1], "pm" if int(first[0]) == 12 else "am")
        if start is not None and end is not None and start < end:
            low, high = start, end
    text = _WINDOW_SPAN_RE.sub(" ", text)
    # "Nothing after 4pm" before "after 3pm"; each bound read is taken out, the last said wins.
    high, text = _last_clock(_WINDOW_HIGH_NEG_RE, text, high)
    low, text = _last_clock(_WINDOW_LOW_RE, text, low)
    high, text = _last_clock(_WINDOW_HIGH_RE, text, high)
    return low, high


def _last_clock(pattern: re.Pattern, text: str, default: int | None) -> tuple:
    """(the clock time of the last match of ``pattern`` that gives one, else ``default``; the text without the matches)."""
    for m in pattern.finditer(text):
        found = _groups_clock(m.groups())
        default = found if found is not None else default
    return default, pattern.sub(" ", text)


def _first_clock(text: str) -> int | None:
    """The first clock time a text gives ("departs 6:50", "5:15 pm"), in minutes after midnight."""
    for m in _ANY_CLOCK_RE.finditer(text):
        if m.group(1):
            return _clock_minutes(m.group(1), m.group(2), m.group(3))
        return _clock_minutes(m.group(4), None, m.group(5))
    return None


def _weekday(y: int, m: int, d: int) -> str:
    """The day of the week of a date (1970-01-01 was a Thursday)."""
    return _DAYS[(_day_number(y, m, d) + 3) % 7]


def _date_entities_of(text: str) -> tuple:
    """(entities, the text with dates and times blanked).

    Dates as 'date:MM-DD' plus their day of the month ('dom:14', so "the 14th" meets
    2025-06-14) and, when the year is written, their weekday ('day:friday'); times as 'time:HH:MM'.
    """
    found = set()

    def add_date(year: int, month: int, day: int) -> None:
        found.add(f"date:{month:02d}-{day:02d}")
        found.add(f"dom:{day}")
        if year and 1 <= month <= 12 and 1 <= day <= 31:
            found.add("day:" + _weekday(year, month, day))

    def iso(m: re.Match) -> str:
        add_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if m.group(4):
            found.add(f"time:{int(m.group(4)):02d}:{m.group(5)}")
        return " "

    def day_month(m: re.Match) -> str:
        day, month = int(m.group(1)), _month_number(m.group(2))
        if 1 <= day <= 31 and month:
            add_date(int(m.group(3) or 0), month, day)
            return " "
        return m.group(0)

    def month_day(m: re.Match) -> str:
        month, day = _month_number(m.group(1)), int(m.group(2))
        if 1 <= day <= 31 and month:
            add_date(int(m.group(3) or 0), month, day)
            return " "
        return m.group(0)

    def ordinal(m: re.Match) -> str:
        if 1 <= int(m.group(1)) <= 31:
            found.add(f"dom:{int(m.group(1))}")
            return " "
        return m.group(0)

    def slash(m: re.Match) -> str:
        month, day = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            year = int(m.group(3) or 0)
            add_date(year + 2000 if 0 < year < 100 else year, month, day)
            return " "
        return m.group(0)

    def time12(m: re.Match) -> str:
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        if int(m.group(1)) > 12:
            return m.group(0)
        found.add(f"time:{hour:02d}:{m.group(2) or '00'}")
        return " "

    def time24(m: re.Match) -> str:
        found.add(f"time:{int(m.group(1)):02d}:{m.group(2)}")
        return " "

    def clock_words(m: re.Match) -> str:
        """ "half past 7 in the evening", "9 o'clock", "quarter to eight": the times they can be."""
        part, direction, hour_text, oclock, period = m.groups()
        if not (part or oclock or period):
            return m.group(0)  # a bare number is no time
        low = hour_text.lower()
        hour = _HOUR_WORDS.index(low) + 1 if low in _HOUR_WORDS else int(low)
        if not 1 <= hour <= 12:
            return m.group(0)
        minute = {"half": 30, "quarter": 15}.get((part or "").lower(), 0)
        if direction and direction.lower() == "to":
            hour, minute = hour - 1 or 12, 60 - minute
        period = (period or "").lower()
        if "morning" in period:
            hours = [hour % 12]
        elif period:
            hours = [hour % 12 + 12]
        else:
            hours = [hour % 12, hour % 12 + 12]
        for h in hours:
            found.add(f"time:{h:02d}:{minute:02d}")
        return " "

    def noon(m: re.Match) -> str:
        found.add("time:00:00" if m.group(1).lower() == "midnight" else "time:12:00")
        return " "

    rest = _ISO_DATETIME_RE.sub(iso, text)
    rest = _MONTH_DAY_RE.sub(month_day, rest)
    rest = _DAY_MONTH_RE.sub(day_month, rest)
    rest = _SLASH_DATE_RE.sub(slash, rest)
    rest = re.sub(r"\b(\d{1,2})(?:st|nd|rd|th)\b", ordinal, rest)
    rest = _CLOCK_WORDS_RE.sub(clock_words, rest)
    rest = _TIME12_RE.sub(time12, rest)
    rest = _TIME24_RE.sub(time24, rest)
    rest = _NOON_RE.sub(noon, rest)
    return found, rest


def _id_like(token: str) -> bool:
    """Letters and digits mixed, 4+ characters, and not an ordinal or a quantity ("12th", "3x", "25mb")."""
    if re.fullmatch(r"\d+(st|nd|rd|th|x|k|m|gb|mb|kb|ms|s|h|am|pm)", token, re.I):
        return False
    return len(token) >= 4 and bool(re.search(r"[a-z]", token, re.I))


def _entities_of(text: str, with_names: bool = True) -> set:
    """Typed values named in a text, as 'kind:value' strings (num, time, day, month, email, date, id, name)."""
    found = set()
    rest = text
    for m in _EMAIL_RE.finditer(rest):
        found.add("email:" + m.group(0).lower())
    rest = _EMAIL_RE.sub(" ", rest)
    dated, rest = _date_entities(rest)
    found |= dated
    for m in _ID_RE.finditer(rest):
        token = m.group(0).lstrip("#")
        if _id_like(token):
            found.add("id:" + token.lower())
    rest = _ID_RE.sub(lambda m: " " if _id_like(m.group(0).lstrip("#")) else m.group(0), rest)
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


def _stem(word: str) -> str:
    """A crude stem: the first five letters, all but the first in sorted order.

    "cancelling" and "cancellation" meet, and so do "Shibuya" and the typo "Shbiuya".
    """
    low = word.lower()[:5]
    return low[:1] + "".join(sorted(low[1:]))


# Everyday attribute values by what they describe: "red" and "navy" are both colours, so a turn
# saying "navy" replaces an earlier "red" and leaves "size M" alone.
_CATEGORY_WORDS = {
    "colour": "red blue green black white grey gray navy beige brown pink purple yellow orange olive teal silver "
    "gold maroon cream tan khaki ivory charcoal burgundy turquoise",
    "size": "xs s m l xl xxl small medium large petite regular tall",
    "seat": "window aisle middle bulkhead",
    "position": "front back rear exit upper lower top bottom",
    "grade": "economy premium business first coach standard deluxe",
    "diet": "vegetarian vegan kosher halal gluten pescatarian",
    "room": "single double twin queen king suite studio",
    "vehicle": "compact midsize intermediate fullsize suv minivan van convertible",
    "cuisine": "italian thai mexican japanese indian chinese french greek korean vietnamese spanish sushi pizza "
    "burger steak seafood lebanese turkish ethiopian peruvian moroccan mediterranean caribbean cuban brazilian "
    "german polish persian nepalese malaysian indonesian filipino tapas ramen bbq barbecue",
    "daypart": "morning afternoon evening night noon midnight",
    "material": "leather cotton wool silk denim linen suede canvas",
    "transport": "train bus car taxi ferry flight",
}
_CATEGORY_OF = {_stem(w): c for c, words in _CATEGORY_WORDS.items() for w in words.split()}
_CATEGORY_WORD_OF = {w: c for c, words in _CATEGORY_WORDS.items() for w in words.split()}


def _value_categories(text: str) -> set:
    """The everyday attributes a value names, by whole words: "Frontier" names no position,
    though its stem is the stem of "front"."""
    out = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        category = _CATEGORY_WORD_OF.get(word) or _CATEGORY_WORD_OF.get(word.removesuffix("s"))
        if category:
            out.add(category)
    return out


_GRADE_SYNONYM_RE = re.compile(r"\b(coach|main[ -]cabin|econ)\b(?!\w)", re.I)
_PRONOUN_ONE_RE = re.compile(
    r"\b(the|this|that|another|other|which|a|an)\s+((?:[A-Za-z]+\s+){0,2})ones?\b(?![-\w])", re.I
)


def _value_tokens_of(text: str) -> set:
    """Everything a text names that an action could carry: typed entities and content words.

    Content words come as 'w:<stem>' (stopwords and words under three letters left out),
    so "red" in a message meets ``{"color": "Red"}`` in a tool call.
    """
    dated, rest = _date_entities(text)
    found = set(dated)
    rest = _GRADE_SYNONYM_RE.sub("economy", rest)  # "coach" and "main cabin" are economy
    # "the olive one", "a cheaper one": a pronoun, not the number 1.
    rest = _PRONOUN_ONE_RE.sub(r"\1 \2", rest)
    for x in _entities(rest, with_names=False):
        if _entity_kind(x) in ("num", "email", "id", "day"):
            found.add(x)
    # The words inside an address are not words the user said ("luca_tanaka@fastmail.com").
    worded = _EMAIL_RE.sub(" ", rest)
    for w in re.findall(r"[A-Za-z][A-Za-z]+", worded):
        low = w.lower()
        if len(low) >= 3 and low not in _STOPWORDS and low not in _NUMBER_WORDS:
            found.add("w:" + _stem(low))
    for w in re.findall(r"\b[A-Z]{1,2}\b", rest):
        if w not in ("I", "A"):
            found.add("w:" + w.lower())  # short codes: sizes (S, XL), seat letters, classes
    return found


def _leaf_tokens(value: object) -> set:
    """_value_tokens of every leaf of a JSON value (numbers as numbers)."""
    found: set[str] = set()
    if isinstance(value, bool) or value is None:
        return found
    if isinstance(value, int | float):
        found.add("num:" + _canon_number(float(value)))
    elif isinstance(value, dict):
        for v in value.values():
            found |= _leaf_tokens(v)
    elif isinstance(value, list | tuple):
        for v in value:
            found |= _leaf_tokens(v)
    else:
        found |= _value_tokens(str(value))
    return found


# --- numeric facts, with the precision they were written at ---

_FACT_NUM_RE = re.compile(
    r"(?<![\w.])([$€£])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent\b|thousand\b|million\b|billion\b|"
    r"trillion\b|bn\b|k\b)?",
    re.I,
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "k": 1e3}


def _numbers(text: str, skip_small: bool) -> list:
    """Each number as a list of readings (value, tolerance); "12%" reads as 12 and as 0.12.

    The tolerance is half a unit of the last written digit, so "1.2 million" covers
    1,150,000 to 1,250,000. With skip_small, bare integers up to 10 are left out: prose
    uses them ("2 options").
    """
    out = []
    text = re.sub(r"\b[vV](\d)", r" \1", text)
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
            if e["call"].get("error"):
                parts.append(str(e["call"].get("error")))
    return "\n".join(parts)


# Signals read the same texts many times over: remember what was read (copies go out, so a
# caller that changes its set does not change the memory).
_READ: dict = {}


def _remembered(kind: str, text: str, read: typing.Callable) -> typing.Any:
    key = (kind, text)
    value = _READ.get(key)
    if value is None:
        value = read(text)
        if len(_READ) > 20000:
            _READ.clear()
        _READ[key] = value
    return value


def _date_entities(text: str) -> tuple:
    """_date_entities_of, remembered."""
    found, rest = _remembered("dates", text, _date_entities_of)
    return set(found), rest


def _entities(text: str, with_names: bool = True) -> set:
    """_entities_of, remembered."""
    if with_names:
        return set(_remembered("entities", text, _entities_of))
    return set(_remembered("entities-no-names", text, _entities_without_names))


def _entities_without_names(text: str) -> set:
    return _entities_of(text, False)


def _value_tokens(text: str) -> set:
    """_value_tokens_of, remembered."""
    return set(_remembered("tokens", text, _value_tokens_of))
