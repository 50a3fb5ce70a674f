"""Reading the conversation: what the customer asks for, about which order, with which details.

This stands in for the language understanding of an LLM: keyword intents with clause-level
negation ("don't cancel it"), entities by regex, and the proposal the assistant is waiting
to have confirmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ACTION_INTENTS = ("escalate", "cancel", "address", "refund")
"""Intents that change something, in the order the planner handles them."""

_INTENTS: dict[str, re.Pattern[str]] = {
    "escalate": re.compile(
        r"\b(?:human|real person|manager|supervisor|talk to (?:a|an|someone)|speak to (?:a|an|someone))\b"
    ),
    "cancel": re.compile(r"\bcancel"),
    "address": re.compile(r"\baddress\b|\b(?:ship|deliver|send) (?:it )?to\b"),
    "refund": re.compile(r"\brefund|\bmoney back\b|\breimburs"),
    "email": re.compile(r"\be-?mail (?:me|it|the|a)\b|\bsend me\b|\binvoice\b"),
    "status": re.compile(
        r"\bwhere(?:'s| is)\b|\bstatus\b|\btrack(?:ing)?\b|\bwhen will\b|\bhas(?:n't| not) arrived\b"
    ),
    "inventory": re.compile(r"\bin stock\b|\bavailab|\bstock\b"),
    "calculate": re.compile(r"\bhow much\b|\bin total\b|\bwhat would i pay\b|\bcost me\b"),
    "policy": re.compile(
        r"\bpolicy\b|\breturn window\b|\bwarranty\b|\bhow (?:long|many days)\b|\bshipping (?:cost|time|fee)s?\b"
    ),
}
_SMALLTALK = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank you|good (?:morning|afternoon|evening))\b|\bhow are you\b|\bthank"
)
_NEGATION = re.compile(r"\b(?:don'?t|do not|no need to|not|never|stop)\b")
_CLAUSE = re.compile(r"[.;!?,]|\bbut\b")
_CONFIRM = re.compile(
    r"^\W*(?:yes|yeah|yep|sure|ok(?:ay)?|please do|go ahead|confirm(?:ed)?|do it)\b|\bgo ahead\b|\bplease proceed\b"
)
_PROPOSAL = re.compile(r"\b(?:shall i|should i|would you like|do you want|want me to|proceed|confirm)\b")

_ORDER_ID = re.compile(r"\b([A-Za-z]\d{4})\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_AMOUNT = re.compile(
    r"(?:\$|usd\s?|€)\s?(\d+(?:\.\d{1,2})?)|(\d+(?:\.\d{1,2})?)\s?(?:dollars|usd|eur)\b", re.I
)
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_QUANTITY = re.compile(r"\b(?:buy|order|get)\s+(\d+)\b|\b(\d+)\s*(?:x|units?|pieces)\b", re.I)
_ADDRESS = re.compile(
    r"(?:address to|(?:ship|deliver|send) (?:it )?to)\s*:?\s*(?P<addr>\d.+?)\s*(?:\binstead\b)?\s*[.!]*\s*$",
    re.I,
)
_PRODUCT = re.compile(
    r"\b(?:have|is|are|got)\s+(?:the|any|your)?\s*(?P<p>[a-z][\w\s-]*?)\s+(?:still\s+)?(?:in stock|available)\b"
    r"|\b(?:buy|order|get)\s+(?:\d+\s+)?(?:of\s+)?(?:the\s+)?(?P<q>[a-z][\w\s-]*?)(?:\s+(?:with|at|for)\b|[,.?!]|$)",
    re.I,
)


@dataclass(frozen=True)
class Request:
    """What the customer wants, as the planner understood the conversation."""

    text: str
    """The latest user message."""
    intents: tuple[str, ...]
    """Intents of the latest user message that were not negated, in pattern order."""
    negated: frozenset[str]
    """Intents the customer explicitly took back ("don't cancel it")."""
    first_text: str
    """The first user message: where the customer stated their problem."""
    first_intents: tuple[str, ...]
    """Intents of the first user message: what a careless reader of a long chat acts on."""
    multi_turn: bool
    """The conversation has earlier turns."""
    confirms: bool
    """The latest message says yes to something."""
    pending: str | None
    """The action the assistant's last message proposed and awaits confirmation for."""
    order_id: str | None
    """The order talked about: from the latest message, else the most recent mention."""
    amount: float | None
    """A money amount: the latest message's, else the pending proposal's."""
    email: str | None
    """The email address the customer gave."""
    address: str | None
    """A new shipping address."""
    product: str | None
    """A product the customer asks about."""
    quantity: int | None
    percent: float | None
    smalltalk: bool
    """Greeting or thanks."""


