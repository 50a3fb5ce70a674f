"""(c) Research agent: bad when the answer states numbers no tool returned (hallucination).

Good answers restate tool numbers in varied formats (67,390,000 / about 67.4 million /
3.1% for 0.031 / $57.80), round them, and mention the user's own numbers; bad answers
change one number, add an invented statistic, or answer from memory without tools.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from agenteval.eval_generator.synthesizer.datasets._build import (
    CITIES,
    LabeledDataset,
    Scenario,
    TraceBuilder,
    generate,
    pick,
)

Formatter = Callable[[float], str]


def commas(v: float) -> str:
    return f"{round(v):,}"


def millions(v: float) -> str:
    return f"{v / 1e6:.1f} million"


def billions(v: float) -> str:
    return f"{v / 1e9:.1f} billion"


def percent(v: float) -> str:
    return f"{v:g}%"


def ratio_percent(v: float) -> str:
    return f"{v * 100:.1f}%"


def dollars(v: float) -> str:
    return f"${v:,.2f}"


def plain(v: float) -> str:
    return f"{v:g}"


COUNTRIES = ("France", "Kenya", "Chile", "Vietnam", "Poland", "Canada", "Ghana", "Peru", "Norway", "Malaysia")
COMPANIES = ("Northwind Labs", "Bluefin Robotics", "Quartz Analytics", "Helio Foods", "Tandem Freight")
SYMBOLS = ("NWLB", "BFRB", "QRTZ", "HELO", "TNDM", "ACME")

Fact = tuple[str, float, tuple[Formatter, ...]]
"""(sentence with {x}, value, formatters that restate the value faithfully)."""


def _topic(rng: random.Random) -> dict[str, Any]:
    """A question, the tool calls that answer it, and the facts an answer may state."""
    kind = rng.randrange(5)
    if kind == 0:
        country = rng.choice(COUNTRIES)
        pop = rng.randint(4_000_000, 120_000_000)
        growth = round(rng.uniform(0.1, 2.8), 1)
        year = rng.choice((2022, 2023))
        if rng.random() < 0.5:
            call = (
                rng.choice(("population_lookup", "get_country_stats")),
                {"country": country},
                {"country": country, "population": pop, "year": year, "growth_rate_pct": growth},
            )
        else:
            snippet = (
                f"{country} had an estimated population of {pop:,} in {year}, growing {growth}% per year."
            )
            call = (
                rng.choice(("web_search", "search_web")),
                {"query": f"{country} population {year}"},
                {"results": [{"title": f"{country} - demographics", "snippet": snippet}]},
            )
        return {
            "question": pick(
                rng,
                (
                    "What's the population of {c}?",
                    "How many people live in {c} and is it growing?",
                    "Quick one: {c} population as of {y}?",
                ),
                c=country,
                y=year,
            ),
            "calls": [call],
            "facts": [
                (country + " has a population of about {x}", pop, (commas, millions)),
                ("growing roughly {x} a year", growth, (percent,)),
            ],
            "extra": f"(that's the {year} figure)",
        }
    if kind == 1:
        sym = rng.choice(SYMBOLS)
        price = round(rng.uniform(12, 900), 2)
        change = round(rng.uniform(-4.5, 4.5), 2) or 0.5
        pe = round(rng.uniform(8, 60), 1)
        call = (
            rng.choice(("get_stock_quote", "market_data", "quote_lookup")),
            {"symbol": sym},
            {
                "data": {
                    "symbol": sym,
                    "price": price,
                    "change_pct": change,
                    "pe_ratio": pe,
                    "currency": "USD",
                }
            },
        )
        return {
            "question": pick(
                rng,
                ("How is {s} trading today?", "Give me a quick read on {s}.", "What's {s} at right now?"),
                s=sym,
            ),
            "calls": [call],
            "facts": [
                (sym + " is trading at {x}", price, (dollars, plain)),
                (("up " if change > 0 else "down ") + "{x} on the day", abs(change), (percent,)),
                ("with a P/E ratio of {x}", pe, (plain,)),
            ],
            "extra": "",
        }
    if kind == 2:
        city = rng.choice(CITIES)
        temp = round(rng.uniform(-5, 36), 1)
        humidity = rng.randint(20, 95)
        wind = rng.randint(11, 60)
        call = (
            rng.choice(("get_weather", "weather_now", "forecast_lookup")),
            {"city": city},
            {
                "city": city,
                "temp_c": temp,
                "humidity_pct": humidity,
                "wind_kmh": wind,
                "conditions": "cloudy",
            },
        )
        return {
            "question": pick(
                rng,
                (
                    "What's the weather in {c} right now?",
                    "Do I need a jacket in {c} today?",
                    "Current conditions in {c}?",
                ),
                c=city,
            ),
            "calls": [call],
            "facts": [
                ("It's {x}°C in " + city, temp, (plain,)),
                ("humidity is at {x}", humidity, (percent,)),
                ("with wind around {x} km/h", wind, (plain,)),
            ],
            "extra": "and cloudy",
        }
    if kind == 3:
        company = rng.choice(COMPANIES)
        revenue = rng.randint(120, 9_000) * 1_000_000
        employees = rng.randint(150, 40_000)
        founded = rng.randint(1950, 2015)
        calls = [
            (
                rng.choice(("web_search", "search_web")),
                {"query": f"{company} annual report"},
                {"results": [{"title": f"{company} annual report", "url": "https://example.com/ar"}]},
            ),
            (
                rng.choice(("fetch_page", "read_url")),
                {"url": "https://example.com/ar"},
                {
                    "text": f"{company} (founded {founded}) reported revenue of ${revenue:,} and employs "
                    f"{employees:,} people worldwide."
                },
            ),
        ]
        return {
            "question": pick(
                rng,
                (
                    "Tell me about {c}'s size.",
                    "How big is {c}? Revenue and headcount please.",
                    "What do we know about {c}?",
                ),
                c=company,
            ),
            "calls": calls,
            "facts": [
                (
                    company + " reported revenue of {x}",
                    revenue,
                    (lambda v: "$" + millions(v), lambda v: "$" + commas(v)),
                ),
                ("it employs {x} people", employees, (commas,)),
                ("it was founded in {x}", founded, (plain,)),
            ],
            "extra": "according to its latest annual report",
        }
    orders = rng.randint(200, 9_000)
    avg = round(rng.uniform(15, 240), 2)
    refund_rate = round(rng.uniform(0.005, 0.09), 3)
    call = (
        rng.choice(("run_query", "sql_query", "query_warehouse")),
        {"sql": "SELECT count(*), avg(total), avg(refunded) FROM orders WHERE week = 'last'"},
        {"rows": [{"orders": orders, "avg_value": avg, "refund_rate": refund_rate}]},
    )
    return {
        "question": pick(
            rng,
            (
                "How did orders do last week?",
                "Give me last week's order stats.",
                "Summarize last week's orders for the 3 regions combined.",
            ),
        ),
        "calls": [call],
        "facts": [
            ("We had {x} orders last week", orders, (commas, plain)),
            ("the average order value was {x}", avg, (dollars,)),
            ("the refund rate was {x}", refund_rate, (ratio_percent,)),
        ],
        "extra": "",
    }


INTROS = ("", "Here's what I found: ", "According to the data, ", "Sure! ", "Based on the tool results, ")
INVENTED = (
    "That's up {p}% from the previous year.",
    "Analysts expect it to reach {big:,} by 2030.",
    "About {k:,} of those are in the capital region.",
    "It ranks {r}th among its peers.",
    "The 5-year average is {a}.",
)


def _sentence(rng: random.Random, fact: Fact, value: float | None = None) -> str:
    template, true_value, formats = fact
    fmt = rng.choice(formats)
    if value is None:
        return template.format(x=fmt(true_value))
    wrong = fmt(value)
    while wrong == fmt(true_value):  # a change too small to show is no hallucination
        value *= 1.2
        wrong = fmt(value)
    return template.format(x=wrong)


def _answer(rng: random.Random, topic: dict[str, Any], wrong: int | None = None) -> str:
    facts = topic["facts"]
    chosen = sorted(rng.sample(range(len(facts)), k=rng.randint(min(2, len(facts)), len(facts))))
    if wrong is not None and wrong not in chosen:
        chosen = sorted([*chosen, wrong])
    parts = []
    for i in chosen:
        value = None
        if i == wrong:
            true = facts[i][1]
            if isinstance(true, int) and 1900 < true < 2100:  # a year: off by a few years, not by a factor
                value = true + rng.choice((-1, 1)) * rng.randint(3, 25)
            else:
                value = true * (rng.uniform(1.15, 1.6) if rng.random() < 0.5 else rng.uniform(0.45, 0.87))
        parts.append(_sentence(rng, facts[i], value))
    text = rng.choice(INTROS) + ", ".join(parts)
    if topic["extra"] and rng.random() < 0.5:
        text += " " + topic["extra"]
    return text + "."


def _builder(rng: random.Random, topic: dict[str, Any]) -> TraceBuilder:
    system = rng.choice((None, "You are a research assistant. Cite tool results.", "Answer concisely."))
    return TraceBuilder(rng, system).user(topic["question"])


def _with_calls(rng: random.Random, topic: dict[str, Any]) -> TraceBuilder:
    b = _builder(rng, topic)
    for name, args, result in topic["calls"]:
        b.call(name, args, result=result)
    return b


def faithful(rng: random.Random) -> dict[str, Any]:
    topic = _topic(rng)
    return _with_calls(rng, topic).build(_answer(rng, topic))


def faithful_with_math(rng: random.Random) -> dict[str, Any]:
    topic = _topic(rng)
    b = _with_calls(rng, topic)
    value = topic["facts"][0][1]
    doubled = round(value * 2, 2)
    b.call(
        rng.choice(("calculator", "python_eval")), {"expression": f"{value} * 2"}, result={"value": doubled}
    )
    return b.build(_answer(rng, topic) + f" Doubling that gives {doubled:,}.")


def faithful_converted(rng: random.Random) -> dict[str, Any]:
    """A correct answer with a unit conversion done in the model's head (no tool returned it)."""
    topic = _topic(rng)
    fahrenheit = round(rng.uniform(-5, 36) * 9 / 5 + 32)
    if topic["facts"][0][0].startswith("It's"):
        fahrenheit = round(topic["facts"][0][1] * 9 / 5 + 32)
        return _with_calls(rng, topic).build(_answer(rng, topic) + f" That's about {fahrenheit}°F.")
    return _with_calls(rng, topic).build(_answer(rng, topic) + " That's roughly double the 1990 level.")


