"""(d) Multi-turn booking/ordering agent: bad when the user changed their mind and the
action still used the earlier value.

Values come as digits or words ("six of us"), times as 7pm / 7:30 pm / 19:30, and tool
arguments use their own formats ("19:30", 6). Follow-ups that change nothing (thanks, a
new detail, a confirmation) are common, and some conversations change two values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agenteval.eval_generator.synthesizer.datasets._build import (
    CITIES,
    DAYS,
    LabeledDataset,
    Scenario,
    TraceBuilder,
    generate,
    person,
    pick,
)

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
PLACES = ("Casa Nova", "The Olive Tree", "Sakura House", "Brasserie Lune", "Golden Wok")
PRODUCTS = ("Trail Runner 2", "AeroPress Go", "Nimbus Desk Lamp", "Kettle Pro")


@dataclass(frozen=True)
class Slot:
    """One value the user names: how to say it and how a tool argument carries it."""

    kind: str
    value: Any
    say: Callable[[random.Random, Any], str]
    arg: Callable[[Any], Any]
    pick_other: Callable[[random.Random, Any], Any]


def _say_party(rng: random.Random, n: int) -> str:
    return rng.choice((f"{n} people", f"a party of {n}", f"{NUMBER_WORDS[n]} of us", f"{n} guests"))


def _say_time(rng: random.Random, t: tuple[int, int]) -> str:
    h, m = t
    twelve = h % 12 or 12
    options = [f"{twelve}{f':{m:02d}' if m else ''}pm", f"{twelve}:{m:02d} pm", f"{h}:{m:02d}"]
    return rng.choice(options)


def _arg_time(t: tuple[int, int]) -> str:
    return f"{t[0]:02d}:{t[1]:02d}"


def _other_time(rng: random.Random, t: tuple[int, int]) -> tuple[int, int]:
    while True:
        new = (rng.randint(17, 21), rng.choice((0, 30)))
        if new != t:
            return new


def _other_int(low: int, high: int) -> Callable[[random.Random, int], int]:
    def other(rng: random.Random, v: int) -> int:
        return rng.choice([x for x in range(low, high + 1) if x != v])

    return other


def _other_of(options: tuple[str, ...]) -> Callable[[random.Random, str], str]:
    def other(rng: random.Random, v: str) -> str:
        return rng.choice([x for x in options if x != v])

    return other


def _day(rng: random.Random) -> Slot:
    return Slot(
        "day",
        rng.choice(DAYS[:6]),
        lambda r, d: r.choice((d, f"this {d}", f"on {d}")),
        str,
        _other_of(DAYS[:6]),
    )


def _emails() -> tuple[str, ...]:
    rng = random.Random(7)
    return tuple(sorted({person(rng)[1] for _ in range(30)}))


EMAILS = _emails()


def _domain(rng: random.Random) -> dict[str, Any]:
    kind = rng.randrange(5)
    if kind == 0:
        place = rng.choice(PLACES)
        slots = {
            "party": Slot("num", rng.randint(2, 8), _say_party, int, _other_int(2, 9)),
            "time": Slot(
                "time", (rng.randint(17, 21), rng.choice((0, 30))), _say_time, _arg_time, _other_time
            ),
            "day": _day(rng),
        }
        return {
            "slots": slots,
            "request": (
                "Book a table at {place} for {party} at {time} {day}.",
                "Can you get us a reservation at {place}, {party}, {day} at {time}?",
                "I'd like to reserve {place} {day} — {party}, around {time}.",
            ),
            "fixed": {"place": place},
            "read": ("check_availability", lambda a: {"restaurant": place, **a}),
            "act": rng.choice(("book_table", "reserve_table", "create_reservation")),
            "args": lambda v: {
                "restaurant": place,
                "party_size": v["party"],
                "time": v["time"],
                "day": v["day"],
            },
            "done": "Booked! {place}, party of {party}, {day} at {time}. Confirmation sent.",
            "extra_followups": True,
        }
    if kind == 1:
        slots = {
            "city": Slot("name", rng.choice(CITIES), lambda r, c: c, str, _other_of(CITIES)),
            "nights": Slot(
                "num",
                rng.randint(2, 7),
                lambda r, n: r.choice((f"{n} nights", f"{NUMBER_WORDS[n]} nights")),
                int,
                _other_int(2, 8),
            ),
            "day": _day(rng),
        }
        return {
            "slots": slots,
            "request": (
                "Find me a hotel in {city} for {nights}, checking in {day}.",
                "I need a room in {city} from {day}, {nights}.",
                "Please book a hotel: {city}, {nights}, arriving {day}.",
            ),
            "fixed": {},
            "read": (rng.choice(("search_hotels", "find_hotels")), lambda a: {"city": a["city"]}),
            "act": rng.choice(("book_hotel", "reserve_room", "create_booking")),
            "args": lambda v: {"city": v["city"], "nights": v["nights"], "check_in": v["day"]},
            "done": "You're booked in {city} for {nights} nights from {day}.",
            "extra_followups": True,
        }
    if kind == 2:
        slots = {
            "email": Slot("email", rng.choice(EMAILS), lambda r, e: e, lambda e: [e], _other_of(EMAILS)),
            "day": _day(rng),
            "time": Slot(
                "time",
                (rng.randint(9, 16), rng.choice((0, 30))),
                lambda r, t: r.choice(
                    (f"{t[0]}:{t[1]:02d}", f"{t[0] % 12 or 12}:{t[1]:02d} {'pm' if t[0] >= 12 else 'am'}")
                ),
                _arg_time,
                lambda r, t: ((t[0] + r.randint(1, 3) - 9) % 8 + 9, t[1]),
            ),
        }
        return {
            "slots": slots,
            "request": (
                "Set up a 30-minute meeting with {email} {day} at {time}.",
                "Please schedule a call with {email} for {day}, {time}.",
                "Can you put a meeting on my calendar with {email}? {day} at {time} works.",
            ),
            "fixed": {},
            "read": (rng.choice(("get_calendar", "check_free_busy")), lambda a: {"day": a["day"]}),
            "act": rng.choice(("schedule_meeting", "create_event", "book_meeting")),
            "args": lambda v: {
                "attendees": v["email"],
                "day": v["day"],
                "start": v["time"],
                "duration_min": 30,
            },
            "done": "Scheduled: meeting with {email} on {day} at {time}.",
            "extra_followups": False,
        }
    if kind == 3:
        product = rng.choice(PRODUCTS)
        slots = {
            "qty": Slot(
                "num",
                rng.randint(2, 9),
                lambda r, n: r.choice((f"{n}", NUMBER_WORDS[n])),
                int,
                _other_int(2, 10),
            ),
            "day": _day(rng),
        }
        return {
            "slots": slots,
            "request": (
                "Order {qty} {product} for delivery {day}.",
                "I need {qty} of the {product}, delivered {day} please.",
                "Please place an order: {product} x {qty}, arriving {day}.",
            ),
            "fixed": {"product": product},
            "read": (rng.choice(("get_product", "check_stock")), lambda a: {"product": product}),
            "act": rng.choice(("place_order", "create_order", "submit_order")),
            "args": lambda v: {"product": product, "quantity": v["qty"], "delivery_day": v["day"]},
            "done": "Ordered {qty} x {product}, arriving {day}.",
            "extra_followups": True,
        }
    slots = {
        "amount": Slot(
            "num",
            rng.randint(4, 60) * 25,
            lambda r, a: f"${a}",
            float,
            lambda r, a: r.choice([x * 25 for x in range(4, 61) if x * 25 != a]),
        ),
        "email": Slot("email", rng.choice(EMAILS), lambda r, e: e, str, _other_of(EMAILS)),
    }
    return {
        "slots": slots,
        "request": (
            "Send {amount} to {email} for the concert tickets.",
            "Please pay {email} {amount}.",
            "Transfer {amount} to {email} today.",
        ),
        "fixed": {},
        "read": ("get_balance", lambda a: {"account": "main"}),
        "act": rng.choice(("send_payment", "transfer_funds")),
        "args": lambda v: {"to": v["email"], "amount": v["amount"]},
        "done": "Sent {amount} to {email}.",
        "extra_followups": False,
    }


CHANGES = (
    "Actually, make it {new}.",
    "Change of plans — {new} instead.",
    "Sorry, I meant {new}, not {old}.",
    "Can we do {new} instead?",
    "Wait, {new} works better.",
    "On second thought, let's go with {new}.",
    "Could you switch it to {new}?",
    "{New}, not {old}. My mistake.",
)
ACKS = (
    "Sure — {summary}. Anything else before I book it?",
    "Got it: {summary}. Shall I go ahead?",
    "Okay! {summary}. Let me know if that's right.",
)
FOLLOWUPS = ("Yes, that's right.", "Perfect, thanks!", "Sounds good.", "Yes please, go ahead.")
EXTRA_FOLLOWUPS = (
    "Great — it's for a birthday, by the way.",
    "Thanks! Please send the confirmation to {email}.",
)


def _texts(rng: random.Random, domain: dict[str, Any], values: dict[str, Any]) -> dict[str, str]:
    return {k: domain["slots"][k].say(rng, v) for k, v in values.items()} | domain["fixed"]


def _conversation(rng: random.Random, changes: int, applied: int) -> dict[str, Any]:
    """A conversation where ``changes`` slots change in one later turn and ``applied`` of them reach the tool."""
    domain = _domain(rng)
    slots: dict[str, Slot] = domain["slots"]
    first = {k: s.value for k, s in slots.items()}
    first_text = _texts(rng, domain, first)
    turns = [pick(rng, domain["request"], **first_text)]
    summary = ", ".join(first_text[k] for k in slots)
    replies = [pick(rng, ACKS, summary=summary)]
    final = dict(first)
    if changes:
        changed = rng.sample(list(slots), changes)
        new_values = {k: slots[k].pick_other(rng, first[k]) for k in changed}
        new_text = " and ".join(slots[k].say(rng, new_values[k]) for k in changed)
        old_text = " and ".join(first_text[k] for k in changed)
        turns.append(pick(rng, CHANGES, new=new_text, New=new_text[:1].upper() + new_text[1:], old=old_text))
        for k in changed[:applied]:
            final[k] = new_values[k]
        if rng.random() < 0.25:
            replies.append(
                pick(rng, ("Updated to {x}. Confirm?", "No problem, {x} it is. Book it?"), x=new_text)
            )
            turns.append(rng.choice(FOLLOWUPS))
    elif rng.random() < 0.85:
        options = FOLLOWUPS + (EXTRA_FOLLOWUPS if domain["extra_followups"] else ())
        turns.append(pick(rng, options, email=rng.choice(EMAILS)))
    b = TraceBuilder(rng, rng.choice((None, "You are a booking assistant. Use tools to make reservations.")))
    args = domain["args"]({k: slots[k].arg(v) for k, v in final.items()})
    if rng.random() < 0.5:  # the whole conversation is the input
        for i, turn in enumerate(turns):
            b.user(turn)
            if i < len(replies) and i < len(turns) - 1:
                b.prior_assistant(replies[i])
    else:  # later user turns are scripted turns during the trial
        b.user(turns[0])
        for i, turn in enumerate(turns[1:]):
            b.say(replies[i] if i < len(replies) else "Anything else?")
            b.say(turn, role="user")
    if rng.random() < 0.5:
        read_name, read_args = domain["read"]
        b.call(read_name, read_args(args), result={"available": True})
    b.call(domain["act"], args, result={"status": "confirmed", "reference": f"R{rng.randint(1000, 9999)}"})
    done_text = _texts(rng, domain, final)
    done_text = {
        k: (str(final[k]) if slots.get(k) and slots[k].kind == "num" else v) for k, v in done_text.items()
    }
    return b.build(domain["done"].format(**done_text))


def no_change(rng: random.Random) -> dict[str, Any]:
    return _conversation(rng, 0, 0)


def change_followed(rng: random.Random) -> dict[str, Any]:
    return _conversation(rng, 1, 1)


def two_changes_followed(rng: random.Random) -> dict[str, Any]:
    return _conversation(rng, 2, 2)


def change_ignored(rng: random.Random) -> dict[str, Any]:
    return _conversation(rng, 1, 0)


def two_changes_half_applied(rng: random.Random) -> dict[str, Any]:
    return _conversation(rng, 2, 1)


SCENARIOS: tuple[Scenario, ...] = (
    ("no_change", 0.25, True, no_change),
    ("change_followed", 0.30, True, change_followed),
    ("two_changes_followed", 0.08, True, two_changes_followed),
    ("change_ignored", 0.30, False, change_ignored),
    ("two_changes_half_applied", 0.07, False, two_changes_half_applied),
)


def outdated_instruction(n: int = 300, seed: int = 0, noise: float = 0.07) -> LabeledDataset:
    """Multi-turn agent; negative = the final action used a value the user had since changed."""
    return generate(
        "outdated_instruction",
        "Multi-turn booking/ordering/payment agent; negative when the user changed a value in a later "
        "turn and the action still used the earlier one.",
        SCENARIOS,
        n,
        seed,
        noise,
    )