def _content(message: dict[str, Any]) -> str:
    return str(message.get("content") or "")


def intents_of(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """(intents asked for, intents negated) of one message, clause by clause."""
    wanted: list[str] = []
    negated: set[str] = set()
    for clause in _CLAUSE.split(text.lower()):
        for name, pattern in _INTENTS.items():
            found = pattern.search(clause)
            if found is None:
                continue
            if _NEGATION.search(clause[: found.start()]):
                negated.add(name)
            elif name not in wanted:
                wanted.append(name)
    ordered = tuple(n for n in _INTENTS if n in wanted and n not in negated)
    return ordered, frozenset(negated)


def _amount(text: str) -> float | None:
    found = _AMOUNT.search(text)
    if found is None:
        return None
    return float(found.group(1) or found.group(2))


def parse_conversation(messages: list[dict[str, Any]]) -> Request:
    """Understand the conversation, focusing on the latest user message."""
    users = [m for m in messages if m.get("role") == "user"]
    text = _content(users[-1]) if users else ""
    latest_index = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    last_assistant = next(
        (_content(m) for m in reversed(messages[:latest_index]) if m.get("role") == "assistant"), ""
    )
    intents, negated = intents_of(text)
    first_intents, _ = intents_of(_content(users[0])) if users else ((), frozenset())

    pending = None
    if _PROPOSAL.search(last_assistant.lower()):
        proposed, _ = intents_of(last_assistant)
        pending = next((i for i in ACTION_INTENTS if i in proposed), None)
    confirms = bool(_CONFIRM.search(text.lower())) and "no" not in re.findall(r"[a-z]+", text.lower())

    order_id = None
    for message in [users[-1], *reversed(messages[:latest_index])] if users else []:
        found = _ORDER_ID.search(_content(message))
        if found:
            order_id = found.group(1).upper()
            break

    amount = _amount(text)
    if amount is None and confirms:
        amount = _amount(last_assistant)
    email = next((m.group(0).lower() for u in reversed(users) if (m := _EMAIL.search(_content(u)))), None)
    address = _ADDRESS.search(text)
    product = _PRODUCT.search(text)
    quantity = _QUANTITY.search(text)
    percent = _PERCENT.search(text)
    return Request(
        text=text,
        intents=intents,
        negated=negated,
        first_text=_content(users[0]) if users else "",
        first_intents=first_intents,
        multi_turn=len(users) > 1,
        confirms=confirms,
        pending=pending,
        order_id=order_id,
        amount=amount,
        email=email,
        address=address.group("addr").rstrip(" .!") if address else None,
        product=(product.group("p") or product.group("q")).strip() if product else None,
        quantity=int(quantity.group(1) or quantity.group(2)) if quantity else None,
        percent=float(percent.group(1)) if percent else None,
        smalltalk=bool(_SMALLTALK.search(text.lower())),
    )


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names the product ``name`` (any word of three letters or more, or its plural)."""
    said = {w.removesuffix("s") for w in re.findall(r"[a-z]+", text.lower())}
    return any(word.removesuffix("s") in said for word in re.findall(r"[a-z]{3,}", name.lower()))