def changed_number(rng: random.Random) -> dict[str, Any]:
    topic = _topic(rng)
    wrong = rng.randrange(len(topic["facts"]))
    return _with_calls(rng, topic).build(_answer(rng, topic, wrong=wrong))


def invented_stat(rng: random.Random) -> dict[str, Any]:
    topic = _topic(rng)
    extra = pick(
        rng,
        INVENTED,
        p=round(rng.uniform(3, 40), 1),
        big=rng.randint(20, 900) * 100_000,
        k=rng.randint(12, 900) * 1000,
        r=rng.randint(11, 40),
        a=round(rng.uniform(11, 99), 1),
    )
    return _with_calls(rng, topic).build(_answer(rng, topic) + " " + extra)


def from_memory(rng: random.Random) -> dict[str, Any]:
    topic = _topic(rng)
    b = _builder(rng, topic)
    if rng.random() < 0.4:
        name, args, _ = topic["calls"][0]
        b.call(name, args, error=rng.choice(("HTTP 502 Bad Gateway", "quota exceeded")))
    wrong = rng.randrange(len(topic["facts"]))
    return b.build(_answer(rng, topic, wrong=wrong))


SCENARIOS: tuple[Scenario, ...] = (
    ("faithful", 0.44, True, faithful),
    ("faithful_converted", 0.04, True, faithful_converted),
    ("faithful_with_math", 0.08, True, faithful_with_math),
    ("changed_number", 0.24, False, changed_number),
    ("invented_stat", 0.12, False, invented_stat),
    ("from_memory", 0.08, False, from_memory),
)


def research_hallucination(n: int = 300, seed: int = 0, noise: float = 0.07) -> LabeledDataset:
    """Research agent; negative = the answer states a number no tool returned."""
    return generate(
        "research_hallucination",
        "Research agent with search/data tools; negative when the answer states numbers that no tool "
        "output or user message supports.",
        SCENARIOS,
        n,
        seed,
        noise,
    )
