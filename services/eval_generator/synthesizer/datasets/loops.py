"""(e) Help-desk agent: bad when it loops (the same call again and again) or gives an empty or
evasive answer although its tools found the information.

Good traces include retries after a failed call, paginated calls, refined searches and
honest "I couldn't find it" answers when the search came back empty.
"""

from __future__ import annotations

import random
from typing import Any

from agenteval.eval_generator.synthesizer.datasets._build import (
    LabeledDataset,
    Scenario,
    TraceBuilder,
    generate,
    pick,
)

TOPICS = (
    (
        "How do I reset my router?",
        "router reset",
        "Resetting your router",
        "Hold the reset button for 10 seconds until the lights blink, then reconnect with the password on the label.",
        "Hold reset for 10 seconds, then reconnect.",
    ),
    (
        "What's the return window for shoes?",
        "shoe returns",
        "Returns policy: footwear",
        "Unworn shoes can be returned within 60 days in the original box for a full refund.",
        "60 days, if unworn.",
    ),
    (
        "How can I export my data?",
        "export data",
        "Exporting your data",
        "Open Settings, Privacy, Export data; a ZIP archive arrives by email within 24 hours.",
        "Settings > Privacy > Export data.",
    ),
    (
        "Why was I charged twice?",
        "duplicate charge",
        "Duplicate charges",
        "A pending authorization can look like a second charge; it disappears within 3-5 business days.",
        "It's a pending authorization; it disappears soon.",
    ),
    (
        "Can I change my username?",
        "change username",
        "Usernames",
        "Usernames can be changed once every 30 days from Profile, Edit.",
        "Yes, once every 30 days.",
    ),
    (
        "How do I turn on two-factor authentication?",
        "enable 2fa",
        "Two-factor authentication",
        "Go to Security, choose Authenticator app, scan the QR code and enter the 6-digit code.",
        "Security > Authenticator app, then scan the code.",
    ),
    (
        "When is support available?",
        "support hours",
        "Contacting us",
        "Live chat is staffed weekdays 8am-8pm CET; email replies arrive within one business day.",
        "Weekdays, 8am-8pm CET.",
    ),
    (
        "How do I add a teammate to my workspace?",
        "invite teammate",
        "Inviting members",
        "Admins invite teammates from Workspace, Members, Invite; invitations expire after 7 days.",
        "Workspace > Members > Invite.",
    ),
)
INTROS = ("", "Sure! ", "Good question. ", "Here's how: ", "According to our help center, ")
EVASIVE = (
    "I'm not sure.",
    "I cannot help with that.",
    "Sorry, I don't know.",
    "",
    "I'm unable to answer that right now.",
    "Hmm, hard to say.",
    "Please contact support for help with this.",
    "I'm not able to help with this request.",
    "Done.",
)
NOT_FOUND = (
    "I couldn't find anything about that in our help center. Could you share a bit more detail?",
    "I searched the knowledge base but there's no article on this yet — I've noted it for the docs team.",
    "Nothing in the help center covers this; would you like me to open a ticket instead?",
)


def _topic(rng: random.Random) -> dict[str, Any]:
    question, query, title, body, short = rng.choice(TOPICS)
    art = f"KB-{rng.randint(100, 9999)}"
    search = rng.choice(("search_kb", "search_docs", "kb_search", "helpcenter_search"))
    get = rng.choice(("get_article", "fetch_article", "read_doc"))
    return {
        "question": question,
        "search": (search, {"query": query}),
        "search_result": {"results": [{"id": art, "title": title, "snippet": body[:60] + "..."}]},
        "get": (get, {"id": art}),
        "get_result": {"id": art, "title": title, "body": body},
        "answer": short if rng.random() < 0.3 else rng.choice(INTROS) + body,
    }


def _start(rng: random.Random, topic: dict[str, Any]) -> TraceBuilder:
    return TraceBuilder(
        rng, rng.choice((None, "You are the help-center assistant.", "Answer from the docs."))
    ).user(topic["question"])


def direct(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    b = _start(rng, t).call(*t["search"], result=t["search_result"])
    if rng.random() < 0.7:
        b.call(*t["get"], result=t["get_result"])
    return b.build(t["answer"])


def refined(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    name, args = t["search"]
    b = _start(rng, t).call(name, {"query": t["question"].rstrip("?").lower()}, result={"results": []})
    b.call(name, args, result=t["search_result"]).call(*t["get"], result=t["get_result"])
    return b.build(t["answer"])


def retried(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    b = _start(rng, t)
    error = rng.choice(("503 Service Unavailable", "ConnectionResetError", "search backend timeout"))
    b.call(*t["search"], error=error)
    if rng.random() < 0.3:
        b.call(*t["search"], error=error)
    b.call(*t["search"], result=t["search_result"]).call(*t["get"], result=t["get_result"])
    return b.build(t["answer"])


def paginated(rng: random.Random) -> dict[str, Any]:
    b = TraceBuilder(rng).user(pick(rng, ("How many open tickets do I have?", "List my open tickets.")))
    name = rng.choice(("list_tickets", "get_tickets"))
    pages = rng.randint(2, 4)
    total = 0
    for page in range(1, pages + 1):
        count = 20 if page < pages else rng.randint(1, 19)
        total += count
        b.call(
            name,
            {"status": "open", "page": page},
            result={"page": page, "count": count, "has_more": page < pages},
        )
    return b.build(
        pick(rng, ("You have {n} open tickets.", "There are {n} open tickets on your account."), n=total)
    )


def not_found(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    name, args = t["search"]
    b = _start(rng, t).call(name, args, result={"results": []})
    if rng.random() < 0.5:
        b.call(name, {"query": args["query"] + " help"}, result={"results": []})
    return b.build(rng.choice(NOT_FOUND))


def looped(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    b = _start(rng, t)
    repeats = rng.randint(3, 6)
    if rng.random() < 0.6:
        for _ in range(repeats):
            b.call(*t["search"], result=t["search_result"])
    else:  # ping-pong between two calls
        for _ in range(repeats // 2 + 1):
            b.call(*t["search"], result=t["search_result"]).call(*t["get"], result=t["get_result"])
    answer = t["answer"] if rng.random() < 0.6 else rng.choice(EVASIVE)
    status = "timeout" if rng.random() < 0.15 else "ok"
    return b.build(None if status == "timeout" else answer, status=status)


def evasive(rng: random.Random) -> dict[str, Any]:
    t = _topic(rng)
    b = _start(rng, t).call(*t["search"], result=t["search_result"])
    if rng.random() < 0.6:
        b.call(*t["get"], result=t["get_result"])
    return b.build(rng.choice(EVASIVE))


SCENARIOS: tuple[Scenario, ...] = (
    ("direct", 0.28, True, direct),
    ("refined", 0.10, True, refined),
    ("retried", 0.08, True, retried),
    ("paginated", 0.06, True, paginated),
    ("not_found", 0.06, True, not_found),
    ("looped", 0.24, False, looped),
    ("evasive", 0.18, False, evasive),
)


def loops_and_evasion(n: int = 300, seed: int = 0, noise: float = 0.05) -> LabeledDataset:
    """Help-desk agent; negative = repeated identical calls, or an empty/evasive answer."""
    return generate(
        "loops_and_evasion",
        "Help-desk agent; negative when it repeats identical tool calls or gives an empty or evasive "
        "answer although its tools found the information.",
        SCENARIOS,
        n,
        seed,
        noise,
    )
